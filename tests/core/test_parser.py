"""Parsing each construct of the language into the syntax tree."""

from __future__ import annotations

import pytest

from scenario_core.language.errors import InvalidFileError
from scenario_core.language.nodes.assertions import (
    BodyAssertion,
    HeaderAssertion,
    JsonPathAssertion,
    StatusAssertion,
    TimeAssertion,
)
from scenario_core.language.nodes.base import Node, VariableRef
from scenario_core.language.nodes.blocks import FeatureNode
from scenario_core.language.nodes.steps import ExtractStep, IncludeStep, RequestStep
from scenario_core.language.parser import load_file, parse_text
from scenario_core.support.records import FrozenInstanceError, fields


def parse(text: str):
    import textwrap

    return parse_text(textwrap.dedent(text).lstrip("\n"), "t.scenario")


def test_empty_file_is_valid_and_runs_nothing():
    for text in ("", "\n\n", "# only a comment\n", "   \n# a\n  # b\n"):
        file = parse_text(text, "t.scenario")
        assert file.items == () and file.fragments == () and file.parameters is None


def test_file_parameters_are_typed():
    file = parse("""
        parameters:
          shareVariablesAcrossScenarios: true
          timeout: 12
          baseUrl: "http://h:1/api"
        scenario: s
          when: GET /a
    """)
    entries = {e.key: e.value for e in file.parameters.entries}
    assert entries == {"shareVariablesAcrossScenarios": True, "timeout": 12, "baseUrl": "http://h:1/api"}
    assert file.parameters.get("timeout").line == 3


def test_base_url_may_be_bare_or_quoted():
    for raw in ("http://h:1", '"http://h:1"', "'http://h:1'"):
        file = parse(f"parameters:\n  baseUrl: {raw}\n")
        assert file.parameters.get("baseUrl").value == "http://h:1"


def test_feature_with_description_tags_parameters_background_scenarios():
    file = parse("""
        @pets @slow
        feature: Pets
          description: everything about pets
          parameters:
            timeout: 10
          background:
            when: GET /health
          @smoke
          scenario: create
            when: POST /pets
          scenario: read
            when: GET /pets
    """)
    (feature,) = file.features
    assert feature.name == "Pets" and feature.tags == {"pets", "slow"}
    assert feature.description == "everything about pets"
    assert feature.parameters.get("timeout").value == 10
    assert feature.background is not None and len(feature.background.steps) == 1
    assert [s.name for s in feature.scenarios] == ["create", "read"]
    assert feature.scenarios[0].tags == {"smoke"}
    assert feature.location.line == 2


def test_feature_node_fields_put_parameters_before_location():
    names = [f.name for f in fields(FeatureNode)]
    assert names == ["name", "description", "background", "scenarios", "tags", "parameters", "location"]


def test_all_nodes_derive_from_one_base_carrying_location():
    file = parse("scenario: s\n  when: GET /a\n")
    assert isinstance(file, Node) and isinstance(file.scenarios[0], Node)
    assert file.scenarios[0].location.line == 1 and file.scenarios[0].location.column == 1


def test_nodes_are_frozen():
    file = parse("scenario: s\n  when: GET /a\n")
    with pytest.raises(FrozenInstanceError):
        file.scenarios[0].name = "x"  # type: ignore[misc]


def test_source_order_interleaves_features_and_standalone_scenarios():
    file = parse("""
        scenario: one
          when: GET /a
        feature: F
          scenario: two
            when: GET /b
        scenario: three
          when: GET /c
        feature: G
          scenario: four
            when: GET /d
    """)
    assert [(type(i).__name__, i.name) for i in file.items] == [
        ("ScenarioNode", "one"),
        ("FeatureNode", "F"),
        ("ScenarioNode", "three"),
        ("FeatureNode", "G"),
    ]
    assert [s.name for s in file.scenarios] == ["one", "three"]


def test_request_with_headers_query_and_multiline_body():
    file = parse("""
        scenario: s
          when: POST /pets/{{id}}?x=1
            headers:
              Authorization: Bearer {{token}}
              X-Empty:
            query:
              limit: 10
              tag: {{tag}}
            body:
              {
                "name": "Rex",
                "age": {{age}},
                "note": "for {{owner}}"
              }
    """)
    step = file.scenarios[0].steps[0]
    assert isinstance(step, RequestStep) and step.method == "POST"
    assert step.url.text == "/pets/{{id}}?x=1"
    assert [(h.name, h.value.text) for h in step.headers] == [("Authorization", "Bearer {{token}}"), ("X-Empty", "")]
    assert [(q.name, q.value.text) for q in step.query] == [("limit", "10"), ("tag", "{{tag}}")]
    refs = {r.name: r.in_string for r in step.body.refs}
    assert refs == {"age": False, "owner": True}
    age = next(r for r in step.body.refs if r.name == "age")
    assert (age.location.line, age.location.column) == (12, 16)


def test_inline_body_without_references_is_parsed_once():
    step = parse('scenario: s\n  when: POST /a\n    body: {"a": [1, 2]}\n').scenarios[0].steps[0]
    assert step.body.constant == {"a": [1, 2]} and step.body.refs == ()


