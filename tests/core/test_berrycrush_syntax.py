"""Reading BerryCrush's dialect beside ours (docs/spec/berrycrush.md, docs/spec/berrycrush.md): the node each
line becomes, and the located error, with its exact message, for each mistake.

Conditions and parameter keys appear only as far as the structure needs them (`status 201`,
`$.name equals "Rex"`, `$.id exists`; `timeout`, `binding.*`, `autoAssertions.*`): BerryCrush's
operators and keys are tested with their own code.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from scenario_core.language.errors import InvalidFileError, UsageError
from scenario_core.language.nodes.assertions import JsonPathAssertion, StatusAssertion
from scenario_core.language.nodes.base import VariableRef
from scenario_core.language.nodes.steps import (
    AssertStep,
    ConditionalStep,
    DescribedStep,
    ExtractStep,
    FailStep,
    IncludeStep,
    RequestStep,
    WebhookStep,
    step_label,
)
from scenario_core.language.nodes.walk import walk_steps
from scenario_core.language.parser import load_file, parse_text
from scenario_core.parameters.diagnostics import load_valid

DEMO = Path(__file__).resolve().parents[2] / "core" / "demo"


def parse(text: str):
    return parse_text(textwrap.dedent(text).lstrip("\n"), "t.scenario")


def errors(text: str) -> list[str]:
    with pytest.raises(InvalidFileError) as raised:
        parse(text)
    return [str(d) for d in raised.value.diagnostics]


def steps_of(text: str) -> tuple:
    """The steps of the file's only scenario."""
    (scenario,) = parse(text).scenarios
    return scenario.steps


def only_step(text: str):
    (step,) = steps_of(text)
    return step


def refs(template) -> list[str]:
    return [s.name for s in template.segments if isinstance(s, VariableRef)]


# ---------------------------------------------------------------- telling the dialects apart


def test_dialects_when_method_path_is_ours_and_when_text_is_a_described_step():
    ours, described, colonless = steps_of("""
        scenario: s
          when: GET /pets
          when: I list the pets
          when I list the pets
        """)
    assert isinstance(ours, RequestStep) and (ours.method, ours.url.text, ours.keyword) == ("GET", "/pets", "when")
    for step in (described, colonless):
        assert isinstance(step, DescribedStep)
        assert (step.keyword, step.text, step.steps, step.custom) == ("when", "I list the pets", (), True)


def test_dialects_when_request_with_a_directive_below_is_a_described_step():
    # Only headers:, query: and body: below keep `when: METHOD path` a request.
    request, described = steps_of("""
        scenario: s
          when: POST /pets
            headers:
              X-A: b
            body: {"name": "Rex"}
          when: GET /pets
            assert status 200
        """)
    assert isinstance(request, RequestStep) and request.headers[0].name == "X-A"
    assert isinstance(described, DescribedStep) and described.text == "GET /pets"
    assert [type(s) for s in described.steps] == [AssertStep]


def test_dialects_then_status_is_ours_and_then_text_with_directives_is_a_described_step():
    ours, described, custom = steps_of("""
        scenario: s
          then: status 200
          then: it worked
            assert status 201
            assert $.name equals "Rex"
          then it worked
        """)
    assert isinstance(ours, AssertStep) and ours.keyword == "then"
    assert isinstance(ours.assertion, StatusAssertion) and ours.assertion.code == 200
    assert isinstance(described, DescribedStep) and described.text == "it worked"
    first, second = described.steps
    assert (first.keyword, first.text, first.assertion.code) == ("assert", "status 201", 201)
    assert isinstance(second.assertion, JsonPathAssertion)
    assert (second.assertion.path, second.assertion.operator, second.assertion.expected.constant) == (
        "$.name",
        "equals",
        "Rex",
    )
    assert isinstance(custom, DescribedStep) and custom.custom


def test_dialects_then_line_starting_like_an_assertion_is_an_error_not_a_custom_step():
    found = errors("""
        scenario: s
          then: status abc
          then: $.name
        """)
    assert found[0] == "t.scenario:2:16: error: status takes a 3-digit code (200) or a class (2xx), got 'abc'"
    assert found[1].startswith("t.scenario:3:15: error: expected an operator after the JSON path")
    assert len(found) == 2


def test_dialects_extract_from_is_ours_and_extract_arrow_is_berrycrush():
    ours, described = steps_of("""
        scenario: s
          extract: petId from $.id
          when I read it
            extract $.id => petId
        """)
    (arrow,) = described.steps
    for step in (ours, arrow):
        assert isinstance(step, ExtractStep) and (step.name, step.source, step.path) == ("petId", "body", "$.id")
    assert (ours.arrow, arrow.arrow) == (False, True)
    assert (step_label(ours), step_label(arrow)) == ("extract: petId from $.id", "extract $.id => petId")


def test_dialects_include_colon_is_ours_and_include_word_is_berrycrush():
    ours, described = steps_of("""
        fragment: login
          then: status 200
        scenario: s
          include: login
          given I am signed in
            include login
              user: "demo"
        """)
    (word,) = described.steps
    assert isinstance(ours, IncludeStep) and (ours.fragment, ours.arguments) == ("login", ())
    assert isinstance(word, IncludeStep) and word.fragment == "login"
    assert [(a.name, a.value.constant) for a in word.arguments] == [("user", "demo")]


