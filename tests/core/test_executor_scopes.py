"""Variable scopes while running (docs/spec/scopes.md), against the real demo API.

Every row of the store table, store lifetimes as events, background reset, write-through,
overwrite, source order, fragments in place, run variables, nothing shared between files.
"""

from __future__ import annotations

from scenario_core.language.parser import load_file
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.parameters.sharing import StoreRef
from scenario_core.run.events import (
    BACKGROUND_FEATURE,
    BACKGROUND_FILE,
    SCENARIO,
    FeatureFinished,
    FeatureStarted,
    FileFinished,
    FileStarted,
    ScenarioFinished,
    ScenarioStarted,
    ScopeCleared,
    ScopeCreated,
    StepFinished,
    StepStarted,
    VariableExtracted,
    VariableOverwritten,
)
from scenario_core.run.executor import run_to_completion

LOGIN = """\
  when: POST /login
    body: {"username": "demo", "password": "demo"}
  extract: token from $.token
"""


def run(demo, write_scenario, text, *, name="test.scenario", overrides=None, run_variables=None, tags=None):
    path = write_scenario(text.replace("BASE", demo.url), name)
    return run_to_completion([load_file(path)], RunOverrides(overrides or {}), run_variables, tags)


def ln(text: str, needle: str, nth: int = 1) -> int:
    """The line number of the nth line containing `needle`."""
    hits = [i for i, line in enumerate(text.splitlines(), 1) if needle in line]
    return hits[nth - 1]


def of(events, cls):
    return [e for e in events if isinstance(e, cls)]


def results(events) -> dict[str, tuple[str, str | None]]:
    return {e.scenario.name: (e.status, e.message) for e in of(events, ScenarioFinished)}


def started(events, name) -> ScenarioStarted:
    return next(e for e in of(events, ScenarioStarted) if e.scenario.name == name)


def finished(events, name) -> ScenarioFinished:
    return next(e for e in of(events, ScenarioFinished) if e.scenario.name == name)


def counter_scenario(name: str, extract: str = "n") -> str:
    return f"scenario: {name}\n  when: GET /counter\n  extract: {extract} from $.value\n"


def user_scenario(name: str, var: str, indent: str = "") -> str:
    return (
        f"{indent}scenario: {name}\n{indent}  when: GET /echo?v={{{{{var}}}}}\n"
        f'{indent}  then: $.query.v == "{{{{{var}}}}}"\n'
    )


# ---------------------------------------------------------------- the store table, row by row


def test_standalone_scenarios_share_the_file_store_when_the_file_shares(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        f"""\
parameters:
  baseUrl: "BASE"
  shareVariablesAcrossScenarios: true
{counter_scenario("make")}
{user_scenario("use", "n")}""",
    )
    assert results(events) == {"make": ("passed", None), "use": ("passed", None)}
    assert started(events, "make").store == StoreRef(None)
    assert started(events, "make").carried == ()
    assert started(events, "use").carried == ("n",)
    assert started(events, "use").snapshot.store_values == {"n": 1}


def test_standalone_scenarios_are_isolated_when_the_file_does_not_share(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        f"""\
parameters:
  baseUrl: "BASE"
  shareVariablesAcrossScenarios: false
{counter_scenario("make")}
{user_scenario("use", "n")}""",
    )
    status, message = results(events)["use"]
    assert status == "failed"
    assert started(events, "use").store is None
    assert "the file sets shareVariablesAcrossScenarios: false (line 3)" in message
    assert not of(events, ScopeCreated)


def test_a_sharing_feature_has_its_own_store_empty_at_its_first_scenario(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        f"""\
parameters:
  baseUrl: "BASE"
feature: Pets
  parameters:
    shareVariablesAcrossScenarios: true
{counter_scenario("make").replace(chr(10), chr(10) + "  ").replace("scenario:", "  scenario:", 1).rstrip()}
{user_scenario("use", "n", "  ")}""",
    )
    assert results(events) == {"make": ("passed", None), "use": ("passed", None)}
    own = StoreRef("Pets", 3)
    assert started(events, "make").store == own and started(events, "make").fresh
    assert started(events, "use").carried == ("n",)
    kinds = [
        type(e)
        for e in events
        if isinstance(e, (FeatureStarted, ScopeCreated, ScenarioStarted, ScopeCleared, FeatureFinished))
    ]
    assert kinds == [FeatureStarted, ScopeCreated, ScenarioStarted, ScenarioStarted, ScopeCleared, FeatureFinished]
    assert of(events, ScopeCreated)[0].store == own
    assert of(events, ScopeCleared)[0] == ScopeCleared(store=own, names=("n",))
    assert of(events, FeatureFinished)[0].cleared == ("n",)


