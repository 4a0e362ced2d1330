"""Static scope analysis (docs/spec/scopes.md): each rule of visibility, decided from the
syntax tree alone, and each warning with its exact message and location."""

from __future__ import annotations

from textwrap import dedent

from scenario_core.analysis.scope_analysis import (
    ALWAYS,
    DUPLICATE_SCENARIO,
    NEVER,
    NEVER_VISIBLE,
    NO_BASE_URL,
    NO_RESPONSE,
    SOMETIMES,
    UNUSED_FRAGMENT,
    UNUSED_VARIABLE,
    analyze,
)
from scenario_core.language.errors import WARNING
from scenario_core.language.parser import parse_text

URL = "http://127.0.0.1:9"


def analysis(text: str, **options):
    return analyze(parse_text(dedent(text).replace("URL", URL), "t.scenario"), **options)


def ref(found, name: str, line: int):
    (match,) = [r for r in found.references if r.name == name and r.location.line == line]
    return match


def lines(found, code: str | None = None) -> list[str]:
    return [str(d) for d in found.diagnostics if code is None or d.code == code]


# ---------------------------------------------------------------- the scenario layer


def test_a_name_extracted_earlier_in_the_scenario_is_always_visible():
    found = analysis("""
        scenario: s
          when: POST URL/pets
          extract: petId from $.id
          when: GET URL/pets/{{petId}}
        """)
    petId = ref(found, "petId", 5)
    assert petId.visibility == ALWAYS
    assert petId.explanation == "extracted at line 4"
    assert [w.line for w in petId.writers] == [4]
    # the span of NAME itself, inside {{ }}
    assert (petId.location.line, petId.location.column, petId.location.end_column) == (5, 39, 44)
    assert found.diagnostics == []


def test_a_name_extracted_later_in_the_scenario_is_never_visible_with_the_runs_reason():
    found = analysis("""
        scenario: s
          when: GET URL/pets/{{petId}}
          extract: petId from $.id
        """)
    assert ref(found, "petId", 3).visibility == NEVER
    assert lines(found) == [
        "t.scenario:3:39: warning: 'petId' is never visible here: 'petId' is extracted later in this scenario (line 4)"
    ]
    assert found.diagnostics[0].severity == WARNING and found.diagnostics[0].code == NEVER_VISIBLE


def test_a_name_extracted_nowhere_says_pass_it_with_var():
    found = analysis("""
        scenario: s
          when: GET URL/pets/{{ petId }}
        """)
    assert lines(found) == [
        "t.scenario:3:40: warning: 'petId' is never visible here: "
        "no step in this file extracts 'petId'; pass it with --var petId=..."
    ]
    assert found.diagnostics[0].location.end_column == 45


def test_run_variables_are_always_visible():
    found = analysis(
        """
        scenario: s
          when: GET URL/pets/{{petId}}
        """,
        run_variables=["petId"],
    )
    assert ref(found, "petId", 3).visibility == ALWAYS
    assert ref(found, "petId", 3).explanation == "a run variable (--var or --variables-file)"
    assert found.diagnostics == []


def test_the_file_background_is_always_visible_in_every_scenario():
    found = analysis("""
        background:
          when: POST URL/login
          extract: token from $.token

        scenario: a
          when: GET URL/a
            headers:
              Authorization: Bearer {{token}}

        feature: F
          scenario: b
            when: GET URL/b?t={{token}}
        """)
    assert ref(found, "token", 9).visibility == ALWAYS
    assert ref(found, "token", 9).explanation == "extracted by the file background (line 4)"
    assert ref(found, "token", 13).visibility == ALWAYS
    assert found.diagnostics == []


