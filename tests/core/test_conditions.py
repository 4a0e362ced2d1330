"""BerryCrush's conditions after `assert` and `if` (docs/spec/berrycrush.md#conditions): each form
and operator parses into its node, malformed ones raise a located one-line LineError, and check()
evaluates them against responses (or none, for variables), with `in` as real membership and
`matches` as a whole-value match."""

from __future__ import annotations

import json

import pytest

from scenario_core.language.conditions import MAX_JOINED, parse_condition
from scenario_core.language.nodes.assertions import (
    AllOf,
    AnyOf,
    BodyAssertion,
    CustomAssertion,
    HeaderAssertion,
    JsonPathAssertion,
    NotAssertion,
    SchemaAssertion,
    StatusAssertion,
    TimeAssertion,
    VariableAssertion,
)
from scenario_core.language.nodes.base import SourceLocation
from scenario_core.language.step_syntax import LineError
from scenario_core.run.assertions import assertion_refs, check, describe
from scenario_core.run.comparison import Outcome
from scenario_core.run.events import ResponseReceived

STEP = SourceLocation("t.scenario", 4, 7, 4, 60)


def locate(offset: int, length: int) -> SourceLocation:
    """As the builder's: the condition starts at column 14 of line 4."""
    return SourceLocation("t.scenario", 4, 14 + offset, 4, 14 + offset + length)


def parse(text: str, in_if: bool = False):
    return parse_condition(text, locate, STEP, in_if=in_if)


def error(text: str, in_if: bool = False) -> tuple[str, int, int]:
    with pytest.raises(LineError) as caught:
        parse(text, in_if)
    return str(caught.value), caught.value.offset, caught.value.length


def response(body=None, *, status=200, text=None, headers=(("Content-Type", "application/json"),), elapsed=0.1):
    raw = text if text is not None else json.dumps(body)
    try:
        data, problem = json.loads(raw), None
    except ValueError:
        data, problem = None, "the response body is not JSON (Expecting value at line 1 column 1)"
    return ResponseReceived(
        step=None,
        status=status,
        reason="OK",
        headers=tuple(headers),
        body=raw,
        elapsed=elapsed,
        json=data,
        json_error=problem,
    )


BODY = {
    "id": 1,
    "sid": "1",
    "name": "Rex",
    "tags": ["a"],
    "none": None,
    "empty": [],
    "blank": "",
    "owner": {},
    "price": 1.0,
    "good": True,
    "email": "rex@example.com",
}


def holds(text: str, resp=None, variables=None, in_if: bool = False) -> Outcome:
    return check(parse(text, in_if), response(BODY) if resp is None else resp, variables or {})


# ---------------------------------------------------------------- status


@pytest.mark.parametrize(
    "text, fields",
    [
        ("status 200", dict(code=200)),
        ("statusCode 200", dict(code=200)),
        ("STATUS 404", dict(code=404)),
        ("status 2xx", dict(klass=2)),
        ("status 2XX", dict(klass=2)),
        ("status 201-204", dict(low=201, high=204)),
        ("status 20x", dict(pattern="20x")),
    ],
)
def test_status_forms_parse(text, fields):
    node = parse(text)
    assert isinstance(node, StatusAssertion)
    assert {k: getattr(node, k) for k in fields} == fields


@pytest.mark.parametrize(
    "text, status, passed",
    [
        ("status 200", 200, True),
        ("status 200", 201, False),
        ("statusCode 2xx", 204, True),
        ("status 2xx", 301, False),
        ("status 201-204", 201, True),
        ("status 201-204", 204, True),
        ("status 201-204", 200, False),
        ("status 201-204", 205, False),
        ("status 20x", 209, True),
        ("status 20x", 210, False),
        ("status 4x4", 404, True),
        ("status 4x4", 405, False),
    ],
)
def test_status_forms_evaluate(text, status, passed):
    assert holds(text, response({}, status=status)).passed is passed


def test_status_failure_message_names_the_range():
    result = holds("status 201-204", response({"e": 1}, status=500))
    assert result.message == 'expected status 201-204, got 500 (body: {"e": 1})'


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "status 20",
            ("status takes a code (200), a class (2xx), a range (201-204) or a pattern (20x), got '20'", 7, 2),
        ),
        ("status", ("status takes a code (200), a class (2xx), a range (201-204) or a pattern (20x)", 6, 1)),
        ("status 204-201", ("a status range goes from low to high: 201-204, not 204-201", 7, 7)),
        (
            "status 200 ok",
            ("status takes a code (200), a class (2xx), a range (201-204) or a pattern (20x), got '200 ok'", 7, 6),
        ),
    ],
)
def test_status_errors(text, expected):
    assert error(text) == expected