def test_dialects_both_mixed_in_one_file():
    file = parse("""
        parameters:
          timeout: 5
        fragment: check
          then: status 200
        feature: Pets
          background:
            given I am signed in
              call using auth ^login
              extract $.token => token
          scenario: ours
            when: POST /pets
              body: {"name": "Rex"}
            then: status 201
            extract: id from $.id
            include: check
          scenario: theirs
            when I create a pet
              call ^createPet
                body: {"name": "Rex"}
              assert status 201
              extract $.id => id
            and it is there
              include check
        """)
    ours, theirs = file.features[0].scenarios
    assert [type(s).__name__ for s in ours.steps] == ["RequestStep", "AssertStep", "ExtractStep", "IncludeStep"]
    assert [type(s).__name__ for s in theirs.steps] == ["DescribedStep", "DescribedStep"]
    assert [type(s).__name__ for s in walk_steps(theirs.steps)] == [
        "DescribedStep",
        "RequestStep",
        "AssertStep",
        "ExtractStep",
        "DescribedStep",
        "IncludeStep",
    ]
    assert [step_label(s) for s in walk_steps(theirs.steps)] == [
        "when I create a pet",
        "call ^createPet",
        "assert status 201",
        "extract $.id => id",
        "and it is there",
        "include check",
    ]  # see test_step_label_of_include_without_arguments_keeps_its_dialect
    background = file.features[0].background.steps[0]
    assert [step_label(s) for s in background.steps] == ["call using auth ^login", "extract $.token => token"]


# ---------------------------------------------------------------- keywords, comments, references


def test_keywords_are_case_insensitive():
    file = parse("""
        PARAMETERS:
          timeout: 5
        Feature: F
          Background:
            GIVEN I am here
              CALL ^getHealth
          Scenario: s
            WHEN: GET /pets
            Then: status 200
            When I do it
              Assert status 200
              Extract $.id => id
              Include frag
              IF status 200
                FAIL "a"
              ELSE IF status 201
                Fail "b"
              Else
                fail "c"
        Outline: o
          then: status 200
          EXAMPLES:
            | a |
            | 1 |
        FRAGMENT: frag
          then: status 200
        """)
    feature = file.features[0]
    assert (feature.name, feature.background.steps[0].keyword, feature.background.steps[0].steps[0].keyword) == (
        "F",
        "given",
        "call",
    )
    request, then, described = feature.scenarios[0].steps
    assert (request.method, request.url.text, then.assertion.code) == ("GET", "/pets", 200)
    assert described.keyword == "when"
    assert [step_label(s) for s in described.steps] == [
        "assert status 200",
        "extract $.id => id",
        "include frag",
        "if status 200 · else if status 201 · else",
    ]
    assert [b.keyword for b in described.steps[-1].branches] == ["if", "else if", "else"]
    assert [s.name for s in file.scenarios] == ["o #1 (a=1)"]
    assert file.fragments[0].name == "frag"


def test_keywords_parameter_keys_stay_case_sensitive():
    assert errors("""
        parameters:
          Timeout: 5
        """) == ["t.scenario:2:3: error: unknown parameter 'Timeout'; did you mean 'timeout'?"]


def test_step_keywords_take_a_colon_or_not():
    steps = steps_of("""
        scenario: s
          given: a pet
          given a pet
          And: a pet
          and a pet
          but: a pet
          BUT a pet
          then: a pet
        """)
    assert [(s.keyword, s.text) for s in steps] == [
        ("given", "a pet"),
        ("given", "a pet"),
        ("and", "a pet"),
        ("and", "a pet"),
        ("but", "a pet"),
        ("but", "a pet"),
        ("then", "a pet"),
    ]
    assert all(isinstance(s, DescribedStep) for s in steps)


def test_comments_after_content_are_dropped_on_any_line():
    file = parse("""
        parameters:  # the file's
          timeout: 5  # seconds
        feature: Pets  # a feature
          scenario: s # a scenario
            when: GET /pets  # list
            then: status 200 # ok
            given I am here  # described
              call ^listPets  # a call
                query_limit: 2  # two
              assert status 200  # ok
        """)
    assert file.parameters.get("timeout").value == 5
    feature = file.features[0]
    request, then, described = feature.scenarios[0].steps
    assert (feature.name, feature.scenarios[0].name) == ("Pets", "s")
    assert request.url.text == "/pets" and then.text == "status 200" and described.text == "I am here"
    call, check = described.steps
    assert call.operation.operation_id == "listPets" and call.parameters[0].value.constant == 2
    assert check.text == "status 200"


def test_comments_a_hash_not_after_whitespace_is_kept():
    request, then = steps_of("""
        scenario: s
          when: GET /a#b
          then: $.tag == "#1"
        """)
    assert request.url.text == "/a#b"
    assert then.assertion.expected.constant == "#1"


def test_comments_a_hash_inside_a_string_is_kept():
    then, described = steps_of("""
        scenario: s
          then: $.name == "a # b"  # but this goes
          when I send it
            call ^createPet
              header_X-Note: "x # y"
        """)
    assert then.assertion.expected.constant == "a # b"
    assert described.steps[0].parameters[0].value.constant == "x # y"


def test_comments_an_apostrophe_in_a_description_opens_no_string():
    (step,) = steps_of("""
        scenario: s
          given it's a pet # a comment
        """)
    assert step.text == "it's a pet"


def test_comments_after_tags_are_dropped():
    file = parse("""
        @smoke @api  # tags of the scenario below
        scenario: s
          then: status 200
        """)
    assert file.scenarios[0].tags == frozenset({"smoke", "api"})


def test_backslash_escape_writes_literal_braces():
    (request, described) = steps_of(r"""
        scenario: s
          when: POST /echo
            body: {"template": "\{{name}}", "name": "{{name}}"}
          given I write \{{literal}}
            fail "no \{{x}} here, but {{y}}"
        """)
    assert refs(request.body) == ["name"]
    assert "".join(s for s in request.body.segments if isinstance(s, str)).startswith('{"template": "{{name}}"')
    assert refs(described.description) == []
    assert described.description.segments == ("I write {{literal}}",)
    (fail,) = described.steps
    assert refs(fail.message) == ["y"] and fail.message.segments[0] == "no {{x}} here, but "