def test_a_feature_background_is_visible_only_in_its_own_features_scenarios():
    found = analysis("""
        parameters:
          shareVariablesAcrossScenarios: true

        feature: F
          background:
            when: POST URL/login
            extract: token from $.token
          scenario: a
            when: GET URL/a?t={{token}}

        scenario: b
          when: GET URL/b?t={{token}}
        """)
    assert ref(found, "token", 10).visibility == ALWAYS
    assert ref(found, "token", 10).explanation == "extracted by the background of feature 'F' (line 8)"
    # a background's extract stays in its scenario layer, never in a store
    assert ref(found, "token", 13).visibility == NEVER
    assert lines(found) == [
        "t.scenario:13:38: warning: 'token' is never visible here: 'token' is extracted only "
        "by the background of feature 'F' (line 8): what a background extracts stays in its own "
        "scenario"
    ]


# ---------------------------------------------------------------- stores (docs/spec/scopes.md#which-store-applies)

SHARED_FILE = """
    parameters:
      shareVariablesAcrossScenarios: {share}

    scenario: create
      when: POST URL/pets
      extract: petId from $.id

    scenario: read
      when: GET URL/pets/{{{{petId}}}}
    """


def test_store_standalone_with_the_file_sharing_is_the_file_store_sometimes_visible():
    found = analysis(SHARED_FILE.format(share="true"))
    petId = ref(found, "petId", 10)
    assert petId.visibility == SOMETIMES
    assert petId.explanation == (
        "extracted at line 7 by scenario 'create' (line 5), into the file store: "
        "visible only if that scenario got that far"
    )
    assert [w.line for w in petId.writers] == [7]
    assert found.diagnostics == []


def test_store_standalone_with_the_file_not_sharing_is_isolated():
    found = analysis(SHARED_FILE.format(share="false"))
    assert ref(found, "petId", 10).visibility == NEVER
    assert lines(found) == [
        "t.scenario:10:39: warning: 'petId' is never visible here: 'petId' is extracted by "
        "scenario 'create' (line 7), but the file sets shareVariablesAcrossScenarios: false "
        "(line 3)"
    ]


def test_store_standalone_by_default_is_isolated():
    found = analysis("""
        scenario: create
          when: POST URL/pets
          extract: petId from $.id

        scenario: read
          when: GET URL/pets/{{petId}}
        """)
    assert lines(found) == [
        "t.scenario:7:39: warning: 'petId' is never visible here: 'petId' is extracted by "
        "scenario 'create' (line 4), but standalone scenarios do not share variables "
        "(shareVariablesAcrossScenarios is false by default)"
    ]


def test_store_feature_sharing_has_its_own_store_within_the_feature():
    found = analysis("""
        feature: F
          parameters:
            shareVariablesAcrossScenarios: true
          scenario: create
            when: POST URL/pets
            extract: petId from $.id
          scenario: read
            when: GET URL/pets/{{petId}}
        """)
    petId = ref(found, "petId", 9)
    assert petId.visibility == SOMETIMES
    assert petId.explanation.endswith("into the store of feature 'F': visible only if that scenario got that far")


def test_store_a_features_own_store_never_reaches_the_file_store_nor_another_feature():
    found = analysis("""
        parameters:
          shareVariablesAcrossScenarios: true

        feature: F
          parameters:
            shareVariablesAcrossScenarios: true
          scenario: create
            when: POST URL/pets
            extract: petId from $.id

        feature: G
          scenario: read
            when: GET URL/pets/{{petId}}

        scenario: standalone
          when: GET URL/pets/{{petId}}
        """)
    assert ref(found, "petId", 14).visibility == NEVER
    assert ref(found, "petId", 17).visibility == NEVER
    assert lines(found) == [
        "t.scenario:14:41: warning: 'petId' is never visible here: 'petId' is extracted by scenario 'create' "
        "(line 10), but feature 'F' has its own store (shareVariablesAcrossScenarios: true, line 7), cleared when "
        "it ends",
        "t.scenario:17:39: warning: 'petId' is never visible here: 'petId' is extracted by scenario 'create' "
        "(line 10), but feature 'F' has its own store (shareVariablesAcrossScenarios: true, line 7), cleared when "
        "it ends",
    ]