# ---------------------------------------------------------------- body text, schema, response time


@pytest.mark.parametrize(
    "text, operator",
    [
        ('contains "Rex"', "contains"),
        ('bodyContains "Rex"', "contains"),
        ('not contains "Rex"', "not contains"),
        ("Contains Rex", "contains"),
    ],
)
def test_body_contains_forms(text, operator):
    node = parse(text)
    assert isinstance(node, BodyAssertion) and node.operator == operator and node.expected.constant == "Rex"


def test_body_contains_searches_the_raw_body():
    resp = response(text="hello, Rex; not json")
    assert holds('contains "Rex;"', resp).passed
    assert holds('bodyContains "hello"', resp).passed
    assert not holds('contains "Max"', resp).passed
    assert holds('not contains "Max"', resp).passed
    assert holds('not contains "Rex"', resp).message == 'expected body not contains "Rex", got "hello, Rex; not json"'


def test_schema_forms():
    assert isinstance(parse("schema"), SchemaAssertion)
    assert isinstance(parse("matchesSchema"), SchemaAssertion)
    assert error("schema strict") == (
        "schema takes nothing after it: the response is checked against the schema its operation declares",
        7,
        6,
    )


def test_schema_nested_in_a_condition_asks_the_executor():
    node = parse("not schema")
    seen = []

    def schema(resp):
        seen.append(resp.status)
        return Outcome(True, "the schema", None)

    result = check(node, response({}), {}, schema=schema)
    assert seen == [200] and result.passed is False and result.message == "expected not schema, but it holds"
    assert check(parse("schema"), response({}), {}).message == (
        "schema cannot be checked here: it needs the called operation"
    )


@pytest.mark.parametrize(
    "text, milliseconds",
    [
        ("responseTime 1000", 1000),
        ("responseTime 2s", 2000),
        ("responseTime 500ms", 500),
        ("responseTime 1.5s", 1500),
        ("responseTime 300 ms", 300),
    ],
)
def test_response_time_forms(text, milliseconds):
    node = parse(text)
    assert node == TimeAssertion("<=", milliseconds, STEP)


def test_response_time_evaluates_as_at_most():
    assert holds("responseTime 100", response({}, elapsed=0.05)).passed
    assert holds("responseTime 100", response({}, elapsed=0.2)).message == "expected time <= 100 ms, took 200 ms"
    assert error("responseTime soon") == (
        "responseTime takes the longest time allowed: responseTime 1000 (milliseconds), 500ms or 2s",
        13,
        4,
    )


# ---------------------------------------------------------------- JSON paths: parsing


@pytest.mark.parametrize(
    "written, operator",
    [
        ("equals", "equals"),
        ("=", "equals"),
        ("EQUALS", "equals"),
        ("not equals", "not equals"),
        ("greaterThan", ">"),
        (">", ">"),
        ("lessThan", "<"),
        ("<", "<"),
        (">=", ">="),
        ("<=", "<="),
        ("contains", "contains"),
        ("in", "in"),
        ("matches", "matches"),
        ("startsWith", "startsWith"),
        ("endsWith", "endsWith"),
        ("hasSize", "hasSize"),
        ("size", "hasSize"),
        ("arraySize", "hasSize"),
        ("not startsWith", "not startsWith"),
        ("Not Matches", "not matches"),
    ],
)
def test_json_path_operators_with_a_value(written, operator):
    value = '["a"]' if operator.endswith("in") else "1" if operator.endswith("hasSize") else '"x"'
    node = parse(f"$.name {written} {value}")
    assert isinstance(node, JsonPathAssertion) and node.condition
    assert (node.path, node.operator, node.expected.text) == ("$.name", operator, value)


@pytest.mark.parametrize(
    "written, operator",
    [
        ("exists", "exists"),
        ("not exists", "not exists"),
        ("notEmpty", "notEmpty"),
        ("empty", "empty"),
        ("NOTEMPTY", "notEmpty"),
        ("not notEmpty", "not notEmpty"),
    ],
)
def test_json_path_operators_without_a_value(written, operator):
    node = parse(f"$.tags {written}")
    assert (node.operator, node.expected) == (operator, None)


def test_a_path_alone_means_equals_null():
    node = parse("$.id")
    assert (node.operator, node.expected) == ("equals", None)
    assert holds("$.none").passed and holds("$.nope").passed and not holds("$.id").passed


