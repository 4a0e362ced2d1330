"""The language service's answers over plain text (no LSP): diagnostics, hover, definition,
completion, outline, and answering from the last text that parsed."""

from __future__ import annotations

import textwrap

import pytest

from scenario_core.editor import service
from scenario_core.editor.service import Position, Span, Target

PETS = textwrap.dedent("""\
    parameters:
      shareVariablesAcrossScenarios: true
      baseUrl: http://127.0.0.1:8000

    fragment: check pet
      then: status 200
      then: $.name == "Rex"

    feature: Pets
      parameters:
        timeout: 10
      scenario: create
        include: login
        when: POST /pets
          headers:
            Authorization: Bearer {{token}}
          body: {"name": "Rex"}
        then: status 201
        extract: petId from $.id
      scenario: read
        when: GET /pets/{{petId}}
        include: check pet
    """)

LOGIN = textwrap.dedent("""\
    fragment: login
      when: POST /login
      then: status 200
      extract: token from $.token
    """)


@pytest.fixture
def pets(tmp_path):
    """pets.scenario beside fragments/auth.fragment (the `login` fragment)."""
    (tmp_path / "fragments").mkdir()
    (tmp_path / "fragments" / "auth.fragment").write_text(LOGIN)
    path = tmp_path / "pets.scenario"
    path.write_text(PETS)
    return str(path)


def read(path: str, text: str | None = None, previous=None) -> service.Document:
    return service.read_document(PETS if text is None else text, path, previous)


def span(line: int, start: int, end: int, end_line: int | None = None) -> Span:
    return Span(Position(line, start), Position(line if end_line is None else end_line, end))


# ---------------------------------------------------------------- diagnostics


def test_a_valid_file_has_no_problems(pets):
    document = read(pets)
    assert service.diagnostics(document) == []
    assert document.tree is not None and not document.stale


def test_a_wrong_parameter_value_is_an_error_on_its_value(pets):
    document = read(pets, PETS.replace("timeout: 10", "timeout: abc"))
    assert service.diagnostics(document) == [
        service.Problem(span(10, 13, 16), "error", 'timeout must be a positive integer number of seconds, got "abc"')
    ]


def test_a_syntax_error_underlines_the_rest_of_its_line(pets):
    document = read(pets, PETS.replace("    then: status 201\n", "    foo bar\n"))
    (problem,) = service.diagnostics(document)
    assert problem.span == span(17, 4, 11)  # the parser names one column; the whole `foo bar` is marked
    assert problem.message.startswith("'foo bar' is not allowed here")
    assert problem.severity == "error"


def test_an_unknown_fragment_is_an_error_on_the_include(pets):
    document = read(pets, PETS.replace("include: check pet", "include: check pets"))
    (problem,) = service.diagnostics(document)
    assert (problem.span.start, problem.message) == (
        Position(21, 4),
        "include of unknown fragment 'check pets'; did you mean 'check pet'?",
    )


def test_the_scope_analysis_warnings_are_problems_with_their_code(pets):
    document = read(pets, PETS.replace("{{petId}}", "{{petID}}"))
    assert service.diagnostics(document) == [
        service.Problem(
            span(18, 4, 28), "warning", "'petId' is extracted but never used in this file", "unused-variable"
        ),
        service.Problem(
            span(20, 22, 27),
            "warning",
            "'petID' is never visible here: did you mean 'petId'? no step in this file extracts 'petID'; pass it with --var petID=...",
            "never-visible",
        ),
    ]


def test_a_broken_fragment_file_is_reported_at_each_include_of_it_with_its_place(pets, tmp_path):
    (tmp_path / "fragments" / "auth.fragment").write_text("fragment: login\n  foo bar\n")
    problems = [p for p in service.diagnostics(read(pets)) if p.severity == "error"]
    assert [p.span.start for p in problems] == [Position(12, 4)]  # `include: login`
    assert problems[0].message.startswith(
        f"fragment 'login' cannot be used: {tmp_path / 'fragments' / 'auth.fragment'}:2:3: "
    )


def test_a_fragment_file_is_read_on_its_own(tmp_path):
    path = str(tmp_path / "auth.fragment")
    document = service.read_document(LOGIN, path)
    assert document.problems == [] and [f.name for f in document.tree.fragments] == ["login"]