def test_store_a_feature_that_sets_false_is_isolated_even_if_the_file_shares():
    found = analysis("""
        parameters:
          shareVariablesAcrossScenarios: true

        scenario: create
          when: POST URL/pets
          extract: petId from $.id

        feature: Audit
          parameters:
            shareVariablesAcrossScenarios: false
          scenario: read
            when: GET URL/pets/{{petId}}
        """)
    assert lines(found) == [
        "t.scenario:13:41: warning: 'petId' is never visible here: 'petId' is extracted by "
        "scenario 'create' (line 7), but feature 'Audit' sets shareVariablesAcrossScenarios: "
        "false (line 11)"
    ]


def test_store_a_feature_that_sets_nothing_shares_the_file_store_when_the_file_shares():
    found = analysis("""
        parameters:
          shareVariablesAcrossScenarios: true

        feature: Create
          scenario: create
            when: POST URL/pets
            extract: petId from $.id

        scenario: standalone
          when: GET URL/pets/{{petId}}

        feature: Read
          scenario: read
            when: GET URL/pets/{{petId}}
        """)
    assert ref(found, "petId", 11).visibility == SOMETIMES
    assert ref(found, "petId", 15).visibility == SOMETIMES
    assert found.diagnostics == []


def test_store_a_feature_that_sets_nothing_is_isolated_when_the_file_does_not_share():
    found = analysis("""
        feature: F
          scenario: create
            when: POST URL/pets
            extract: petId from $.id
          scenario: read
            when: GET URL/pets/{{petId}}
        """)
    assert lines(found) == [
        "t.scenario:7:41: warning: 'petId' is never visible here: 'petId' is extracted by "
        "scenario 'create' (line 5), but feature 'F' does not share variables "
        "(shareVariablesAcrossScenarios is false by default)"
    ]


def test_source_order_a_later_scenario_writes_too_late():
    found = analysis("""
        parameters:
          shareVariablesAcrossScenarios: true

        scenario: read
          when: GET URL/pets/{{petId}}

        scenario: create
          when: POST URL/pets
          extract: petId from $.id
        """)
    assert lines(found) == [
        "t.scenario:6:39: warning: 'petId' is never visible here: 'petId' is extracted by "
        "scenario 'create' (line 10), but that scenario runs later in the file (line 8)"
    ]


def test_an_earlier_scenario_that_may_fail_before_extracting_makes_it_sometimes():
    found = analysis("""
        parameters:
          shareVariablesAcrossScenarios: true

        scenario: create
          when: POST URL/pets
          then: status 201
          extract: petId from $.id

        scenario: read
          when: GET URL/pets/{{petId}}
          extract: petId from $.id
          when: GET URL/pets/{{petId}}
        """)
    assert ref(found, "petId", 11).visibility == SOMETIMES
    # its own extract shadows the store's value from there on
    assert ref(found, "petId", 13).visibility == ALWAYS
    assert [w.line for w in ref(found, "petId", 13).writers] == [12]


# ---------------------------------------------------------------- if branches, fragments, outlines


def test_an_extract_in_one_branch_of_an_if_makes_it_sometimes():
    found = analysis("""
        scenario: s
          when: POST URL/pets
          then it may be created
            if status 201
              extract $.id => petId
          when: GET URL/pets/{{petId}}
        """)
    petId = ref(found, "petId", 7)
    assert petId.visibility == SOMETIMES
    assert petId.explanation == "extracted at line 6, only in some branches of an if before it"


def test_an_extract_in_every_branch_of_an_if_with_else_is_always_visible():
    found = analysis("""
        scenario: s
          when: POST URL/pets
          then either way
            if status 201
              extract $.id => petId
            else
              extract $.other => petId
          when: GET URL/pets/{{petId}}
        """)
    assert ref(found, "petId", 9).visibility == ALWAYS
    assert [w.line for w in ref(found, "petId", 9).writers] == [6, 8]