def test_paths_may_be_quoted_and_hold_spaces_inside_brackets():
    node = parse('"$.first-name" equals "Rex"')
    assert node.path == "$.first-name"
    assert parse("$.tags[?(@ == 'a')] exists").path == "$.tags[?(@ == 'a')]"
    assert holds("$.tags[?(@ == 'a')] exists").passed


def test_not_before_a_path_folds_into_its_operator():
    assert parse("not $.id exists").operator == "not exists"
    assert parse("not $.id not exists").operator == "exists"
    assert parse("not not $.id exists").operator == "exists"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("$.a == 1", ("'==' is not a condition operator: write equals (or =)", 4, 2)),
        ("$.a != 1", ("'!=' is not a condition operator: write not equals", 4, 2)),
        (
            "$.a equal 1",
            (
                "unknown operator 'equal' after $.a; did you mean equals? (operators: equals (=), not equals, "
                "greaterThan (>), lessThan (<), >=, <=, exists, notEmpty, empty, contains, in, matches, "
                "startsWith, endsWith, hasSize)",
                4,
                5,
            ),
        ),
        (
            "$.a is 1",
            (
                "unknown operator 'is' after $.a (operators: equals (=), not equals, greaterThan (>), "
                "lessThan (<), >=, <=, exists, notEmpty, empty, contains, in, matches, startsWith, endsWith, "
                "hasSize)",
                4,
                2,
            ),
        ),
        ("$.a not", ("'not' needs an operator after it: $.a not equals \"x\"", 6, 1)),
        ("$.a equals", ("'equals' needs a value: \"text\", a number, true, false, null, [..] or {{NAME}}", 10, 1)),
        ("$.a exists 3", ("'exists' takes no value, found '3' after it", 11, 1)),
        (
            "$.a equals Rex Smith",
            ("'equals' takes one value, found 'Smith' after it; quote text with spaces: \"Rex Smith\"", 15, 5),
        ),
        ('$.a equals "Rex" x', ("'equals' takes one value, found 'x' after it", 17, 1)),
        ('$.a equals "Rex', ('this string is not closed: end it with "', 11, 4)),
        (
            "$.a equals 1 and $.b equals 2",
            ("and/or join conditions only after if; write one assert per condition", 13, 16),
        ),
        ("$.a hasSize two", ("hasSize takes a whole number (hasSize 2), got two", 12, 3)),
        ("$.a in 3", ('in takes a list of values: in ["a", "b"], got 3', 7, 1)),
        ('$.a matches "("', ('invalid regular expression "(": missing ) at position 1', 12, 3)),
        (
            "$.a in [1,",
            ('invalid JSON: Expecting value in the value after \'in\' (strings need double quotes: ["a", "b"])', 10, 1),
        ),
        (
            "$.a in [available, sold]",
            ('invalid JSON: Expecting value in the value after \'in\' (strings need double quotes: ["a", "b"])', 8, 1),
        ),
        ('$.a equals {"a": 1', ("invalid JSON: Expecting ',' delimiter in the value after 'equals'", 18, 1)),
        ("$..[ exists", ("invalid JSON path '$..[': Parse error near the end of string!", 0, 4)),
        (
            "$.a equals {{1x}}",
            (
                "'{{1x}}' is not a variable reference: a name is letters, digits and _ (dotted: a.b, "
                "env.HOME, param.timeout) and does not start with a digit",
                11,
                1,
            ),
        ),
    ],
)
def test_json_path_errors_are_located(text, expected):
    assert error(text) == expected


# ---------------------------------------------------------------- values: one token


@pytest.mark.parametrize(
    "value, constant",
    [
        ('"Rex"', "Rex"),
        ("'Rex'", "Rex"),
        ("Rex", "Rex"),
        ("available", "available"),
        ("3", 3),
        ("-12", -12),
        ("3.5", 3.5),
        ("true", True),
        ("false", False),
        ("null", None),
        ('[1, "a"]', [1, "a"]),
        ('{"a": [true]}', {"a": [True]}),
        (r'"a\nb\tc\rd"', "a\nb\tc\rd"),
        (r'"say \"hi\""', 'say "hi"'),
        (r"'it\'s'", "it's"),
        (r'"a\\b"', "a\\b"),
        (r'"\d+"', "d+"),
        (r'"\\d+"', "\\d+"),
        ('"two words"', "two words"),
        ('"07"', "07"),
        ("07", "07"),
    ],
)
def test_expected_values_are_one_token(value, constant):
    node = parse(f"$.a equals {value}")
    assert node.expected.constant == constant and not node.expected.refs