def test_a_file_that_no_longer_parses_answers_from_the_last_that_did(pets):
    good = read(pets)
    broken = read(pets, PETS.replace("    then: status 201\n", "    foo bar\n"), previous=good)
    assert broken.stale and broken.tree is good.tree
    assert broken.problems[0].message.startswith("'foo bar' is not allowed here")
    assert service.hover(broken, Position(20, 22)).span == span(20, 20, 29)
    assert [s.name for s in service.symbols(broken)] == ["check pet", "Pets"]
    assert read(pets, "scenario: x\n  foo\n").tree is None  # nothing parsed before: nothing to answer from


# ---------------------------------------------------------------- hover


def test_hover_on_a_scenario_shows_its_effective_parameters_with_provenance(pets):
    found = service.hover(read(pets), Position(11, 5))
    assert found.span == span(11, 0, 18)
    assert found.markdown == textwrap.dedent("""\
        **scenario 'create'** — shares file-wide

        | parameter | value | from |
        |---|---|---|
        | `shareVariablesAcrossScenarios` | `true` | file line 2 · default false |
        | `timeout` | `10` | feature 'Pets' line 11 · default 30 |
        | `baseUrl` | `http://127.0.0.1:8000` | file line 3 · default (none) |

        22 other parameters at their default""")


def test_hover_on_the_feature_and_the_file_parameters(pets):
    document = read(pets)
    assert service.hover(document, Position(8, 0)).markdown.splitlines()[0] == "**feature 'Pets'** — shares file-wide"
    file_hover = service.hover(document, Position(0, 3)).markdown.splitlines()
    assert file_hover[0] == "**file pets.scenario** — shares file-wide"
    assert "| `timeout` | `30` | default |" in file_hover


def test_hover_on_a_parameter_entry_names_its_type_default_and_winner(pets):
    found = service.hover(read(pets), Position(10, 6))
    assert found.markdown == (
        "`timeout`: integer seconds, default `30` — bound on each request as a whole (connect, send, wait, read)"
        "\n\nEffective for feature 'Pets': `10` ← feature 'Pets' line 11 · default 30"
    )


def test_hover_on_a_variable_gives_the_analysis_verdict_and_the_extracting_step(pets):
    document = read(pets)
    token = service.hover(document, Position(15, 35))
    assert token.span == span(15, 30, 39)
    assert token.markdown == (
        "**`{{token}}`** — always visible here\n\n"
        "extracted at line 4, via fragment 'login'\n\n"
        "Extracted by:\n- `extract: token from $.token` (fragment 'login', fragments/auth.fragment line 4)"
    )
    assert service.hover(document, Position(20, 20)).markdown == (
        "**`{{petId}}`** — sometimes visible here\n\n"
        "extracted at line 19 by scenario 'create' (line 12), into the file store: visible only if that scenario "
        "got that far\n\n"
        "Extracted by:\n- `extract: petId from $.id` (scenario 'create', line 19)"
    )


def test_hover_on_a_variable_that_is_never_visible_says_why(pets):
    document = read(pets, PETS.replace("{{petId}}", "{{petID}}"))
    assert service.hover(document, Position(20, 22)).markdown == (
        "**`{{petID}}`** — never visible here\n\ndid you mean 'petId'? no step in this file extracts 'petID'; pass it with --var petID=..."
    )


def test_hover_without_an_analysis_verdict_lists_the_writers(pets):
    good = read(pets)
    moved = read(pets, PETS.replace("    then: status 201\n", "    foo bar\n    then: status 201\n"), good)
    assert moved.stale  # a line was added: the last tree's references are a line up, the writers still answer
    assert service.hover(moved, Position(21, 22)).markdown == "**`{{petId}}`**\n\n" + (
        "Extracted by:\n- `extract: petId from $.id` (scenario 'create', line 19)"
    )


def test_hover_on_an_include_shows_the_fragments_steps(pets):
    document = read(pets)
    own = service.hover(document, Position(21, 15))
    assert own.span == span(21, 13, 22)
    assert own.markdown == "**fragment 'check pet'** (line 5)\n\n```\nthen: status 200\nthen: $.name == \"Rex\"\n```"
    other = service.hover(document, Position(12, 14))
    assert other.markdown.splitlines()[0] == "**fragment 'login'** (fragments/auth.fragment:1)"
    assert other.markdown.splitlines()[3] == "when: POST /login"