def test_a_name_of_another_branch_is_never_visible():
    found = analysis("""
        scenario: s
          when: POST URL/pets
          then it depends
            if status 201
              extract $.id => petId
            else
              fail "no pet {{petId}}"
        """)
    assert lines(found, NEVER_VISIBLE) == [
        "t.scenario:8:22: warning: 'petId' is never visible here: 'petId' is "
        "extracted at line 6, in another branch of an if than this step"
    ]


def test_a_fragment_runs_in_place_its_extracts_and_include_arguments_are_visible():
    found = analysis("""
        fragment: login
          when: POST URL/login
            body: {"user": {{user}}}
          extract: token from $.token

        scenario: s
          given I sign in
            include login
              user: "demo"
          when: GET URL/me?t={{token}}&u={{user}}
        """)
    assert ref(found, "user", 4).visibility == ALWAYS
    assert ref(found, "user", 4).explanation == "an argument of include 'login' (line 9)"
    assert ref(found, "token", 11).explanation == "extracted at line 5, via fragment 'login'"
    assert ref(found, "user", 11).visibility == ALWAYS  # a new name stays after the fragment
    assert found.diagnostics == []


def test_a_fragment_step_never_visible_in_one_of_its_includes_names_that_include():
    found = analysis("""
        fragment: read
          when: GET URL/pets/{{petId}}

        scenario: with
          when: POST URL/pets
          extract: petId from $.id
          include: read

        scenario: without
          include: read
        """)
    assert ref(found, "petId", 3).visibility == SOMETIMES
    assert ref(found, "petId", 3).explanation.startswith("not the same everywhere it runs: ")
    assert lines(found) == [
        "t.scenario:3:39: warning: 'petId' is never visible here: 'petId' is extracted by "
        "scenario 'with' (line 7), but standalone scenarios do not share variables "
        "(shareVariablesAcrossScenarios is false by default) (when scenario 'without' includes "
        "it at line 11)"
    ]


def test_outline_row_cells_are_always_visible_and_rows_are_not_duplicate_scenarios():
    found = analysis("""
        outline: make <kind>
          when: POST URL/pets
            body: {"kind": "{{kind}}"}
          examples:
            | kind |
            | cat  |
            | dog  |
        """)
    assert ref(found, "kind", 4).visibility == ALWAYS
    assert ref(found, "kind", 4).explanation == "a column of the examples of outline 'make <kind>' (row 1, line 7)"
    assert found.diagnostics == []


def test_env_param_webhook_and_auto_test_names_are_not_variables():
    found = analysis("""
        parameters:
          region: eu

        scenario: s
          given a callback server
            webhook: events
              hook: created
          when: POST {{events.created}}
            headers:
              X-Home: {{env.HOME}}
              X-Region: {{param.region}}
        """)
    assert found.references == []
    assert found.diagnostics == []


# ---------------------------------------------------------------- the other warnings


def test_then_and_extract_with_no_request_before_them_warn():
    found = analysis("""
        scenario: s
          then: status 200
          extract: id from $.id
          then it checks
            assert $.id exists
            extract $.id => other
          when: GET URL/x?a={{id}}&b={{other}}
        """)
    assert lines(found, NO_RESPONSE) == [
        "t.scenario:3:3: warning: then: has no response to check: no request comes before it in this scenario, "
        "its backgrounds or the fragments it includes",
        "t.scenario:4:3: warning: extract: has no response to read: no request comes before it in this scenario, "
        "its backgrounds or the fragments it includes",
        "t.scenario:6:5: warning: assert has no response to check: no request comes before it in this scenario, "
        "its backgrounds or the fragments it includes",
        "t.scenario:7:5: warning: extract has no response to read: no request comes before it in this scenario, "
        "its backgrounds or the fragments it includes",
    ]