def test_references_in_values_keep_their_type_when_bare_and_are_text_when_quoted():
    bare = parse("$.id equals {{id}}")
    assert [r.name for r in bare.expected.refs] == ["id"] and not bare.expected.refs[0].in_string
    quoted = parse('$.name equals "{{first}} {{last}}"')
    assert [r.in_string for r in quoted.expected.refs] == [True, True]
    glued = parse("$.name equals pet-{{n}}")
    assert check(glued, response({"name": "pet-3"}), {"n": 3}).passed
    assert check(quoted, response({"name": "Rex Dog"}), {"first": "Rex", "last": "Dog"}).passed
    assert check(bare, response({"id": [1, 2]}), {"id": [1, 2]}).passed
    assert quoted.expected.refs[1].location == locate(25, 8)


def test_escaped_braces_in_a_string_are_literal():
    # BerryCrush's lexer eats one backslash, its interpolator the next: "\\{{x}}" is the text {{x}}.
    node = parse(r'$.a equals "\\{{x}}"')
    assert node.expected.constant == "{{x}}" and not node.expected.refs


# ---------------------------------------------------------------- JSON paths: operators


@pytest.mark.parametrize(
    "text, passed",
    [
        # equals: JSON equality, and a string equals the number or boolean it spells
        ('$.name equals "Rex"', True),
        ("$.name = Rex", True),
        ('$.name equals "rex"', False),
        ('$.id equals "1"', True),
        ("$.sid equals 1", True),
        ("$.price equals 1", True),
        ("$.sid equals 1.0", False),
        ('$.good equals "true"', True),
        ("$.good equals 1", False),
        ('$.tags equals ["a"]', True),
        ("$.none equals null", True),
        ("$.nope equals null", True),
        ("$.id equals null", False),
        ('$.name not equals "Max"', True),
        ("$.nope not equals 5", True),
        ("$.none not equals null", False),
        # exists: matched and not null
        ("$.name exists", True),
        ("$.none exists", False),
        ("$.nope exists", False),
        ("$.empty exists", True),
        ("$.nope not exists", True),
        ("$.none not exists", True),
        ("$.name not exists", False),
        # notEmpty / empty: only nothing, null, "" and [] are empty
        ("$.tags notEmpty", True),
        ("$.empty notEmpty", False),
        ("$.blank notEmpty", False),
        ("$.none notEmpty", False),
        ("$.nope notEmpty", False),
        ("$.owner notEmpty", True),
        ("$.id notEmpty", True),
        ("$.good notEmpty", True),
        ("$.empty empty", True),
        ("$.nope empty", True),
        ("$.name empty", False),
        ("$.name not empty", True),
        # ordering
        ("$.id greaterThan 0", True),
        ("$.id > 1", False),
        ("$.id >= 1", True),
        ("$.id lessThan 2", True),
        ("$.id < 1", False),
        ("$.id <= 1", True),
        ('$.name > "Max"', True),
        # contains: substring, list item, object key
        ('$.name contains "e"', True),
        ('$.tags contains "a"', True),
        ('$.tags contains "b"', False),
        ('$.tags not contains "b"', True),
        # startsWith / endsWith
        ('$.email startsWith "rex@"', True),
        ('$.email endsWith ".com"', True),
        ('$.email startsWith "max"', False),
        ('$.email not endsWith ".org"', True),
        ("$.id startsWith 1", True),
        # hasSize and its spellings
        ("$.tags hasSize 1", True),
        ("$.tags size 1", True),
        ("$.tags arraySize 2", False),
        ("$.name hasSize 3", True),
        ("$.empty hasSize 0", True),
        ("$.tags not hasSize 2", True),
    ],
)
def test_json_path_operators(text, passed):
    assert holds(text).passed is passed, holds(text)


@pytest.mark.parametrize(
    "text, passed",
    [
        ('$.name in ["Rex", "Max"]', True),
        ('$.name in ["Max"]', False),
        ('$.name not in ["Max"]', True),
        ("$.id in [1, 2]", True),
        ('$.id in ["1"]', True),
        ('$.tags in [["a"], ["b"]]', True),
        ('$.name in ["Rex Dog"]', False),  # membership, not BerryCrush's text containment
    ],
)
def test_in_is_real_membership(text, passed):
    assert holds(text).passed is passed