def test_a_sharing_feature_never_reads_or_writes_the_file_store(demo, write_scenario):
    text = f"""\
parameters:
  baseUrl: "BASE"
  shareVariablesAcrossScenarios: true
{counter_scenario("file level", "a")}
feature: Own
  parameters:
    shareVariablesAcrossScenarios: true
{user_scenario("reads a", "a", "  ")}
  scenario: makes b
    when: GET /counter
    extract: b from $.value
{user_scenario("after the feature", "b")}"""
    events = run(demo, write_scenario, text)
    assert results(events)["file level"] == ("passed", None)
    status, message = results(events)["reads a"]
    assert status == "failed"
    assert message == (
        f"line {ln(text, '{{a}}')}: undefined variable 'a' in GET /echo?v={{{{a}}}}; visible here: nothing. "
        f"'a' is extracted by scenario 'file level' (line {ln(text, 'extract: a')}), but feature 'Own' has its "
        f"own store (shareVariablesAcrossScenarios: true, line {ln(text, 'shareVariables', 2)}) and does not "
        "see the file store."
    )
    assert results(events)["makes b"] == ("passed", None)
    status, message = results(events)["after the feature"]
    assert status == "failed"
    assert message.endswith(
        f"'b' is extracted by scenario 'makes b' (line {ln(text, 'extract: b')}), but feature 'Own' has its own "
        f"store (shareVariablesAcrossScenarios: true, line {ln(text, 'shareVariables', 2)}), cleared when it ends."
    )
    # The file store never held b; the feature's own store is cleared with b in it.
    assert finished(events, "after the feature").snapshot.store_values == {"a": 1}
    assert of(events, FeatureFinished)[0].cleared == ("b",)


def test_a_feature_that_does_not_share_is_isolated_even_if_the_file_shares(demo, write_scenario):
    text = f"""\
parameters:
  baseUrl: "BASE"
  shareVariablesAcrossScenarios: true
{counter_scenario("file level", "a")}
feature: Audit
  parameters:
    shareVariablesAcrossScenarios: false
  scenario: makes b
    when: GET /counter
    extract: b from $.value
{user_scenario("reads a", "a", "  ")}
{user_scenario("reads b", "b", "  ")}"""
    events = run(demo, write_scenario, text)
    assert started(events, "makes b").store is None
    assert started(events, "reads a").store is None
    assert results(events)["reads a"][0] == "failed"
    assert results(events)["reads b"][1] == (
        f"line {ln(text, '{{b}}')}: undefined variable 'b' in GET /echo?v={{{{b}}}}; visible here: nothing. "
        f"'b' is extracted by scenario 'makes b' (line {ln(text, 'extract: b')}), but feature 'Audit' sets "
        f"shareVariablesAcrossScenarios: false (line {ln(text, 'shareVariables', 2)})."
    )


def test_features_that_do_not_set_sharing_use_the_file_store_in_file_order(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        f"""\
parameters:
  baseUrl: "BASE"
  shareVariablesAcrossScenarios: true
{counter_scenario("first", "a")}
feature: G
  scenario: uses a, makes b
    when: GET /echo?v={{{{a}}}}
    then: $.query.v == "1"
    when: GET /counter
    extract: b from $.value
feature: H
{user_scenario("uses b", "b", "  ")}
{user_scenario("standalone uses b", "b")}""",
    )
    assert set(results(events).values()) == {("passed", None)}
    for name in ("first", "uses a, makes b", "uses b", "standalone uses b"):
        assert started(events, name).store == StoreRef(None)
    assert started(events, "uses b").carried == ("a", "b")
    # One file store for the whole file: created once, cleared at the end of the file.
    assert of(events, ScopeCreated) == [ScopeCreated(store=StoreRef(None))]
    assert of(events, ScopeCleared) == [ScopeCleared(store=StoreRef(None), names=("a", "b"))]
    assert of(events, FileFinished)[0].cleared == ("a", "b")
    assert [f.cleared for f in of(events, FeatureFinished)] == [(), ()]


def test_features_that_do_not_set_sharing_are_isolated_when_the_file_does_not_share(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        f"""\
parameters:
  baseUrl: "BASE"
feature: G
  scenario: makes b
    when: GET /counter
    extract: b from $.value
{user_scenario("uses b", "b", "  ")}""",
    )
    assert started(events, "uses b").store is None
    status, message = results(events)["uses b"]
    assert status == "failed"
    assert message.endswith(
        "but feature 'G' does not share variables (shareVariablesAcrossScenarios is false by default)."
    )


def test_sharing_from_the_command_line_makes_the_file_store_apply(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        f"""\
parameters:
  baseUrl: "BASE"
{counter_scenario("make")}
{user_scenario("use", "n")}""",
        overrides={"shareVariablesAcrossScenarios": True},
    )
    assert results(events)["use"] == ("passed", None)
    assert started(events, "use").store == StoreRef(None)