def test_references_dotted_env_and_param_names_are_variables():
    (request,) = steps_of("""
        scenario: s
          when: GET /pets/{{pet.id}}
            headers:
              X-User: {{env.USER_NAME}}
              X-Timeout: {{param.timeout}}
        """)
    assert refs(request.url) == ["pet.id"]
    assert [refs(h.value) for h in request.headers] == [["env.USER_NAME"], ["param.timeout"]]


def test_references_dollar_forms_are_not_references():
    (request,) = steps_of("""
        scenario: s
          when: POST /echo
            body: {"a": "${x}", "b": "$x"}
        """)
    assert refs(request.body) == []
    assert request.body.constant == {"a": "${x}", "b": "$x"}


# ---------------------------------------------------------------- call and its children


def test_call_forms_operation_id_with_or_without_caret_and_using():
    described = only_step("""
        scenario: s
          when I call them
            call ^listPets
            call listPets
            call using auth ^login
            call using "auth" ^login
        """)
    assert [(s.keyword, s.operation.operation_id, s.operation.using) for s in described.steps] == [
        ("call", "listPets", None),
        ("call", "listPets", None),
        ("call", "login", "auth"),
        ("call", "login", "auth"),
    ]
    assert [step_label(s) for s in described.steps] == [
        "call ^listPets",
        "call ^listPets",
        "call using auth ^login",
        "call using auth ^login",
    ]


def test_call_children_take_colon_or_equals_and_query_or_header_prefixes():
    (call,) = only_step("""
        scenario: s
          when I get a pet
            call ^getPetById
              id: 1
              name = "Rex"
              query_limit: 2
              header_X-Req: "v"
              owner: {{ownerId}}
        """).steps
    assert [(p.name, p.value.constant) for p in call.parameters] == [
        ("id", 1),
        ("name", "Rex"),
        ("query_limit", 2),
        ("header_X-Req", "v"),
        ("owner", None),
    ]
    assert refs(call.parameters[-1].value) == ["ownerId"]


def test_call_body_inline_structured_triple_quoted_and_body_file():
    inline, structured, triple, from_file = only_step('''
        scenario: s
          when I create pets
            call ^createPet
              body: {"name": "Rex", "age": 3}
            call ^createPet
              body:
                name: "Max"
                age: 4
                owner:
                  id: {{ownerId}}
                  vip: true
                tag: dog
            call ^createPet
              body: """
                {"name": "{{n}}",
                 "raw": true}
                """
            call ^createPet
              bodyFile: "classpath:templates/pet.json"
        ''').steps
    assert inline.body.constant == {"name": "Rex", "age": 3} and not inline.body_structured
    assert structured.body_structured
    assert structured.body.text == '{"name": "Max", "age": 4, "owner": {"id": {{ownerId}}, "vip": true}, "tag": "dog"}'
    assert triple.body is None and triple.body_raw.text == '{"name": "{{n}}",\n "raw": true}'
    assert refs(triple.body_raw) == ["n"]
    assert from_file.body is None and from_file.body_file.text == "classpath:templates/pet.json"


@pytest.mark.parametrize(
    "lines, expected",
    [
        (["call"], "t.scenario:3:5: error: call needs an operation: call ^getPetById"),
        (
            ["call GET /pets"],
            "t.scenario:3:10: error: an operation call reads like: call ^getPetById (or call using auth ^login)",
        ),
        (
            ["call ^createPet", '  body: {"a": 1}', '  bodyFile: "x.json"'],
            "t.scenario:5:7: error: a request takes one body form; bodyFile: follows body: on line 4",
        ),
        (["call ^createPet", '  body: {"a": '], "t.scenario:4:17: error: body: invalid JSON: Expecting value"),
        (
            ["call ^createPet", '  body: """', "    never closed"],
            't.scenario:4:7: error: a """ block is closed by """ on a line of its own',
        ),
        (
            ["call ^createPet", "  auto: [bogus]"],
            "t.scenario:4:13: error: auto: takes a list of invalid, security, multi, got [bogus]",
        ),
        (
            ["call ^getPetById", "  id: 1", "  id: 2"],
            "t.scenario:5:7: error: 'id' is given twice for this call; the first is on line 4",
        ),
        (["call ^getPetById", "  id:"], "t.scenario:4:7: error: 'id:' needs a value"),
    ],
)
def test_call_mistakes_are_located_errors(lines, expected):
    body = "".join(f"    {line}\n" for line in lines)
    assert errors("scenario: s\n  when I call\n" + body) == [expected]


def test_call_children_on_a_method_path_request_are_an_error():
    assert errors("""
        scenario: s
          when: GET /x
            id: 1
        """) == [
        "t.scenario:3:5: error: 'id:' places a value in an operation's request; 'GET /x' is not an "
        "operation call (when: ^operationId). Use headers: or query: here"
    ]


def _operation_errors(write_scenario, steps: str) -> list[str]:
    from scenario_core.parameters.diagnostics import parameter_diagnostics

    path = write_scenario(
        f"parameters:\n  openapi: {DEMO / 'petstore.yaml'}\n  baseUrl: http://127.0.0.1:9\n"
        "scenario: s\n" + textwrap.indent(textwrap.dedent(steps), "  ")
    )
    return [str(d).split("/", 1)[0] + str(d).rsplit(".scenario", 1)[1] for d in parameter_diagnostics(load_file(path))]