def test_hover_on_plain_step_text_has_nothing(pets):
    assert service.hover(read(pets), Position(17, 8)) is None


# ---------------------------------------------------------------- definition


def test_definition_of_a_variable_is_its_extract_step(pets):
    assert service.definition(read(pets), Position(20, 22)) == [Target(pets, span(18, 4, 28))]


def test_definition_of_an_include_is_the_fragment_in_the_file_or_a_fragment_file(pets, tmp_path):
    document = read(pets)
    assert service.definition(document, Position(21, 16)) == [Target(pets, span(4, 0, 19))]
    assert service.definition(document, Position(12, 15)) == [
        Target(str(tmp_path / "fragments" / "auth.fragment"), span(0, 0, 15))
    ]


# ---------------------------------------------------------------- completion


def labels(document, line: int, character: int) -> list[str]:
    return [c.label for c in service.completions(document, Position(line, character))]


def test_completion_offers_the_keywords_of_the_cursors_block(pets):
    text = PETS + "\n  \n"
    document = read(pets, text)
    assert labels(document, 0, 0) == ["feature:", "scenario:", "outline:", "fragment:", "background:", "parameters:"]
    assert labels(document, 23, 2) == ["description:", "parameters:", "background:", "scenario:", "outline:"]
    assert labels(document, 13, 4) == [
        "parameters:",
        "when:",
        "then:",
        "extract:",
        "include:",
        "given",
        "when",
        "then",
        "and",
        "but",
    ]
    assert labels(document, 14, 6) == ["headers:", "query:", "body:", "bodyFile:", "form:", "multipart:"]


def test_completion_offers_parameter_keys_with_type_and_default(pets):
    items = service.completions(read(pets), Position(10, 4))
    timeout = next(i for i in items if i.label == "timeout")
    assert (timeout.kind, timeout.detail, timeout.insert_text) == (
        "parameter",
        "integer seconds, default 30",
        "timeout: ",
    )
    assert "shareVariablesAcrossScenarios" in [i.label for i in items]


def test_completion_offers_methods_after_when(pets):
    assert labels(read(pets), 13, 10) == ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]


def test_completion_offers_fragment_names_after_include(pets):
    items = service.completions(read(pets), Position(21, 13))
    assert [(i.label, i.detail) for i in items] == [
        ("check pet", "2 steps"),
        ("login", "3 steps · fragments/auth.fragment"),
    ]


def test_completion_inside_braces_offers_the_names_visible_there(pets):
    text = PETS.replace('body: {"name": "Rex"}', 'body: {"name": "{{"}')
    typing = read(pets, text, previous=read(pets))  # `{{"` does not parse: the last tree answers
    items = service.completions(typing, Position(16, 24))
    assert [(i.label, i.detail) for i in items] == [("token", "an earlier step, fragment 'login' line 4")]
    later = service.completions(read(pets), Position(20, 22))
    assert [(i.label, i.detail) for i in later] == [  # the file shares: what 'create' extracted, if it got there
        ("token", "sometimes: scenario 'create', fragment 'login' line 4, if it got that far (shares file-wide)"),
        ("petId", "sometimes: scenario 'create', line 19, if it got that far (shares file-wide)"),
    ]


def test_completion_after_the_keyword_offers_nothing(pets):
    assert labels(read(pets), 17, 14) == []


# ---------------------------------------------------------------- outline


def test_symbols_outline_features_scenarios_and_fragments(pets):
    outline = [
        (
            s.name,
            s.kind,
            s.selection.start.line,
            s.span.end.line,
            [(c.name, c.kind, c.span.end.line) for c in s.children],
        )
        for s in service.symbols(read(pets))
    ]
    assert outline == [
        ("check pet", "fragment", 4, 6, []),
        ("Pets", "feature", 8, 21, [("create", "scenario", 18), ("read", "scenario", 21)]),
    ]