def test_a_request_in_a_background_or_fragment_counts_and_variable_conditions_need_none():
    found = analysis(
        """
        background:
          when: GET URL/health

        fragment: check
          then: status 200

        scenario: s
          include: check
          then it has a pet
            assert {{petId}} equals 1
        """,
        run_variables=["petId"],
    )
    assert lines(found) == []


def test_relative_paths_with_no_base_url_get_one_short_warning_per_file():
    found = analysis("""
        parameters:
          timeout: 5

        feature: F
          parameters:
            timeout: 9
          scenario: s
            when: GET /pets
            when: GET /pets/1
        scenario: t
          when: POST /pets
        """)
    assert lines(found) == [
        "t.scenario:9:5: warning: relative path '/pets' has no baseUrl to join (nor do 2 more requests in this"
        " file): set baseUrl in parameters: or pass --base-url"
    ]
    assert found.diagnostics[0].code == NO_BASE_URL
    one = analysis("scenario: s\n  when: GET /pets\n")
    assert lines(one) == [
        "t.scenario:2:3: warning: relative path '/pets' has no baseUrl to join: set baseUrl in parameters: or pass"
        " --base-url"
    ]


def test_a_base_url_from_the_command_line_or_any_level_silences_it():
    from scenario_core.parameters.resolution import RunOverrides

    text = """
        scenario: s
          when: GET /pets
        """
    assert lines(analysis(text, overrides=RunOverrides.from_cli([], "http://127.0.0.1:9"))) == []
    assert lines(analysis("parameters:\n  baseUrl: http://h\n" + dedent(text))) == []


def test_duplicate_scenario_names_in_one_feature_or_standalone():
    found = analysis("""
        feature: F
          scenario: same
            when: GET URL/a
          scenario: same
            when: GET URL/b

        feature: G
          scenario: same
            when: GET URL/c

        scenario: alone
          when: GET URL/d
        scenario: alone
          when: GET URL/e
        """)
    assert lines(found) == [
        "t.scenario:5:3: warning: duplicate scenario name 'same' in feature 'F'; the first is at line 3",
        "t.scenario:14:1: warning: duplicate scenario name 'alone' among the file's standalone scenarios; "
        "the first is at line 12",
    ]
    assert {d.code for d in found.diagnostics} == {DUPLICATE_SCENARIO}


def test_a_fragment_never_included_warns_and_so_does_one_only_it_includes():
    found = analysis("""
        fragment: orphan
          include: inner

        fragment: inner
          then: status 200

        fragment: used
          then: status 200

        scenario: s
          when: GET URL/a
          include: used
        """)
    assert lines(found) == [
        "t.scenario:2:1: warning: fragment 'orphan' is never included",
        "t.scenario:5:1: warning: fragment 'inner' is never included (only by 'orphan', never included either)",
    ]
    assert {d.code for d in found.diagnostics} == {UNUSED_FRAGMENT}


def test_a_variable_extracted_and_never_used_warns_at_its_extract():
    found = analysis("""
        scenario: s
          when: GET URL/a
          extract: petId from $.id
          extract: kept from $.name
          then it is kept
            assert {{kept}} equals "Rex"
        """)
    # a name read only by BerryCrush's assert is used
    assert lines(found) == ["t.scenario:4:3: warning: 'petId' is extracted but never used in this file"]
    assert found.diagnostics[0].code == UNUSED_VARIABLE


def test_at_line_gives_a_steps_warnings():
    found = analysis("""
        scenario: s
          then: status 200
          when: GET URL/pets/{{petId}}
        """)
    assert [d.code for d in found.at_line(3)] == [NO_RESPONSE]
    assert [d.code for d in found.at_line(4)] == [NEVER_VISIBLE]
    assert found.reference_at(4, 40).name == "petId"