def test_call_check_reports_an_unknown_operation_of_our_when(write_scenario):
    (found,) = _operation_errors(write_scenario, "when: ^noSuchOp\n")
    assert found.startswith(":5:9: error: operation 'noSuchOp' not found in the OpenAPI descriptions default")


def test_call_check_reports_an_unknown_operation_under_a_described_step(write_scenario):
    found = _operation_errors(write_scenario, "when I call it\n  call ^noSuchOp\n")
    assert len(found) == 1 and found[0].startswith(":6:10: error: operation 'noSuchOp' not found")


# ---------------------------------------------------------------- extract, include, fail, webhook


def test_extract_arrow_path_may_be_quoted_and_the_name_written_as_a_reference():
    plain, quoted, braced = only_step("""
        scenario: s
          when I read it
            extract $.id => petId
            extract "$.a" => x
            extract '$.owner.name' => {{owner}}
        """).steps
    assert [(s.path, s.name, s.arrow) for s in (plain, quoted, braced)] == [
        ("$.id", "petId", True),
        ("$.a", "x", True),
        ("$.owner.name", "owner", True),
    ]


@pytest.mark.parametrize(
    "line, expected",
    [
        (
            "extract $.id -> x",
            "t.scenario:3:13: error: extract reads like: extract $.id => petId (or, ours, extract: petId from $.id)",
        ),
        (
            "extract $.id => 1x",
            "t.scenario:3:21: error: '1x' is not a variable name: letters, digits and _, not starting with a digit",
        ),
    ],
)
def test_extract_arrow_mistakes_are_located_errors(line, expected):
    assert errors(f"scenario: s\n  when I read it\n    {line}\n") == [expected]


def test_step_label_of_include_without_arguments_keeps_its_dialect():
    ours, described = steps_of("""
        fragment: check
          then: status 200
        scenario: s
          include: check
          then it is fine
            include check
        """)
    assert (step_label(ours), step_label(described.steps[0])) == ("include: check", "include check")


def test_include_with_arguments_keeps_their_json_types_and_references():
    (include,) = only_step("""
        fragment: make
          then: status 200
        scenario: s
          given a pet
            include make
              name: "Rex"
              age: 3
              vip: true
              owner: {{ownerId}}
              empty:
        """).steps
    assert [(a.name, a.value.constant) for a in include.arguments] == [
        ("name", "Rex"),
        ("age", 3),
        ("vip", True),
        ("owner", None),
        ("empty", None),
    ]
    assert refs(include.arguments[3].value) == ["ownerId"]
    assert step_label(include) == "include make"


@pytest.mark.parametrize(
    "lines, expected",
    [
        (["include"], "t.scenario:3:5: error: include needs a fragment name: include login"),
        (
            ["include a b"],
            "t.scenario:3:13: error: a fragment name is one word; its parameters go on the indented "
            "lines below: name: value",
        ),
        (["include nope"], "t.scenario:3:5: error: include of unknown fragment 'nope'; this file defines no fragments"),
        (
            ["include a", "  x: 1", "    y: 2"],
            "t.scenario:5:9: error: include parameters lines do not nest; write each as `name: value` at one level",
        ),
    ],
)
def test_include_mistakes_are_located_errors(lines, expected):
    body = "".join(f"    {line}\n" for line in lines)
    assert expected in errors("scenario: s\n  given it\n" + body)


def test_fail_message_is_a_template_quoted_or_the_rest_of_the_line():
    quoted, bare, empty = only_step("""
        scenario: s
          then it breaks
            fail "pet {{petId}} was not found"
            fail unexpected status
            fail
        """).steps
    assert all(isinstance(s, FailStep) for s in (quoted, bare, empty))
    assert quoted.message.text == "pet {{petId}} was not found" and refs(quoted.message) == ["petId"]
    assert (bare.text, empty.text) == ("unexpected status", "failed")


def test_webhook_names_its_hooks_port_and_scope():
    (webhook,) = only_step("""
        scenario: s
          given a callback server
            webhook: events
              hooks: [created, deleted]
              port: 0
              scope: feature
        """).steps
    assert isinstance(webhook, WebhookStep)
    assert (webhook.name, webhook.hooks, webhook.port, webhook.scope) == (
        "events",
        ("created", "deleted"),
        0,
        "feature",
    )
    assert step_label(webhook) == "webhook events"


def test_webhook_mistakes_are_located_errors():
    assert errors("""
        scenario: s
          given a callback server
            webhook: events
              port: 99999
              color: red
            webhook
        """) == [
        "t.scenario:3:5: error: webhook events needs at least one hook: hook: callback",
        "t.scenario:4:13: error: port must be 0 (any free port) or a port number up to 65535, got 99999",
        "t.scenario:5:7: error: unknown webhook setting 'color'; use hook, hooks, port or scope",
        "t.scenario:6:5: error: webhook needs a name: webhook: callbacks",
    ]


def test_described_step_needs_a_description_and_takes_only_directives():
    assert errors("""
        scenario: s
          when
          given:
          when I x
            headers:
              A: b
          when I y
            given I z
        """) == [
        "t.scenario:2:3: error: 'when' needs a description (when I create a pet) or, with a colon, a request "
        "(when: POST /pets)",
        "t.scenario:3:3: error: 'given' needs a description (when I create a pet) or, with a colon, a request "
        "(when: POST /pets)",
        "t.scenario:5:5: error: headers cannot go under 'when I x': under a described step go call, assert, "
        "extract, include, if/else, fail and webhook",
        "t.scenario:8:5: error: steps do not nest: 'given' goes at the indentation of 'when I y'",
    ]


# ---------------------------------------------------------------- if / else if / else