def test_symbols_of_backgrounds_and_outlines():
    text = textwrap.dedent("""\
        background:
          when: GET /login

        outline: pets by name
          when: GET /pets/{{name}}
          examples:
            | name |
            | Rex  |
            | Luna |
        """)
    symbols = service.symbols(service.read_document(text, "x.scenario"))
    assert [(s.name, s.kind, s.span.start.line, s.span.end.line) for s in symbols] == [
        ("background", "background", 0, 1),
        ("pets by name", "outline", 3, 8),
    ]


def test_command_line_overrides_and_run_variables_apply_as_in_a_run(pets):
    from scenario_core.parameters.resolution import RunOverrides

    overrides = RunOverrides.from_cli([], "http://example.test")
    document = service.read_document(PETS, pets, overrides=overrides, run_variables={"tenant": "a"})
    assert (
        "| `baseUrl` | `http://example.test` | command line · file http://127.0.0.1:8000 · default (none) |"
        in service.hover(document, Position(11, 3)).markdown.splitlines()
    )
    assert service.visible_names(document, 13)["tenant"] == "run variable (--var)"


def test_every_error_of_the_file_is_a_problem_in_file_order(tmp_path):
    text = (
        "scenario: s\n  when: GET http://h/a\n  foo bar\n  then: status 200\n  include: missing\n"
        '  when: POST http://h/b\n    body: {"a": 1,}\n'
    )
    problems = service.diagnostics(service.read_document(text, str(tmp_path / "three.scenario")))
    assert [(p.span, p.message) for p in problems] == [
        (span(2, 2, 9), "'foo bar' is not allowed here; expected when:, then:, extract:, include: or given/and/but"),
        (span(4, 2, 18), "include of unknown fragment 'missing'; this file defines no fragments"),
        (span(6, 18, 19), "body: invalid JSON: Expecting property name enclosed in double quotes"),
    ]


def test_hover_on_env_and_param_references(tmp_path, monkeypatch):
    monkeypatch.setenv("PETS_TOKEN", "x")
    monkeypatch.delenv("PETS_MISSING", raising=False)
    text = (
        "parameters:\n  baseUrl: http://h\n  timeout: 7\n"
        "scenario: s\n  when: GET /a?t={{param.timeout}}\n    headers:\n"
        "      A: {{env.PETS_TOKEN}} {{env.PETS_MISSING}}\n"
    )
    document = service.read_document(text, str(tmp_path / "refs.scenario"))
    assert service.hover(document, Position(4, 22)).markdown == (
        "**`{{param.timeout}}`** — `timeout`: integer seconds, default `30` — bound on each request as a whole "
        "(connect, send, wait, read)\n\nHere: `7` ← file line 3 · default 30"
    )
    assert (
        service.hover(document, Position(6, 12)).markdown
        == "**`{{env.PETS_TOKEN}}`** — environment variable `PETS_TOKEN`, set"
    )
    assert (
        service.hover(document, Position(6, 32)).markdown
        == "**`{{env.PETS_MISSING}}`** — environment variable `PETS_MISSING`, **not set** in the server's environment"
    )


FORMS = textwrap.dedent("""\
    scenario: forms
      when: POST http://127.0.0.1:1/login
        form:
          user: demo
      extract: sid from cookie session
      then: xpath "//name" == "Rex"
    """)


def test_completion_offers_the_response_sources_after_extract_from_and_then(tmp_path):
    path = str(tmp_path / "f.scenario")
    document = read(path, FORMS + "  extract: x from \n  then: \n")
    assert labels(document, 6, len("  extract: x from ")) == ["cookie", "body", "regex", "xpath", "header"]
    assert labels(document, 7, len("  then: ")) == ["cookie", "regex", "xpath", "body"]


def test_hover_explains_form_multipart_and_the_response_sources(tmp_path):
    document = read(str(tmp_path / "f.scenario"), FORMS)
    form = service.hover(document, Position(2, 6))
    assert form.span == span(2, 4, 9) and "x-www-form-urlencoded" in form.markdown
    cookie = service.hover(document, Position(4, 22))
    assert cookie.span == span(4, 20, 26) and "Set-Cookie" in cookie.markdown
    assert "XPath 1.0" in service.hover(document, Position(5, 9)).markdown