def test_in_takes_a_list_from_a_variable_and_says_when_it_is_not_one():
    assert holds("$.name in {{names}}", variables={"names": ["Max", "Rex"]}).passed
    result = holds("$.name in {{names}}", variables={"names": "Rex"})
    assert not result.passed and result.undecided
    assert result.message == 'expected $.name in "Rex", got "Rex": in needs a list of values (["a", "b"]), got string'


@pytest.mark.parametrize(
    "text, passed",
    [
        ('$.name matches "R.x"', True),
        ('$.name matches "R"', False),
        ('$.name matches "e"', False),
        ('$.email matches "[a-z]+@example\\\\.com"', True),
        ('$.name matches ".*e.*"', True),
        ('$.id matches "1"', True),
        ('$.name not matches "M.*"', True),
    ],
)
def test_matches_is_a_whole_value_match(text, passed):
    assert holds(text).passed is passed


def test_then_matches_still_searches_where_assert_matches_the_whole_value():
    from scenario_core.language.parser import parse_text

    then = parse_text('scenario: s\n  then: $.name matches "e"\n').scenarios[0].steps[0].assertion
    assert check(then, response(BODY), {}).passed
    assert not holds('$.name matches "e"').passed


def test_matches_is_bounded_by_the_time_limit():
    import time

    started = time.perf_counter()
    result = check(parse('$.v matches "(a|a)*"'), response({"v": "a" * 40 + "!"}), {}, time_limit=0.2)
    assert time.perf_counter() - started < 15  # the limit: unstopped, 2^40 ways to fail
    assert not result.passed and "took over 0.2 s" in result.message


def test_failure_messages_say_expected_and_got():
    assert holds("$.tags hasSize 2").message == 'expected $.tags hasSize 2, got ["a"] (size 1)'
    assert holds('$.name equals "Max"').message == 'expected $.name equals "Max", got "Rex"'
    assert holds("$.none exists").message == "expected $.none to exist, got null"
    assert (
        holds("$.nope exists").message
        == "expected $.nope to exist, it matched nothing in the response body; the body has $.none"
    )
    assert holds("$.name not exists").message == 'expected $.name not to exist, got "Rex"'
    assert holds("$.empty notEmpty").message == "expected $.empty notEmpty, got []"
    assert holds("$.nope notEmpty").message == (
        "expected $.nope notEmpty, but $.nope matched nothing in the response body; the body has $.none"
    )
    assert holds('$.name startsWith "M"').message == 'expected $.name startsWith "M", got "Rex"'
    assert holds('$.email matches "rex"').message == 'expected $.email matches "rex", got "rex@example.com"'
    assert holds("$.tags hasSize 2").message.count("\n") == 0


def test_operators_that_cannot_apply_fail_negated_too():
    for text in ("$.name greaterThan 5", "$.name not greaterThan 5"):
        result = holds(text)
        assert not result.passed and result.undecided
    assert holds("$.name not greaterThan 5").message == (
        'expected $.name not > 5, got "Rex": cannot order string against number: < <= > >= compare two numbers '
        "or two strings"
    )
    assert holds("$.owner hasSize 0").passed
    assert (
        holds("$.id hasSize 1").message
        == "expected $.id hasSize 1, got 1: hasSize needs an array, a string or an object, got number"
    )
    assert holds('$.tags startsWith "a"').message == (
        'expected $.tags startsWith "a", got ["a"]: startsWith needs a string, got array'
    )
    result = holds('$.nope not contains "a"')
    assert not result.passed and result.message == (
        'expected $.nope not contains "a", but $.nope matched nothing in the response body; the body has $.none'
    )


def test_a_body_that_is_not_json_cannot_answer_a_path_either_way():
    resp = response(text="<html>")
    for text in ("$.a exists", "$.a not exists"):
        result = check(parse(text), resp, {})
        assert not result.passed and result.undecided
        assert (
            result.message == "cannot evaluate $.a: the response body is not JSON (Expecting value at line 1 column 1)"
        )


# ---------------------------------------------------------------- headers


HEADERS = (("Content-Type", "application/json; charset=utf-8"), ("X-Count", "10"), ("Location", "/pets/7"))