def test_if_chain_is_one_conditional_step_with_its_branches_in_order():
    (call, chain) = only_step("""
        scenario: s
          then it is there
            call ^getPetById
              id: 1
            if status 201
              extract $.id => created
              if $.id exists
                fail "nested {{created}}"
            else if status 200
              assert $.name equals "Rex"
            else
              fail "unexpected"
        """).steps
    assert isinstance(chain, ConditionalStep)
    assert [(b.keyword, b.text) for b in chain.branches] == [
        ("if", "status 201"),
        ("else if", "status 200"),
        ("else", ""),
    ]
    assert chain.branches[0].condition.code == 201 and chain.branches[2].condition is None
    extract, nested = chain.branches[0].steps
    assert isinstance(extract, ExtractStep) and isinstance(nested, ConditionalStep)
    assert nested.branches[0].condition.operator == "exists"
    assert step_label(chain) == "if status 201 · else if status 200 · else"
    assert [type(s).__name__ for s in walk_steps((chain,))] == [
        "ConditionalStep",
        "ExtractStep",
        "ConditionalStep",
        "FailStep",
        "AssertStep",
        "FailStep",
    ]


def test_if_chains_end_at_any_other_directive():
    first, fail, second = only_step("""
        scenario: s
          then it is there
            if status 200
              fail "a"
            fail "between"
            if status 201
              fail "b"
            else
              fail "c"
        """).steps
    assert isinstance(first, ConditionalStep) and len(first.branches) == 1
    assert isinstance(fail, FailStep)
    assert isinstance(second, ConditionalStep) and len(second.branches) == 2


def test_if_else_mistakes_are_located_errors():
    assert errors("""
        scenario: s
          when I check
            else
              fail "x"
            if status 200
              fail "a"
            else
              fail "b"
            else if status 201
              fail "c"
            else
              fail "d"
            if
            else if
            else foo
        """) == [
        "t.scenario:3:5: error: else without an if before it at the same indentation",
        "t.scenario:9:5: error: nothing may follow a plain else in an if chain; put else if before it",
        "t.scenario:11:5: error: nothing may follow a plain else in an if chain; put else if before it",
        "t.scenario:13:5: error: if needs a condition: if status 201",
        "t.scenario:14:5: error: else if needs a condition: else if status 200",
        "t.scenario:15:10: error: else takes nothing after it (or: else if CONDITION)",
    ]


def test_if_with_an_unknown_condition_is_a_located_error():
    found = errors("""
        scenario: s
          when I check
            if nonsense here
              fail "x"
        """)
    assert len(found) == 1 and found[0].startswith("t.scenario:3:") and "nonsense" in found[0]


# ---------------------------------------------------------------- outlines


def test_outline_makes_one_scenario_per_row_named_after_it_with_its_values():
    file = parse("""
        outline: create pets
          when I create {{name}}
            call ^createPet
              body: {"name": "{{name}}", "age": {{age}}}
          examples:
            | name | age |
            | Rex  | 3   |
            | Luna | 5   |
        scenario: after
          then: status 200
        """)
    assert [s.name for s in file.items] == [
        "create pets #1 (name=Rex, age=3)",
        "create pets #2 (name=Luna, age=5)",
        "after",
    ]
    first, second, _ = file.items
    assert first.outline.row == 1 and first.outline.variables == (("name", "Rex"), ("age", "3"))
    assert (second.outline.outline, second.outline.outline_line, second.line) == ("create pets", 1, 8)
    assert first.steps is second.steps  # the outline's steps, shared


def test_outline_cells_are_trimmed_strings_with_quotes_removed():
    (first, second) = parse("""
        outline: o
          then: status 200
          examples:
            | name         | "tag"  |
            |   Fluffy Dog | "a b"  |
            | 'Rex'        |  " x " |
        """).scenarios
    assert first.outline.variables[0] == ("name", "Fluffy Dog")
    assert second.outline.variables == (("name", "Rex"), ("tag", " x "))


def test_outline_row_with_the_wrong_number_of_cells_is_an_error():
    assert errors("""
        outline: o
          then: status 200
          examples:
            | a | b |
            | 1 |
            | 1 | 2 | 3 |
        """) == [
        "t.scenario:5:5: error: this row has 1 cell; the header has 2 (a, b)",
        "t.scenario:6:5: error: this row has 3 cells; the header has 2 (a, b)",
    ]


@pytest.mark.parametrize(
    "header, column", [("| a b | c |", "1, 'a b'"), ("| a | 1x |", "2, '1x'"), ("| a | b[0] |", "2, 'b[0]'")]
)
def test_outline_header_names_must_be_variable_names(header, column):
    assert errors(f"outline: o\n  then: status 200\n  examples:\n    {header}\n") == [
        f"t.scenario:4:5: error: column {column.split(', ')[0]} of the examples header, {column.split(', ')[1]}, "
        "is not a variable name: letters, digits and _"
    ]


def test_outline_rows_must_be_table_rows():
    assert errors("""
        outline: o
          then: status 200
          examples:
            | a |
            1
        """) == ["t.scenario:5:5: error: an examples row reads like: | Fluffy | 3 |"]


def test_outline_without_rows_is_one_scenario():
    (scenario,) = parse("""
        outline: just once
          then: status 200
        """).scenarios
    assert (scenario.name, scenario.outline) == ("just once", None)
    assert errors("""
        outline: empty table
          then: status 200
          examples:
        """) == ["t.scenario:3:3: error: examples: needs a table below it: | name | age | and a row per scenario"]