# ---------------------------------------------------------------- store lifetimes


def test_each_sharing_feature_starts_empty_and_is_cleared_when_it_ends(demo, write_scenario):
    feature = """\
feature: {name}
  parameters:
    shareVariablesAcrossScenarios: true
  scenario: {name} makes n
    when: GET /counter
    extract: n from $.value
  scenario: {name} reads n
    when: GET /echo?v={{{{n}}}}
    then: $.query.v == "{{{{n}}}}"
"""
    events = run(
        demo,
        write_scenario,
        'parameters:\n  baseUrl: "BASE"\n' + feature.format(name="One") + feature.format(name="Two"),
    )
    assert set(results(events).values()) == {("passed", None)}
    assert started(events, "Two makes n").carried == ()
    assert started(events, "Two reads n").snapshot.store_values == {"n": 2}
    cleared = of(events, ScopeCleared)
    assert [(c.store.feature, c.names) for c in cleared] == [("One", ("n",)), ("Two", ("n",))]
    # The own store is created right before the feature's first scenario, not earlier.
    index = events.index
    assert index(of(events, ScopeCreated)[1]) == index(started(events, "Two makes n")) - 1


def test_background_values_are_reset_for_each_scenario_and_never_stored(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        f"""\
parameters:
  baseUrl: "BASE"
  shareVariablesAcrossScenarios: true
background:
{LOGIN}
feature: F
  background:
    when: GET /counter
    extract: n from $.value
  scenario: one
    when: GET /health
  scenario: two
    when: GET /health
scenario: three
  when: GET /health
""",
    )
    assert set(results(events).values()) == {("passed", None)}
    tokens = [e.value for e in of(events, VariableExtracted) if e.name == "token"]
    assert len(tokens) == 3 and len(set(tokens)) == 3  # a new login before every scenario
    for event in of(events, VariableExtracted):
        assert event.layers == ("scenario",)
    assert [e.value for e in of(events, VariableExtracted) if e.name == "n"] == [1, 2]
    for name in ("one", "two", "three"):
        assert started(events, name).carried == ()
        assert finished(events, name).snapshot.store_values == {}
    assert finished(events, "two").snapshot.scenario["token"] == tokens[1]
    assert not of(events, VariableOverwritten)  # each scenario starts with an empty layer
    phases = [(e.step.line, e.phase) for e in of(events, StepStarted)][:5]
    assert phases == [
        (5, BACKGROUND_FILE),
        (7, BACKGROUND_FILE),
        (11, BACKGROUND_FEATURE),
        (12, BACKGROUND_FEATURE),
        (14, SCENARIO),
    ]


def test_an_extract_is_written_through_even_if_a_later_step_fails(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        f"""\
parameters:
  baseUrl: "BASE"
  shareVariablesAcrossScenarios: true
scenario: extracts then fails
  when: GET /counter
  extract: n from $.value
  then: status 500
  when: GET /health
{user_scenario("later", "n")}""",
    )
    assert results(events)["extracts then fails"] == (
        "failed",
        'line 7: expected status 500, got 200 (body: {"value": 1})',
    )
    assert results(events)["later"] == ("passed", None)
    extracted = of(events, VariableExtracted)[0]
    assert extracted.layers == ("scenario", "file store")
    steps = [(e.step.line, e.status) for e in of(events, StepFinished)][:4]
    assert steps == [(5, "passed"), (6, "passed"), (7, "failed"), (8, "skipped")]