def test_the_analysis_is_linear_in_the_number_of_scenarios(monkeypatch):
    # work counted, not timed: steps the walk visits grow as the file does
    from scenario_core.analysis import walk as analysis_walk

    def visits(copies: int) -> int:
        count = 0
        original = analysis_walk.Walk.step

        def counting(self, *args, **kwargs):
            nonlocal count
            count += 1
            return original(self, *args, **kwargs)

        monkeypatch.setattr(analysis_walk.Walk, "step", counting)
        scenario = (
            "scenario: s{n}\n  when: POST URL/pets\n  extract: petId from $.id\n"
            "  when: GET URL/pets/{{{{petId}}}}/{{{{other}}}}\n"
        )
        text = "parameters:\n  shareVariablesAcrossScenarios: true\n" + "".join(
            scenario.format(n=n) for n in range(copies)
        )
        analysis(text)
        monkeypatch.undo()
        return count

    assert visits(200) == 2 * visits(100)


# ---------------------------------------------------------------- the run's words, custom steps, fragment files


def test_a_never_visible_warning_gives_the_same_reason_as_the_run(demo, write_scenario):
    from scenario_core.language.parser import load_file
    from scenario_core.parameters.resolution import RunOverrides
    from scenario_core.run.events import ScenarioFinished
    from scenario_core.run.executor import run_to_completion

    path = write_scenario(f"""
        parameters:
          baseUrl: {demo.url}
          shareVariablesAcrossScenarios: true
        scenario: create pet
          when: POST /login
            body: {{"username": "demo", "password": "demo"}}
          extract: token from $.token
          when: POST /pets
            headers:
              Authorization: Bearer {{{{token}}}}
            body: {{"name": "Rex"}}
          extract: petId from $.id
        feature: Audit
          parameters:
            shareVariablesAcrossScenarios: false
          scenario: read pet
            when: GET /pets/{{{{petId}}}}
        """)
    file = load_file(path)
    (warning,) = analyze(file).diagnostics
    events = run_to_completion([file], RunOverrides())
    failed = next(e for e in events if isinstance(e, ScenarioFinished) and e.scenario.name == "read pet")
    reason = warning.message.split("is never visible here: ", 1)[1]
    assert reason == (
        "'petId' is extracted by scenario 'create pet' (line 12), but feature 'Audit' sets "
        "shareVariablesAcrossScenarios: false (line 15)"
    )
    assert failed.message.endswith(f"visible here: nothing. {reason}.")


def test_a_custom_step_may_set_any_name_so_what_follows_it_is_sometimes_visible():
    found = analysis("""
        scenario: s
          when: GET URL/pets/1
          extract: tag from $.tag
          and I remember the pet's tag as petTag
          when: GET URL/tags/{{petTag}}?t={{tag}}
        """)
    petTag = ref(found, "petTag", 6)
    assert petTag.visibility == SOMETIMES
    assert petTag.explanation == "the custom step 'I remember the pet's tag as petTag' (line 5) may set it"
    assert found.diagnostics == []  # nor is an extract unused: Python code may read it


def test_an_if_condition_on_the_response_needs_a_request_before_it():
    found = analysis("""
        scenario: s
          then it depends
            if status 201
              fail "created"
          when: GET URL/x
        """)
    assert lines(found) == [
        "t.scenario:4:5: warning: if has no response to check: no request comes before it in "
        "this scenario, its backgrounds or the fragments it includes"
    ]


def test_a_fragment_file_step_is_reported_at_its_include_in_this_file(tmp_path):
    from scenario_core.language.parser import load_file

    (tmp_path / "fragments").mkdir()
    (tmp_path / "fragments" / "read.fragment").write_text(
        "fragment: read\n  when: GET URL/pets/{{petId}}\n".replace("URL", URL)
    )
    (tmp_path / "t.scenario").write_text("scenario: s\n  include: read\n")
    found = analyze(load_file(str(tmp_path / "t.scenario")))
    assert lines(found) == [
        f"{tmp_path / 't.scenario'}:2:3: warning: 'petId' is never visible here: no step in "
        "this file extracts 'petId'; pass it with --var petId=... (in fragment 'read', "
        "read.fragment line 2)"
    ]
    assert ref(found, "petId", 2).location.file.endswith("read.fragment")