def test_outline_tags_go_to_every_row_and_feature_tags_stay_on_the_feature():
    file = parse("""
        @api
        feature: F
          @smoke @slow
          outline: o
            then: status 200
            examples:
              | a |
              | 1 |
              | 2 |
        """)
    feature = file.features[0]
    assert feature.tags == frozenset({"api"})
    assert [s.tags for s in feature.scenarios] == [frozenset({"smoke", "slow"})] * 2


def test_outline_examples_come_last_and_once():
    assert errors("""
        outline: o
          examples:
            | a |
            | 1 |
          then: status 200
        outline: p
          then: status 200
          examples:
            | a |
            | 1 |
          examples:
            | b |
            | 2 |
        """) == [
        "t.scenario:5:3: error: examples: comes last in an outline, after its steps",
        "t.scenario:11:3: error: an outline has one examples: table; the first is on line 8",
    ]


# ---------------------------------------------------------------- scenario-level parameters


def test_scenario_parameters_are_the_first_lines_of_its_body():
    file = parse("""
        scenario: s
          parameters:
            timeout: 5
            baseUrl: "http://127.0.0.1:9"
          then: status 200
        outline: o
          parameters:
            timeout: 7
          then: status 200
          examples:
            | a |
            | 1 |
        """)
    scenario, row = file.scenarios
    assert [(e.key, e.value) for e in scenario.parameters.entries] == [
        ("timeout", 5),
        ("baseUrl", "http://127.0.0.1:9"),
    ]
    assert scenario.parameters.line == 2 and [type(s) for s in scenario.steps] == [AssertStep]
    assert row.parameters.get("timeout").value == 7


def test_scenario_parameters_after_a_step_is_an_error():
    assert errors("""
        scenario: s
          then: status 200
          parameters:
            timeout: 3
        """) == [
        "t.scenario:3:3: error: parameters: cannot go inside a scenario after its first step; parameters: may go "
        "at the top of the file (before the first feature:, scenario:, fragment: or background:) or directly "
        "after a feature: line (and its description:), or as the first lines of a scenario"
    ]


def test_scenario_parameters_a_second_block_is_an_error_naming_the_first():
    assert errors("""
        scenario: s
          parameters:
            timeout: 3
          parameters:
            timeout: 4
          then: status 200
        """) == ["t.scenario:4:3: error: a scenario has at most one parameters: block; the first is on line 2"]


def test_scenario_parameters_cannot_share_variables():
    assert errors("""
        scenario: s
          parameters:
            shareVariablesAcrossScenarios: true
          then: status 200
        """) == [
        "t.scenario:3:5: error: shareVariablesAcrossScenarios cannot be set for one scenario: sharing is decided "
        "by its feature or the file, because stores outlive scenarios"
    ]


def test_scenario_parameters_are_not_allowed_in_steps_backgrounds_or_fragments():
    found = errors("""
        background:
          parameters:
            timeout: 3
          then: status 200
        fragment: f
          parameters:
            timeout: 3
          then: status 200
        scenario: s
          when I do it
            call ^getHealth
              parameters:
                timeout: 3
        """)
    assert [d.split(": error: ")[0] for d in found] == ["t.scenario:2:3", "t.scenario:6:3", "t.scenario:12:7"]
    assert found[0].split(": error: ")[1].startswith("parameters: cannot go inside a background; ")
    assert found[1].split(": error: ")[1].startswith("parameters: cannot go inside a fragment; ")
    assert found[2].split(": error: ")[1].startswith("parameters: cannot go inside a step; ")


def test_nested_parameter_blocks_are_the_same_as_dotted_keys():
    nested = parse("""
        parameters:
          binding:
            auth:
              location: "auth.yaml"
          autoAssertions:
            enabled: true
            schema: false
        scenario: s
          parameters:
            autoAssertions:
              statusCode: false
          then: status 200
        """)
    dotted = parse("""
        parameters:
          binding.auth.location: "auth.yaml"
          autoAssertions.enabled: true
          autoAssertions.schema: false
        scenario: s
          parameters:
            autoAssertions.statusCode: false
          then: status 200
        """)
    for file in (nested, dotted):
        assert [(e.key, e.value) for e in file.parameters.entries] == [
            ("binding.auth.location", "auth.yaml"),
            ("autoAssertions.enabled", True),
            ("autoAssertions.schema", False),
        ]
        assert [(e.key, e.value) for e in file.scenarios[0].parameters.entries] == [
            ("autoAssertions.statusCode", False)
        ]


def test_nested_parameter_blocks_mistakes_are_located_errors():
    assert errors("""
        parameters:
          autoAssertions:
            enabled: true
            enabled: false
          timeout: 5
            retries: 3
        """) == [
        "t.scenario:4:5: error: duplicate parameter 'autoAssertions.enabled'; it is already set on line 3",
        "t.scenario:6:5: error: 'timeout' has a value, so it cannot open a nested block",
    ]


# ---------------------------------------------------------------- .fragment files


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


SIGN_IN = """
    fragment: sign_in
      given I sign in
        call using auth ^login
        extract $.token => token
    """
USES_SIGN_IN = """
    scenario: s
      given I am signed in
        include sign_in
    """


def test_fragment_files_are_found_under_the_nearest_fragments_folder_walking_up(tmp_path):
    write(tmp_path / "fragments" / "far.fragment", "fragment: far\n  then: status 200\n")
    write(tmp_path / "project" / "fragments" / "auth" / "sign_in.fragment", SIGN_IN)
    scenario = write(tmp_path / "project" / "scenarios" / "deep" / "t.scenario", USES_SIGN_IN)
    file = load_file(scenario)
    assert [f.name for f in file.fragments] == ["sign_in"]  # the nearest folder only, searched recursively
    assert file.fragments[0].location.file.endswith(os.path.join("fragments", "auth", "sign_in.fragment"))