@pytest.mark.parametrize(
    "text, operator, value",
    [
        ("header Location", "exists", None),
        ('header Location = "/pets/7"', "equals", '"/pets/7"'),
        ('header Location: "/pets/7"', "equals", '"/pets/7"'),
        ('header Location:"/pets/7"', "equals", '"/pets/7"'),
        ('header Location equals "/pets/7"', "equals", '"/pets/7"'),
        ('header Content-Type contains "json"', "contains", '"json"'),
        ('header Content-Type not contains "xml"', "not contains", '"xml"'),
        ("header X-Count greaterThan 5", ">", "5"),
        ("header X-Count not exists", "not exists", None),
        ("Header X-Count", "exists", None),
    ],
)
def test_header_forms(text, operator, value):
    for in_if in (False, True):
        node = parse(text, in_if)
        assert isinstance(node, HeaderAssertion) and node.condition
        assert (node.operator, node.expected.text if node.expected else None) == (operator, value)


@pytest.mark.parametrize(
    "text, passed",
    [
        ("header location", True),
        ("header X-Nope", False),
        ("header X-Nope not exists", True),
        ('header Location = "/pets/7"', True),
        ('header location: "/pets/8"', False),
        ("header X-Count = 10", True),
        ('header X-Count equals "10"', True),
        ('header Content-Type contains "json"', True),
        ('header Content-Type startsWith "application/"', True),
        ('header Content-Type matches "application/.*"', True),
        ('header Content-Type matches "json"', False),
        ("header X-Count greaterThan 5", True),
        ("header X-Count < 5", False),
        ("header X-Count hasSize 2", True),
        ('header X-Count in ["10", "20"]', True),
        ("header X-Count in [10]", True),
        ('header X-Nope not equals "a"', True),
        ('header X-Nope equals "a"', False),
        ("header X-Nope empty", True),
    ],
)
def test_header_conditions(text, passed):
    assert holds(text, response({}, headers=HEADERS), in_if=True).passed is passed


def test_header_messages():
    resp = response({}, headers=HEADERS)
    assert holds("header X-Nope", resp).message == "expected header X-Nope to exist, the response has no X-Nope header"
    assert holds('header X-Nope contains "a"', resp).message == (
        'expected header X-Nope contains "a", but the response has no X-Nope header'
    )
    assert holds('header Location = "/x"', resp).message == 'expected header Location equals "/x", got "/pets/7"'
    assert error("header") == (
        "a header condition reads like: header Location, header Content-Type = "
        '"application/json" or header X-Count greaterThan 5',
        0,
        6,
    )
    assert error("header X-A ~ 1")[0].startswith("unknown operator '~' after header X-A")


# ---------------------------------------------------------------- variables


def test_variable_conditions_with_braces_in_assert_and_if():
    for in_if in (False, True):
        node = parse("{{count}} equals 3", in_if)
        assert isinstance(node, VariableAssertion) and node.ref.name == "count" and node.operator == "equals"
        assert node.ref.location == locate(0, 9)


def test_bare_variable_names_only_after_if():
    node = parse("test.type equals invalid", in_if=True)
    assert isinstance(node, VariableAssertion) and node.ref.name == "test.type"
    assert node.expected.constant == "invalid" and node.ref.location == locate(0, 9)
    assert isinstance(parse("test.type equals invalid"), CustomAssertion)


@pytest.mark.parametrize(
    "text, passed",
    [
        ("{{count}} equals 3", True),
        ('{{count}} equals "3"', True),
        ("{{count}} greaterThan 2", True),
        ("{{count}} not equals 3", False),
        ("{{name}} startsWith R", True),
        ('{{name}} matches "R.x"', True),
        ('{{name}} matches "R"', False),
        ("{{tags}} hasSize 2", True),
        ('{{name}} in ["Rex"]', True),
        ("{{none}} exists", False),
        ("{{none}} equals null", True),
        ("{{tags}} notEmpty", True),
        ("{{server.hook.length}} equals 1", True),
        ("param.timeout equals 30", True),
    ],
)
def test_variable_conditions_need_no_response(text, passed):
    variables = {
        "count": 3,
        "name": "Rex",
        "tags": ["a", "b"],
        "none": None,
        "server.hook.length": 1,
        "param.timeout": 30,
    }
    in_if = not text.startswith("{{")
    assert check(parse(text, in_if), None, variables).passed is passed


def test_variables_are_only_looked_up_never_iterated():
    class Lookup:
        def __contains__(self, name):
            return name == "env.HOME"

        def __getitem__(self, name):
            if name != "env.HOME":
                raise KeyError(name)
            return "/home/rex"

        def __iter__(self):
            raise AssertionError("iterated")

    assert check(parse('{{env.HOME}} startsWith "/home"'), None, Lookup()).passed
    result = check(parse("{{other}} equals 1"), None, Lookup())
    assert not result.passed and result.message == "undefined variable 'other'"