def test_assertion_forms():
    steps = (
        parse("""
        scenario: s
          when: GET /a
          then: status 200
          then: status 2xx
          then: $.name == "Rex"
          then: $.age >= {{min}}
          then: $.tags contains "a"
          then: $.tags not contains "b"
          then: $.id exists
          then: $.gone not exists
          then: $.name matches "^R"
          then: $.items[?(@.age > 2)].name == ["Rex"]
          then: header Content-Type contains "json"
          then: header X-Id exists
          then: body contains "Rex"
          then: time < 500ms
          then: time <= 2s
    """)
        .scenarios[0]
        .steps[1:]
    )
    kinds = [type(s.assertion).__name__ for s in steps]
    assert (
        kinds
        == ["StatusAssertion"] * 2
        + ["JsonPathAssertion"] * 8
        + ["HeaderAssertion"] * 2
        + ["BodyAssertion"]
        + ["TimeAssertion"] * 2
    )
    assert steps[0].assertion == StatusAssertion(200, None, steps[0].assertion.location)
    assert steps[1].assertion.klass == 2
    assert (steps[2].assertion.path, steps[2].assertion.operator, steps[2].assertion.expected.constant) == (
        "$.name",
        "==",
        "Rex",
    )
    assert steps[3].assertion.expected.refs[0].name == "min"
    assert steps[6].assertion.expected is None
    assert steps[9].assertion.path == "$.items[?(@.age > 2)].name"
    assert isinstance(steps[10].assertion, HeaderAssertion) and steps[10].assertion.name == "Content-Type"
    assert isinstance(steps[12].assertion, BodyAssertion)
    assert isinstance(steps[13].assertion, TimeAssertion) and steps[14].assertion.milliseconds == 2000


def test_json_paths_are_compiled_once_at_load_time():
    steps = parse("scenario: s\n  when: GET /a\n  then: $.id exists\n  extract: id from $.id\n").scenarios[0].steps
    assert isinstance(steps[1].assertion, JsonPathAssertion)
    assert steps[1].assertion.compiled is steps[2].compiled  # one compiled object per distinct path
    assert steps[2].compiled.find({"id": 3})[0].value == 3


def test_extract_from_body_and_header():
    steps = (
        parse("scenario: s\n  when: GET /a\n  extract: petId from $.id\n  extract: where from header Location\n")
        .scenarios[0]
        .steps
    )
    assert isinstance(steps[1], ExtractStep) and (steps[1].name, steps[1].source, steps[1].path) == (
        "petId",
        "body",
        "$.id",
    )
    assert (steps[2].source, steps[2].path, steps[2].compiled) == ("header", "Location", None)


def test_fragments_and_include():
    file = parse("""
        fragment: login
          when: POST /login
          extract: token from $.token
        scenario: s
          include: login
          when: GET /me
    """)
    assert file.fragment("login").steps[1].name == "token"
    assert isinstance(file.scenarios[0].steps[0], IncludeStep) and file.scenarios[0].steps[0].fragment == "login"


def test_file_background():
    file = parse("background:\n  when: POST /login\nscenario: s\n  when: GET /a\n")
    assert file.background is not None and file.background.location.line == 1


def test_comments_anywhere_and_blank_lines():
    file = parse("""
        # header comment
        parameters:
          # inside parameters
          timeout: 5

        feature: F
            # indented deeper than anything
          scenario: s
        # at column one inside a scenario
            when: GET /a
              # inside a request
            then: status 200
    """)
    assert file.parameters.get("timeout").value == 5
    assert len(file.features[0].scenarios[0].steps) == 2


@pytest.mark.parametrize(
    "text",
    [
        "scenario: s\r\n  when: GET /a\r\n  then: status 200\r\n",  # CRLF
        "\ufeffscenario: s\n  when: GET /a\n  then: status 200\n",  # UTF-8 BOM
        "scenario: s\n  when: GET /a\n  then: status 200",  # no final newline
        "scenario: s   \n  when: GET /a  \n  then: status 200 \t\n   \n",  # trailing spaces
    ],
)
def test_robust_input(text):
    scenario = parse_text(text, "t.scenario").scenarios[0]
    assert scenario.name == "s" and len(scenario.steps) == 2
    assert scenario.steps[0].url.text == "/a" and scenario.steps[1].assertion.code == 200


def test_unicode_names():
    file = parse("feature: Haustiere 🐾\n  scenario: créer un animal — 動物\n    when: GET /tiere/{{größe}}\n")
    assert file.features[0].name == "Haustiere 🐾"
    assert file.features[0].scenarios[0].name == "créer un animal — 動物"
    assert file.features[0].scenarios[0].steps[0].url.refs[0].name == "größe"


def test_bracket_in_name_is_plain_text():
    assert parse("scenario: list [all] pets\n  when: GET /a\n").scenarios[0].name == "list [all] pets"


def test_load_file_reports_the_path(tmp_path):
    path = tmp_path / "x.scenario"
    path.write_text("scenario: s\n  then: status nope\n")
    with pytest.raises(InvalidFileError) as caught:
        load_file(path)
    assert str(caught.value).startswith(f"{path}:2:16: error: status takes a 3-digit code")


def test_variable_refs_are_located():
    step = parse("scenario: s\n  when: GET /a/{{ id }}/b\n").scenarios[0].steps[0]
    (ref,) = step.url.refs
    assert ref == VariableRef("id", True, ref.location)
    assert (ref.location.line, ref.location.column, ref.location.end_column) == (2, 16, 24)


def test_entries_may_be_named_like_keywords():
    step = (
        parse("""
        scenario: s
          when: GET /search
            query:
              query: dogs
              include: owner
            headers:
              body: x
    """)
        .scenarios[0]
        .steps[0]
    )
    assert [(q.name, q.value.text) for q in step.query] == [("query", "dogs"), ("include", "owner")]
    assert [(h.name, h.value.text) for h in step.headers] == [("body", "x")]


def test_block_keywords_stand_alone_on_their_line():
    with pytest.raises(InvalidFileError, match="t.scenario:1:13: error: 'background:' stands alone on its line"):
        parse("background: login\n  when: GET /a\n")