def test_fragment_files_are_found_under_a_berrycrush_fragments_folder(tmp_path):
    write(tmp_path / "berrycrush" / "fragments" / "auth.fragment", SIGN_IN)
    scenario = write(tmp_path / "scenarios" / "t.scenario", USES_SIGN_IN)
    assert [f.name for f in load_file(scenario).fragments] == ["sign_in"]


def test_fragment_files_without_a_folder_an_include_is_unknown(tmp_path):
    scenario = write(tmp_path / "t.scenario", USES_SIGN_IN)
    with pytest.raises(InvalidFileError) as raised:
        load_file(scenario)
    assert [d.message for d in raised.value.diagnostics] == [
        "include of unknown fragment 'sign_in'; this file defines no fragments"
    ]


@pytest.mark.parametrize("named", ["shared/auth.fragment", "shared", "shared/*.fragment", "sha*/**/*.fragment"])
def test_fragments_option_takes_a_file_a_folder_or_a_glob(tmp_path, monkeypatch, named):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "shared" / "auth.fragment", SIGN_IN)
    scenario = write(tmp_path / "scenarios" / "t.scenario", USES_SIGN_IN)
    file = load_file(scenario, [named])
    assert [(f.name, f.location.file) for f in file.fragments] == [("sign_in", os.path.join("shared", "auth.fragment"))]


def test_fragments_option_matching_nothing_is_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    scenario = write(tmp_path / "t.scenario", "scenario: s\n  then: status 200\n")
    with pytest.raises(UsageError, match=r"^--fragments nothing/\*\.fragment: no \.fragment file there$"):
        load_file(scenario, ["nothing/*.fragment"])


def test_fragment_defined_twice_is_an_error_naming_both_places(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "fragments" / "auth.fragment", SIGN_IN)
    write(tmp_path / "more" / "again.fragment", "# the same name again\n\n" + textwrap.dedent(SIGN_IN))
    own = write(tmp_path / "own.scenario", textwrap.dedent(SIGN_IN) + textwrap.dedent(USES_SIGN_IN))
    with pytest.raises(InvalidFileError) as raised:
        load_file(own)
    assert [str(d) for d in raised.value.diagnostics] == [
        f"{own}:1:1: error: fragment 'sign_in' is defined twice: {own}:1 and fragments/auth.fragment:1"
    ]
    other = write(tmp_path / "other.scenario", USES_SIGN_IN)
    with pytest.raises(InvalidFileError) as raised:
        load_file(other, ["more"])
    assert [str(d) for d in raised.value.diagnostics] == [
        "more/again.fragment:4:1: error: fragment 'sign_in' is defined twice: fragments/auth.fragment:1 and "
        "more/again.fragment:4"
    ]


def test_fragment_file_holding_a_scenario_or_parameters_is_an_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(
        tmp_path / "fragments" / "mixed.fragment",
        """
        parameters:
          timeout: 5
        fragment: ok
          then: status 200
        scenario: never runs
          then: status 200
        """,
    )
    scenario = write(tmp_path / "t.scenario", "scenario: s\n  include: ok\n")
    with pytest.raises(InvalidFileError) as raised:
        load_file(scenario)
    assert [str(d) for d in raised.value.diagnostics] == [
        "fragments/mixed.fragment:1:1: error: a .fragment file holds only fragment: blocks; move this to a "
        ".scenario file",
        "fragments/mixed.fragment:5:1: error: a .fragment file holds only fragment: blocks; move this to a "
        ".scenario file",
    ]