def test_variable_errors_after_if():
    assert error("test.type", in_if=True)[0].startswith("'test.type' needs an operator: test.type equals \"x\"")
    assert error("123 equals 3", in_if=True) == (
        'expected a condition after if: status, header, a JSON path ($.name equals "Rex"), contains, schema, '
        "responseTime or a variable (test.type equals \"x\"), got '123'",
        0,
        3,
    )
    assert error("{{a}}{{b}} equals 1", in_if=True) == (
        "a variable condition reads like: {{name}} equals \"x\", got '{{a}}{{b}}'",
        0,
        10,
    )


# ---------------------------------------------------------------- custom assertions


def test_other_text_after_assert_is_a_custom_assertion():
    node = parse('the pet should have status "{{status}}"')
    assert isinstance(node, CustomAssertion)
    assert node.text.text == 'the pet should have status "{{status}}"'
    assert [r.name for r in node.text.refs] == ["status"] and node.text.refs[0].location == locate(28, 10)
    assert isinstance(parse("{{count}} pets were created"), CustomAssertion)  # no operator after {{count}}
    assert isinstance(parse("{{count}}"), CustomAssertion)
    assert error("{{count}} == 3") == ("'==' is not a condition operator: write equals (or =)", 10, 2)


def test_custom_assertions_go_to_the_executors_callable():
    calls = []

    def custom(assertion, variables):
        calls.append((assertion.text.text, variables["x"]))
        return Outcome(
            assertion.text.text == "all is well",
            None,
            None,
            None if assertion.text.text == "all is well" else "it is not",
        )

    assert check(parse("all is well"), None, {"x": 1}, custom=custom).passed
    result = check(parse("not all is well"), None, {"x": 1}, custom=custom)
    assert not result.passed and result.message == "expected not all is well, but it holds"
    assert check(parse("not the sky falls"), None, {"x": 2}, custom=custom).passed
    assert calls == [("all is well", 1), ("all is well", 1), ("the sky falls", 2)]


def test_custom_assertions_without_a_callable_fail_clearly():
    result = check(parse("the pet is happy"), response({}), {})
    assert not result.passed and result.message == "no custom assertion checks 'the pet is happy'"
    assert not check(parse("not the pet is happy"), response({}), {}).passed


def test_unclosed_reference_in_a_custom_assertion_is_located():
    assert error("the pet {{name is happy") == ("'{{' is not closed by '}}'", 8, 1)


# ---------------------------------------------------------------- not, and, or


def test_not_wraps_what_has_no_operator():
    node = parse("not status 500")
    assert node == NotAssertion(StatusAssertion(500, None, STEP), "status 500", STEP)
    assert holds("not status 500").passed
    assert holds("not status 200").message == "expected not status 200, got 200"
    assert parse("not not status 500") == StatusAssertion(500, None, STEP)
    assert parse('NOT contains "x"').operator == "not contains"
    assert error("not") == ("'not' needs a condition after it, e.g. not status 500", 0, 3)


def test_without_a_response_a_condition_holds_neither_way():
    for text in (
        "status 200",
        "not status 200",
        "$.a exists",
        "$.a not exists",
        'contains "x"',
        "header A",
        "responseTime 10",
    ):
        result = check(parse(text), None, {})
        assert not result.passed and result.undecided
        assert result.message.startswith("no response to check: ")
    assert check(parse("not status 200"), None, {}).message == (
        "no response to check: status 200 needs a request before it"
    )


def test_and_or_are_right_associative_without_precedence():
    a, b, c = "status 200", "$.id equals 1", "{{x}} equals 1"

    def shape(node):
        if isinstance(node, (AllOf, AnyOf)):
            return (type(node).__name__, tuple(shape(n) for n in node.conditions))
        return describe(node)

    assert shape(parse(f"{a} and {b} or {c}", True)) == ("AllOf", (a, ("AnyOf", (b, c))))
    assert shape(parse(f"{a} or {b} and {c}", True)) == ("AnyOf", (a, ("AllOf", (b, c))))
    assert shape(parse(f"{a} AND {b} and {c}", True)) == ("AllOf", (a, b, c))
    assert shape(parse(f"not {a} or {b}", True)) == ("AnyOf", ("not " + a, b))
    assert shape(parse(f"{a} or not {b}", True)) == ("AnyOf", (a, "$.id not equals 1"))
    # right associative: F and F or T is F and (F or T) = F (left-to-right would give T)
    resp = response(BODY, status=500)
    assert check(parse(f"{a} and {b} or {c}", True), resp, {"x": 1}).passed is False
    assert check(parse(f"{c} or {a} and {b}", True), resp, {"x": 1}).passed is True