def test_re_extracting_a_name_overwrites_it_in_every_layer(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
parameters:
  baseUrl: "BASE"
  shareVariablesAcrossScenarios: true
scenario: twice
  when: GET /counter
  extract: n from $.value
  when: GET /counter
  extract: n from $.value
scenario: again
  when: GET /counter
  extract: n from $.value
""",
    )
    overwritten = [(e.name, e.old, e.new, e.layer, e.step.line) for e in of(events, VariableOverwritten)]
    assert overwritten == [
        ("n", 1, 2, "scenario", 8),
        ("n", 1, 2, "file store", 8),
        # `again` starts with an empty scenario layer: only the store had n.
        ("n", 2, 3, "file store", 11),
    ]
    assert finished(events, "again").snapshot.visible() == {"n": 3}
    origin = finished(events, "again").snapshot.origin("n")
    assert (origin.scenario, origin.location.line) == ("again", 11)


def test_scenarios_run_in_source_order_with_features_and_standalone_interleaved(demo, write_scenario):
    def numbered(name: str, n: int, indent: str = "") -> str:
        return f"{indent}scenario: {name}\n{indent}  when: GET /counter\n{indent}  then: $.value == {n}\n"

    events = run(
        demo,
        write_scenario,
        'parameters:\n  baseUrl: "BASE"\n'
        + numbered("s1", 1)
        + "feature: F\n"
        + numbered("f1", 2, "  ")
        + numbered("f2", 3, "  ")
        + numbered("s2", 4)
        + "feature: G\n"
        + numbered("g1", 5, "  ")
        + numbered("s3", 6),
    )
    assert [e.scenario.name for e in of(events, ScenarioStarted)] == ["s1", "f1", "f2", "s2", "g1", "s3"]
    assert set(results(events).values()) == {("passed", None)}
    shape = [
        type(e).__name__
        for e in events
        if isinstance(e, (FileStarted, FeatureStarted, FeatureFinished, ScenarioStarted, FileFinished))
    ]
    assert shape == [
        "FileStarted",
        "ScenarioStarted",
        "FeatureStarted",
        "ScenarioStarted",
        "ScenarioStarted",
        "FeatureFinished",
        "ScenarioStarted",
        "FeatureStarted",
        "ScenarioStarted",
        "FeatureFinished",
        "ScenarioStarted",
        "FileFinished",
    ]


def test_included_fragments_run_in_place_recursively(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
parameters:
  baseUrl: "BASE"
fragment: login
  when: POST /login
    body: {"username": "demo", "password": "demo"}
  extract: token from $.token
fragment: create
  include: login
  when: POST /pets
    headers:
      Authorization: Bearer {{token}}
    body: {"name": "Rex"}
  then: status 201
  extract: petId from $.id
background:
  include: login
scenario: uses both
  when: GET /health
  include: create
  then: $.id == {{petId}}
""",
    )
    assert results(events) == {"uses both": ("passed", None)}
    steps = [(e.step.line, e.phase, tuple(i.line for i in e.via), e.index) for e in of(events, StepStarted)]
    assert steps == [
        (4, BACKGROUND_FILE, (16,), 0),
        (6, BACKGROUND_FILE, (16,), 1),
        (18, SCENARIO, (), 2),
        (4, SCENARIO, (19, 8), 3),
        (6, SCENARIO, (19, 8), 4),
        (9, SCENARIO, (19,), 5),
        (13, SCENARIO, (19,), 6),
        (14, SCENARIO, (19,), 7),
        (20, SCENARIO, (), 8),
    ]
    plan = started(events, "uses both").steps
    assert [p.line for p in plan] == [s[0] for s in steps]
    # The fragment's extract of token inside the scenario overwrote the background's.
    assert [(e.name, e.layer) for e in of(events, VariableOverwritten)] == [("token", "scenario")]


def test_run_variables_are_outermost_and_read_only(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
parameters:
  baseUrl: "BASE"
  shareVariablesAcrossScenarios: true
scenario: shadows
  when: GET /echo?v={{name}}
  then: $.query.v == "Rex"
  when: GET /counter
  extract: name from $.value
  when: GET /echo?v={{name}}
  then: $.query.v == "1"
scenario: store wins over run variables
  when: GET /echo?v={{name}}
  then: $.query.v == "1"
""",
        run_variables={"name": "Rex"},
    )
    assert set(results(events).values()) == {("passed", None)}
    snapshot = finished(events, "store wins over run variables").snapshot
    assert snapshot.run == {"name": "Rex"}
    assert snapshot.layer_of("name") == "file store"
    assert snapshot.visible() == {"name": 1}


def test_run_variables_show_when_nothing_shadows_them(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
parameters:
  baseUrl: "BASE"
scenario: reads
  when: GET /echo?v={{name}}
  then: $.query.v == "Rex"
""",
        run_variables={"name": "Rex"},
    )
    assert results(events) == {"reads": ("passed", None)}
    snapshot = finished(events, "reads").snapshot
    assert snapshot.layer_of("name") == "run" and snapshot.origin("name") is None


def test_nothing_is_shared_between_files(demo, write_scenario):
    text = """\
parameters:
  baseUrl: "BASE"
  shareVariablesAcrossScenarios: true
scenario: {name}
  when: GET /echo?v={{{{n}}}}
  extract: n from $.query.v
"""
    first = write_scenario(text.replace("BASE", demo.url).format(name="first").replace("{{n}}", "x"), "a.scenario")
    second = write_scenario(text.replace("BASE", demo.url).format(name="second"), "b.scenario")
    events = run_to_completion([load_file(first), load_file(second)])
    assert results(events)["first"] == ("passed", None)
    assert results(events)["second"][0] == "failed"
    assert [c.names for c in of(events, ScopeCleared)] == [("n",), ()]
    assert [e.scenario.name for e in of(events, ScenarioStarted)] == ["first", "second"]
    assert started(events, "second").carried == ()