def test_a_feature_that_shares_starts_with_an_empty_store_and_clears_it_when_it_ends():
    found = analysis("""
        feature: First
          parameters:
            shareVariablesAcrossScenarios: true
          scenario: create
            when: POST URL/pets
            extract: petId from $.id

        feature: First again
          parameters:
            shareVariablesAcrossScenarios: true
          scenario: read
            when: GET URL/pets/{{petId}}
        """)
    assert ref(found, "petId", 13).visibility == NEVER
    assert lines(found) == [
        "t.scenario:13:41: warning: 'petId' is never visible here: 'petId' is extracted by "
        "scenario 'create' (line 7), but feature 'First again' has its own store "
        "(shareVariablesAcrossScenarios: true, line 11) and does not see the store of feature "
        "'First'"
    ]


def test_at_line_gives_the_warnings_of_a_step_written_on_the_lines_below_it():
    found = analysis("""
        scenario: s
          when: POST URL/pets
            headers:
              X-A: {{a}}
            body:
              {
                "n": {{b}}
              }
        """)
    assert [d.location.line for d in found.at_line(3)] == [5, 8]
    assert [d.location.line for d in found.at_line(5)] == [5]


def test_a_reference_in_a_fragment_never_included_is_never_visible_and_warned_once_as_the_fragment():
    found = analysis("""
        fragment: orphan
          when: GET URL/pets/{{petId}}

        scenario: s
          when: GET URL/x
        """)
    petId = ref(found, "petId", 3)
    assert (petId.visibility, petId.explanation) == (NEVER, "fragment 'orphan' is never included: this step never runs")
    assert [d.code for d in found.diagnostics] == [UNUSED_FRAGMENT]


def test_the_quick_store_rule_agrees_with_resolving_every_parameter():
    # analysis reads sharing straight off plain true/false levels; resolution is the reference
    from pathlib import Path

    from scenario_core.analysis.report import _UNKNOWN, Report
    from scenario_core.language.parser import load_file
    from scenario_core.parameters.resolution import RunOverrides, resolve_parameters
    from scenario_core.parameters.sharing import store_for

    examples = Path(__file__).resolve().parents[2] / "examples"
    for path in sorted([*examples.glob("*.scenario"), *examples.glob("_fails-on-purpose/*.scenario")]):
        if path.name == "mistakes.scenario":
            continue
        file = load_file(str(path))
        for overrides in (
            RunOverrides(),
            RunOverrides({"shareVariablesAcrossScenarios": True}),
            RunOverrides({"shareVariablesAcrossScenarios": False}),
        ):
            report = Report(file, overrides, ())
            for feature in (None, *file.features):
                quick = report._quick_store(feature)
                full = store_for(resolve_parameters(file, feature, overrides), feature.line if feature else None)
                assert quick is not _UNKNOWN and quick == full, (path.name, feature and feature.name)


def test_visible_at_a_line_lists_what_a_reference_there_could_name():
    from scenario_core.analysis.scope_analysis import visible_at

    text = dedent("""
        parameters:
          shareVariablesAcrossScenarios: true
        background:
          when: POST URL/login
          extract: token from $.token
        scenario: create
          when: POST URL/pets
          extract: petId from $.id
        scenario: read
          when: GET URL/pets/1
          then it may have a tag
            if status 200
              extract $.tag => tag
          when: GET URL/pets/2
        """).replace("URL", URL)
    file = parse_text(text, "t.scenario")
    # before the step on line 11: the background's token, the store's petId
    assert visible_at(file, 11, run_variables=["region"]) == {"petId": SOMETIMES, "region": ALWAYS, "token": ALWAYS}
    # below the if: its branch's tag too
    assert visible_at(file, 16) == {"petId": SOMETIMES, "tag": SOMETIMES, "token": ALWAYS}
    # in the first scenario, before its extract
    assert visible_at(file, 9) == {"token": ALWAYS}