def test_fragment_file_with_a_syntax_error_is_an_error_of_each_include_of_it(tmp_path, monkeypatch):
    """Its error, located in that file, is reported at each include of its fragments, local to the
    including scenario (tests/core/test_broken_fragment_files.py runs such a file)."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "fragments" / "broken.fragment", "fragment: b\n  when I x\n    extract $.id -> x\n")
    write(tmp_path / "t.scenario", "scenario: s\n  include: b\n")
    (file,) = load_valid(["t.scenario"])
    assert [(str(d), d.local) for d in file.local_errors] == [
        (
            "t.scenario:2:3: error: fragment 'b' cannot be used: fragments/broken.fragment:3:13: extract reads "
            "like: extract $.id => petId (or, ours, extract: petId from $.id)",
            True,
        )
    ]


def test_fragment_files_include_each_other_and_the_scenario_files_fragments(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "fragments" / "a.fragment", SIGN_IN)
    write(
        tmp_path / "fragments" / "b.fragment",
        """
        fragment: create_pet
          given I am signed in
            include sign_in
          when I create a pet
            include local_check
        """,
    )
    scenario = write(
        tmp_path / "t.scenario",
        """
        fragment: local_check
          then: status 201
        scenario: s
          include: create_pet
        """,
    )
    file = load_file(scenario)
    assert [f.name for f in file.fragments] == ["local_check", "sign_in", "create_pet"]


def test_fragment_files_an_unknown_include_inside_one_is_reported_where_it_is(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "fragments" / "b.fragment", "fragment: b\n  given it\n    include nowhere\n")
    scenario = write(tmp_path / "t.scenario", "scenario: s\n  include: b\n")
    with pytest.raises(InvalidFileError) as raised:
        load_file(scenario)
    assert [str(d) for d in raised.value.diagnostics] == [
        "fragments/b.fragment:3:5: error: include of unknown fragment 'nowhere'; fragments in this file: b"
    ]


def test_fragment_include_cycles_across_files_are_an_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "fragments" / "a.fragment", "fragment: a\n  include: b\n")
    write(tmp_path / "fragments" / "b.fragment", "fragment: b\n  include: a\n")
    scenario = write(tmp_path / "t.scenario", "scenario: s\n  include: a\n")
    with pytest.raises(InvalidFileError) as raised:
        load_file(scenario)
    assert [str(d) for d in raised.value.diagnostics] == [
        "fragments/a.fragment:1:1: error: fragment includes itself: a → b → a"
    ]


# ---------------------------------------------------------------- custom steps at check


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", "import sys; from scenario_tui.cli.main import main; sys.exit(main())", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=60, env=dict(os.environ))


def test_described_step_without_directives_is_a_custom_step_check_reports_at_its_line(tmp_path):
    write(
        tmp_path / "f.scenario",
        """
        scenario: s
          given a pet named "Rex" exists
          when: GET http://127.0.0.1:9/x
          Then: it worked
          and it is {{colour}}
        """,
    )
    result = cli("check", "f.scenario", cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        'f.scenario:2:3: error: no step matches "a pet named "Rex" exists"; custom steps are Python functions '
        "loaded with --plugins MODULE, see docs/custom-steps.md",
        'f.scenario:4:3: error: no step matches "it worked"; custom steps are Python functions loaded with '
        "--plugins MODULE, see docs/custom-steps.md",
        'f.scenario:5:3: error: no step matches "it is {{colour}}"; custom steps are Python functions loaded '
        "with --plugins MODULE, see docs/custom-steps.md",
    ]


def test_described_step_without_directives_passes_check_with_a_plugin_that_matches(tmp_path):
    write(
        tmp_path / "steps.py",
        """
        from scenario_core.custom_steps import step

        @step("a pet named {string} exists")
        def pet(ctx, name):
            ctx.set("petName", name)

        @step("it worked")
        def worked(ctx):
            pass
        """,
    )
    write(
        tmp_path / "f.scenario",
        """
        scenario: s
          given a pet named "Rex" exists
          Then: it worked
        """,
    )
    result = cli("check", "--plugins", "steps.py", "f.scenario", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == "f.scenario: ok (0 features, 1 scenario, 0 fragments)\n"


# ---------------------------------------------------------------- every error is one line


def test_a_triple_quoted_block_where_no_body_goes_gives_one_line_errors():
    """A `\"\"\"` block is one token over several lines; errors quoting it stay on one line."""
    for text, expected in [
        (
            '"""\nscenario: s\n  then: status 200\n"""\n',
            't.scenario:1:1: error: \'"""\' is not allowed here; expected feature:, scenario:, background:, '
            "fragment:, parameters:, outline: or @tag",
        ),
        (
            'scenario: s\n  when I x\n    call ^a\n      """x\n      y"""\n',
            't.scenario:4:7: error: \'"""x       y""":\' needs a value',
        ),
    ]:
        assert errors(text) == [expected]


def test_call_operation_is_located_at_its_name_with_or_without_caret():
    caret, bare, using = only_step("""
        scenario: s
          when I call them
            call ^listPets
            call listPets
            call using "auth" ^login
        """).steps
    spans = [(s.operation.location.column, s.operation.location.end_column) for s in (caret, bare, using)]
    assert spans == [(10, 19), (10, 18), (23, 29)]


def test_outline_cells_split_at_bars_outside_quotes(tmp_path):
    path = tmp_path / "o.scenario"
    path.write_text(
        'outline: o\n  given x {{a}}\n    assert {{a}} equals "x|y"\n  examples:\n'
        '    | a | b |\n    | "x|y" | don\'t |\n',
        encoding="utf-8",
    )
    (row,) = load_file(path).items
    assert row.outline.variables == (("a", "x|y"), ("b", "don't"))


def test_a_shared_fragment_folder_is_checked_only_where_a_file_includes_it(tmp_path):
    from scenario_core.custom_steps.diagnostics import custom_diagnostics
    from scenario_core.custom_steps.registry import Registry
    from scenario_core.parameters.diagnostics import parameter_diagnostics

    (tmp_path / "fragments").mkdir()
    (tmp_path / "fragments" / "auth.fragment").write_text(
        "fragment: sign_in\n  given I sign in\n    call using auth ^login\n"
        "fragment: custom\n  given a step only the auth suite registers\n",
        encoding="utf-8",
    )
    petstore = Path(__file__).resolve().parents[2] / "core" / "demo" / "petstore.yaml"
    plain = tmp_path / "plain.scenario"
    plain.write_text(
        f"parameters:\n  openapi: {petstore}\nscenario: s\n  when I list\n    call ^listPets\n", encoding="utf-8"
    )
    file = load_file(plain)
    assert parameter_diagnostics(file) == [] and custom_diagnostics(file, Registry()) == []
    user = tmp_path / "user.scenario"
    user.write_text(
        plain.read_text(encoding="utf-8") + "  given I am signed in\n    include sign_in\n", encoding="utf-8"
    )
    found = [d.message for d in parameter_diagnostics(load_file(user))]
    assert found and "no OpenAPI description named 'auth'" in found[0]


def test_fragment_files_are_named_from_the_working_directory_of_each_load(tmp_path, monkeypatch):
    # the same unchanged file loaded twice from two working directories: each load names it as
    # seen from its own (an in-process cache once handed the second the first one's name)
    write(tmp_path / "project" / "fragments" / "auth.fragment", SIGN_IN)
    scenario = write(tmp_path / "project" / "t.scenario", USES_SIGN_IN)
    monkeypatch.chdir(tmp_path)
    assert load_file(scenario).fragments[0].location.file == os.path.join("project", "fragments", "auth.fragment")
    monkeypatch.chdir(tmp_path / "project")
    assert load_file(scenario).fragments[0].location.file == os.path.join("fragments", "auth.fragment")