def test_and_or_inside_quotes_brackets_and_paths_do_not_split():
    node = parse('$.name equals "cats and dogs" or $.tags[?(@ == "a or b")] exists', True)
    assert isinstance(node, AnyOf) and len(node.conditions) == 2
    assert node.conditions[0].expected.constant == "cats and dogs"


def test_and_or_short_circuit():
    calls = []

    def custom(assertion, variables):
        calls.append(assertion.text.text)
        return Outcome(True, None, None)

    # Custom assertions cannot stand after if, so count evaluations through variable lookups instead.
    class Counting(dict):
        def __contains__(self, name):
            calls.append(name)
            return dict.__contains__(self, name)

    variables = Counting(a=1, b=2)
    assert check(parse("a equals 1 or b equals 2", True), None, variables).passed
    assert calls == ["a"]
    calls.clear()
    assert not check(parse("a equals 5 and b equals 2", True), None, variables).passed
    assert calls == ["a"]
    calls.clear()
    assert check(parse("a equals 5 or b equals 2", True), None, variables).passed
    assert calls == ["a", "b"]


def test_a_failing_or_lists_every_part():
    result = check(parse("status 201 or $.id equals 2", True), response({"id": 1}), {})
    assert result.message == 'none holds: expected status 201, got 200 (body: {"id": 1}); expected $.id equals 2, got 1'


@pytest.mark.parametrize(
    "text, expected",
    [
        ("status 200 and", ("'and' needs a condition on each side, e.g. if status 200 and $.id exists", 11, 3)),
        ("or status 200", ("'or' needs a condition on each side, e.g. if status 200 and $.id exists", 0, 2)),
        (
            "status 200 and  or $.a exists",
            ("'or' needs a condition on each side, e.g. if status 200 and $.id exists", 16, 2),
        ),
    ],
)
def test_and_or_errors(text, expected):
    assert error(text, in_if=True) == expected


def test_an_if_joins_a_bounded_number_of_conditions():
    many = " and ".join(["status 200"] * MAX_JOINED)
    assert len(parse(many, True).conditions) == MAX_JOINED
    message, offset, _ = error(many + " or status 201", in_if=True)
    assert message == f"an if joins at most {MAX_JOINED} conditions with and/or"


def test_if_rejects_custom_text_and_assert_rejects_and_or():
    assert error("the pet is happy", in_if=True) == (
        "unknown operator 'pet' after the (operators: equals (=), not equals, greaterThan (>), lessThan (<), >=, "
        "<=, exists, notEmpty, empty, contains, in, matches, startsWith, endsWith, hasSize); custom assertions "
        "stand only after assert",
        4,
        3,
    )
    assert error("status 200 and $.id exists") == (
        "status takes a code (200), a class (2xx), a range (201-204) or a pattern (20x), got '200 and $.id exists'",
        7,
        19,
    )
    assert error("$.id exists and status 200")[0] == (
        "and/or join conditions only after if; write one assert per condition"
    )


@pytest.mark.parametrize("keyword, in_if", [("assert", False), ("if", True)])
def test_an_empty_condition(keyword, in_if):
    assert error("  ", in_if) == (f"{keyword} needs a condition, e.g. {keyword} status 200", 0, 1)


# ---------------------------------------------------------------- references


def test_assertion_refs_finds_every_reference_in_nested_conditions():
    node = parse('{{a}} equals 1 and not $.x in {{b}} or test.type equals "{{c}}-{{d}}" or header H = {{e}}', True)
    assert [r.name for r in assertion_refs(node)] == ["a", "b", "test.type", "c", "d", "e"]
    assert [r.name for r in assertion_refs(parse("not the {{pet}} is sold"))] == ["pet"]
    assert assertion_refs(parse("status 200")) == ()
    assert assertion_refs(parse("$.id")) == ()


def test_the_value_of_a_reference_renders_at_run_time():
    assert holds("$.id equals {{id}}", variables={"id": 1}).passed
    assert not holds("$.id equals {{id}}", variables={"id": 2}).passed
    assert holds('$.name equals "{{n}}"', variables={"n": "Rex"}).passed
    assert holds("$.tags hasSize {{n}}", variables={"n": 1}).passed
    assert holds("$.tags hasSize {{n}}", variables={"n": "one"}).message == (
        'expected $.tags hasSize "one", got ["a"]: hasSize needs a whole number, got "one"'
    )
