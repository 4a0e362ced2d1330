"""Checking a `then:` assertion, or a BerryCrush condition (`assert`, `if`), against the last
response (semantics.md §4, §5).

Values compare as JSON values: `1 == 1.0`, but `true != 1`; ordering needs two numbers or two
strings (lexicographic); a JSON path matching several values compares the list of them. A
condition's `equals` also takes a string for the number or boolean it spells (`"1" equals 1`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from scenario_core.language.nodes.assertions import (
    AllOf,
    AnyOf,
    Assertion,
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
from scenario_core.language.nodes.base import JsonTemplate, VariableRef
from scenario_core.language.nodes.walk import leaf_conditions
from scenario_core.language.templates import render_json, text_form
from scenario_core.run.events import ResponseReceived
from scenario_core.support.json_depth import MAX_DEPTH, cut_depth, cut_marker  # noqa: F401 - cut_depth is used by reports too


@dataclass(frozen=True, slots=True)
class Outcome:
    passed: bool
    expected: Any
    actual: Any
    message: str | None = None
    # The assertion could not be evaluated (no response, a body that is not JSON, a value of the
    # wrong type): it fails, and so does its negation (`not`); an `if` takes it as false.
    undecided: bool = False


class _Missing:
    def __repr__(self) -> str:
        return "<nothing>"


MISSING = _Missing()  # `actual` when a JSON path matched nothing or a header is absent

# A `matches` search gets this long on one value. Catastrophic backtracking (`^(a|a)*$` on
# 40 a's and a !) would otherwise hold the run for ever, past the step's timeout and deaf to
# Ctrl+C. An honest pattern searches a 10 MB body in tens of milliseconds, so half a second is
# generous; it is also short because regex overshoots its timeout by up to ~50% on a loaded
# machine, and the step must still fail within its timeout plus a second for `timeout: 1`.
# Fixed rather than the step's timeout: the executor does not pass that to `check` (yet).
MATCH_SECONDS = 0.5


def show(value: Any, width: int = 120) -> str:
    """A value as the user reads it in a message: JSON, one line, clipped."""
    if value is MISSING:
        return "nothing"
    try:
        text = json.dumps(cut_depth(value), ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = type_name(value)
    text = " ".join(text.split()) if "\n" in text else text
    return text if len(text) <= width else text[: width - 1] + "…"


def type_name(value: Any) -> str:
    """A value's JSON type, in JSON's own words: what messages and the TUI's variables say."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values: booleans are not numbers, 1 == 1.0, containers compare deeply.
    Iterative: two extracted values can both nest far deeper than Python's recursion limit."""
    pending = [(a, b)]
    while pending:
        a, b = pending.pop()
        if isinstance(a, bool) or isinstance(b, bool):
            if not (isinstance(a, bool) and isinstance(b, bool) and a == b):
                return False
        elif isinstance(a, (int, float)) and isinstance(b, (int, float)):
            if a != b:
                return False
        elif isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                return False
            pending.extend(zip(a, b))
        elif isinstance(a, dict) and isinstance(b, dict):
            if a.keys() != b.keys():
                return False
            pending.extend((v, b[k]) for k, v in a.items())
        elif not (type(a) is type(b) and a == b):
            return False
    return True


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_ORDER = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


# Operators that take no value; they decide on a value that is not there, too.
_NO_OPERAND = ("exists", "notEmpty", "empty")


def negation(op: str) -> tuple[bool, str]:
    """An operator as (negated, the operator it negates): `not contains` -> (True, "contains"),
    `!=` -> (True, "=="), `hasSize` -> (False, "hasSize")."""
    if op == "!=":
        return True, "=="
    if op.startswith("not "):
        return True, op[4:]
    return False, op


def loose_equal(a: Any, b: Any) -> bool:
    """BerryCrush's `equals`: JSON equality, or a string equal to the JSON text of a number or
    boolean (`"1" equals 1`, `"true" equals true`; `"1.0"` is not 1)."""
    if json_equal(a, b):
        return True
    if isinstance(a, str) and isinstance(b, (int, float)):
        return a == _text(b)
    if isinstance(b, str) and isinstance(a, (int, float)):
        return b == _text(a)
    return False


def _empty(value: Any) -> bool:
    # BerryCrush's notEmpty: only nothing, null, "" and [] are empty (an object never is).
    return value is MISSING or value is None or (isinstance(value, (str, list)) and not value)


def compare(
    op: str, actual: Any, expected: Any, time_limit: float = MATCH_SECONDS, *, condition: bool = False
) -> tuple[bool, str | None]:
    """(passed, problem): `problem` explains an operation that cannot apply to these types (the
    comparison then fails, negated or not). `condition`: BerryCrush's rules (conditions.py):
    `matches` matches the whole value and `in` compares as `equals`; otherwise ours (`then:`)."""
    negated, base = negation(op)
    holds, problem = _apply(base, actual, expected, time_limit, condition)
    if problem:
        return False, problem
    return holds != negated, None


def _apply(op: str, actual: Any, expected: Any, time_limit: float, condition: bool) -> tuple[bool, str | None]:
    if op == "==":
        return json_equal(actual, expected), None
    if op == "equals":
        if expected is None:  # `equals null`: nothing or null
            return actual is MISSING or actual is None, None
        return actual is not MISSING and loose_equal(actual, expected), None
    if op == "exists":  # in a condition JSON null does not exist (as BerryCrush)
        return actual is not MISSING and not (condition and actual is None), None
    if op == "notEmpty":
        return not _empty(actual), None
    if op == "empty":
        return _empty(actual), None
    if op in _ORDER:
        if (_is_number(actual) and _is_number(expected)) or (isinstance(actual, str) and isinstance(expected, str)):
            return _ORDER[op](actual, expected), None
        return False, (
            f"cannot order {type_name(actual)} against {type_name(expected)}: "
            "< <= > >= compare two numbers or two strings"
        )
    if op == "contains":
        if isinstance(actual, str):
            return _text(expected) in actual, None
        if isinstance(actual, list):
            return any(json_equal(item, expected) for item in actual), None
        if isinstance(actual, dict):
            if not isinstance(expected, str):
                return False, f"an object contains keys (strings), not a {type_name(expected)}"
            return expected in actual, None
        return False, f"contains needs a string, a list or an object, got {type_name(actual)}"
    if op == "in":
        if not isinstance(expected, list):
            return False, f'in needs a list of values (["a", "b"]), got {type_name(expected)}'
        same = loose_equal if condition else json_equal
        return any(same(actual, item) for item in expected), None
    if op == "matches":
        return _matches(expected, actual, time_limit, whole=condition)
    if op in ("startsWith", "endsWith"):
        if actual is None or isinstance(actual, (list, dict)):
            return False, f"{op} needs a string, got {type_name(actual)}"
        text, part = _text(actual), _text(expected)
        return (text.startswith(part) if op == "startsWith" else text.endswith(part)), None
    if op == "hasSize":
        if (
            isinstance(expected, bool)
            or not _is_number(expected)
            or expected < 0
            or (isinstance(expected, float) and not expected.is_integer())
        ):
            return False, f"hasSize needs a whole number, got {show(expected)}"
        if not isinstance(actual, (list, str, dict)):
            return False, f"hasSize needs an array, a string or an object, got {type_name(actual)}"
        return len(actual) == expected, None
    return False, f"unknown operator '{op}'"


def _text(value: Any) -> str:
    """text_form for a value of any depth (json.dumps dies with RecursionError on deep ones)."""
    return text_form(cut_depth(value))


def _matches(expected: Any, actual: Any, time_limit: float, whole: bool = False) -> tuple[bool, str | None]:
    # The `regex` package, not `re`: it takes a timeout (re cannot be interrupted at all) and is
    # what check-time validation compiles patterns with. Imported here: most runs never match.
    import regex

    pattern = expected if isinstance(expected, str) else _text(expected)
    subject = _text(actual)
    try:
        if whole:  # BerryCrush's `matches`: the whole value
            return regex.fullmatch(pattern, subject, timeout=time_limit) is not None, None
        return regex.search(pattern, subject, timeout=time_limit) is not None, None
    except regex.error as error:
        return False, f"invalid regular expression {show(pattern)}: {error}"
    except TimeoutError:
        return False, (
            f"the regular expression {show(pattern)} took over {time_limit:g} s on a "
            f"{len(subject)}-character value and was stopped; make it simpler "
            "(nested repetition such as (a|a)* backtracks without end)"
        )


def _fail_message(subject: str, op: str, expected: Any, actual: Any, problem: str | None) -> str:
    message = f"expected {subject} {op} {show(expected)}, got {show(actual)}"
    return f"{message}: {problem}" if problem else message


_SAME = object()


def _verdict(
    subject: str,
    op: str,
    actual: Any,
    expected: Any,
    nothing: tuple[str, str],
    *,
    condition: bool,
    time_limit: float,
    compared: Any = _SAME,
) -> Outcome:
    """One operator on one value, with the message. `actual` is MISSING when there is nothing;
    `nothing` then says so after "expected X to exist, " and after "but " ("it matched nothing in
    the response body", "$.id matched nothing in the response body"). `compared`, when given, is
    what the operator sees instead of `actual` (a header's text as a number)."""
    negated, base = negation(op)
    value = actual if compared is _SAME else compared
    written = f"{subject} {op}" if base in _NO_OPERAND else f"{subject} {op} {show(expected)}"
    if base == "exists":
        holds, _ = _apply(base, value, expected, time_limit, condition)
        if holds != negated:
            return Outcome(True, None, actual)
        if negated:
            return Outcome(False, None, actual, f"expected {subject} not to exist, got {show(actual)}")
        return Outcome(
            False,
            None,
            actual,
            f"expected {subject} to exist, " + (nothing[0] if actual is MISSING else f"got {show(actual)}"),
        )
    # Nothing there reads as null for the operators that decide on null; the rest cannot apply.
    if actual is MISSING and base not in _NO_OPERAND and not (condition and base == "equals"):
        return Outcome(False, expected, actual, f"expected {written}, but {nothing[1]}", undecided=True)
    holds, problem = _apply(base, value, expected, time_limit, condition)
    if problem:
        return Outcome(False, expected, actual, f"expected {written}, got {show(actual)}: {problem}", undecided=True)
    if holds != negated:
        return Outcome(True, expected, actual)
    if actual is MISSING:
        return Outcome(False, expected, actual, f"expected {written}, but {nothing[1]}")
    size = f" (size {len(value)})" if base == "hasSize" else ""
    return Outcome(False, expected, actual, f"expected {written}, got {show(actual)}{size}")


def describe(assertion: Assertion) -> str:
    """An assertion as one line of text, for messages that cannot quote the file."""
    if isinstance(assertion, StatusAssertion):
        return f"status {assertion.expectation}"
    if isinstance(assertion, (JsonPathAssertion, HeaderAssertion, BodyAssertion, VariableAssertion)):
        subject = {
            JsonPathAssertion: lambda a: a.path,
            HeaderAssertion: lambda a: f"header {a.name}",
            BodyAssertion: lambda a: "body",
            VariableAssertion: lambda a: "{{" + a.ref.name + "}}",
        }[type(assertion)](assertion)
        value = f" {assertion.expected.text}" if assertion.expected is not None else ""
        return f"{subject} {assertion.operator}{value}"
    if isinstance(assertion, TimeAssertion):
        return f"time {assertion.operator} {assertion.milliseconds:g}ms"
    if isinstance(assertion, SchemaAssertion):
        return "schema"
    if isinstance(assertion, CustomAssertion):
        return assertion.text.text
    if isinstance(assertion, NotAssertion):
        return f"not {assertion.text}"
    if isinstance(assertion, (AllOf, AnyOf)):
        joint = " and " if isinstance(assertion, AllOf) else " or "
        return joint.join(describe(c) for c in assertion.conditions)
    return type(assertion).__name__


def assertion_refs(assertion: Assertion) -> tuple[VariableRef, ...]:
    """Every {{NAME}} an assertion uses, nested conditions included, in source order; a variable
    condition's own name counts too."""
    found: list[VariableRef] = []
    for node in leaf_conditions(assertion):
        if isinstance(node, CustomAssertion):
            found.extend(node.text.refs)
            continue
        if isinstance(node, VariableAssertion):
            found.append(node.ref)
        expected = getattr(node, "expected", None)
        if isinstance(expected, JsonTemplate):
            found.extend(expected.refs)
    return tuple(found)


Custom = Callable[[CustomAssertion, Mapping[str, Any]], Outcome]
Schema = Callable[[ResponseReceived], Outcome]


def check(
    assertion: Assertion,
    response: ResponseReceived | None,
    variables: Mapping[str, Any],
    time_limit: float = MATCH_SECONDS,
    custom: Custom | None = None,
    schema: Schema | None = None,
) -> Outcome:
    """Evaluate one assertion or condition; never raises for anything a response can contain.
    `time_limit` bounds a `matches` search, in seconds. `response` None: what needs one fails
    (undecided). `custom` checks a CustomAssertion, `schema` a SchemaAssertion against the called
    operation's declared response (the executor's own knowledge); without them those fail.
    `variables` is only indexed (`name in`, `[name]`), never iterated."""
    if response is not None:  # the common cases first: a run checks thousands of these
        kind = type(assertion)
        if kind is StatusAssertion:
            return _status(assertion, response)
        if kind is JsonPathAssertion:
            return _json_path(assertion, response, variables, time_limit)
    if isinstance(assertion, NotAssertion):
        inner = check(assertion.condition, response, variables, time_limit, custom, schema)
        if inner.undecided:  # what cannot be evaluated holds neither way
            return inner
        if not inner.passed:
            return Outcome(True, inner.expected, inner.actual)
        got = "but it holds" if inner.actual is None else f"got {show(inner.actual)}"
        return Outcome(False, inner.expected, inner.actual, f"expected not {assertion.text}, {got}")
    if isinstance(assertion, AllOf):
        for condition in assertion.conditions:  # short-circuit: stop at the first that fails
            outcome = check(condition, response, variables, time_limit, custom, schema)
            if not outcome.passed:
                return outcome
        return outcome
    if isinstance(assertion, AnyOf):
        failures = []
        for condition in assertion.conditions:  # short-circuit: stop at the first that holds
            outcome = check(condition, response, variables, time_limit, custom, schema)
            if outcome.passed:
                return outcome
            failures.append(outcome)
        return Outcome(
            False,
            outcome.expected,
            outcome.actual,
            "none holds: " + "; ".join(o.message or "failed" for o in failures),
            undecided=all(o.undecided for o in failures),
        )
    if isinstance(assertion, VariableAssertion):
        return _variable(assertion, variables, time_limit)
    if isinstance(assertion, CustomAssertion):
        if custom is None:
            return Outcome(False, None, None, f"no custom assertion checks '{assertion.text.text}'", undecided=True)
        return custom(assertion, variables)
    if response is None:
        return Outcome(
            False, None, None, f"no response to check: {describe(assertion)} needs a request before it", undecided=True
        )
    if isinstance(assertion, StatusAssertion):
        return _status(assertion, response)
    if isinstance(assertion, JsonPathAssertion):
        return _json_path(assertion, response, variables, time_limit)
    if isinstance(assertion, HeaderAssertion):
        return _header(assertion, response, variables, time_limit)
    if isinstance(assertion, BodyAssertion):
        return _body(assertion, response, variables, time_limit)
    if isinstance(assertion, TimeAssertion):
        return _time(assertion, response)
    if isinstance(assertion, SchemaAssertion):
        if schema is None:
            return Outcome(
                False, None, None, "schema cannot be checked here: it needs the called operation", undecided=True
            )
        return schema(response)
    return Outcome(False, None, None, f"unknown assertion {type(assertion).__name__}")


def _snippet(response: ResponseReceived) -> str:
    body = " ".join(response.body.split())
    if not body:
        return ""
    return f" (body: {body if len(body) <= 100 else body[:99] + '…'})"


def _status(assertion: StatusAssertion, response: ResponseReceived) -> Outcome:
    status = response.status
    expected = assertion.expectation
    if assertion.code is not None:
        passed = status == assertion.code
    elif assertion.klass is not None:
        passed = status // 100 == assertion.klass
    elif assertion.pattern is not None:  # `20x`: each x any digit
        digits = str(status)
        passed = len(digits) == len(assertion.pattern) and all(p in ("x", d) for p, d in zip(assertion.pattern, digits))
    else:
        passed = assertion.low <= status <= assertion.high
    if passed:
        return Outcome(True, expected, status)
    return Outcome(False, expected, status, f"expected status {expected}, got {status}{_snippet(response)}")


def json_path_values(compiled: Any, data: Any) -> Any:
    """MISSING when nothing matched, the value for one match, a list for several."""
    matches = compiled.find(data)
    if not matches:
        return MISSING
    if len(matches) == 1:
        return matches[0].value
    return [m.value for m in matches]


def _json_path(
    assertion: JsonPathAssertion, response: ResponseReceived, variables: Mapping[str, Any], time_limit: float
) -> Outcome:
    path = assertion.path
    expected = render_json(assertion.expected, variables) if assertion.expected is not None else None
    if not response.is_json:
        return Outcome(False, expected, None, f"cannot evaluate {path}: {response.json_error}", undecided=True)
    try:
        actual = json_path_values(assertion.compiled, response.json)
    except Exception as error:  # jsonpath-ng can raise on odd data (e.g. arithmetic on strings)
        detail = str(error).splitlines()[0] if str(error) else type(error).__name__
        return Outcome(False, expected, None, f"cannot evaluate {path}: {detail}", undecided=True)
    nothing = ("it matched nothing in the response body", f"{path} matched nothing in the response body")
    return _verdict(
        path, assertion.operator, actual, expected, nothing, condition=assertion.condition, time_limit=time_limit
    )


def _header(
    assertion: HeaderAssertion, response: ResponseReceived, variables: Mapping[str, Any], time_limit: float
) -> Outcome:
    op, name = assertion.operator, assertion.name
    subject = f"header {name}"
    actual = response.header(name)
    expected = render_json(assertion.expected, variables) if assertion.expected is not None else None
    if actual is not None and op in ("==", "!=") and not assertion.condition:
        expected_text = _text(expected)  # a header is text: then:'s == compares text forms
        passed = (actual == expected_text) == (op == "==")
        message = None if passed else _fail_message(subject, op, expected_text, actual, None)
        return Outcome(passed, expected_text, actual, message)
    compared: Any = _SAME
    if actual is not None and negation(op)[1] in _ORDER and _is_number(expected):
        try:
            compared = float(actual)  # a header is text; compare numbers when the assertion asks for one
        except ValueError:
            pass
    return _verdict(
        subject,
        op,
        MISSING if actual is None else actual,
        expected,
        (f"the response has no {name} header",) * 2,
        condition=assertion.condition,
        time_limit=time_limit,
        compared=compared,
    )


def _body(
    assertion: BodyAssertion, response: ResponseReceived, variables: Mapping[str, Any], time_limit: float
) -> Outcome:
    op = assertion.operator
    expected = _text(render_json(assertion.expected, variables))
    actual = response.body
    if op in ("==", "!="):
        passed = (actual == expected) == (op == "==")
        problem = None
    elif op in ("contains", "not contains", "matches"):
        passed, problem = compare(op, actual, expected, time_limit)
    else:
        passed, problem = False, f"body supports contains, not contains, matches, == and !=, not {op}"
    if passed:
        return Outcome(True, expected, actual)
    return Outcome(False, expected, actual, _fail_message("body", op, expected, actual, problem))


def _time(assertion: TimeAssertion, response: ResponseReceived) -> Outcome:
    took = response.elapsed * 1000
    passed = _ORDER[assertion.operator](took, assertion.milliseconds) if assertion.operator in _ORDER else False
    expected = f"{assertion.operator} {assertion.milliseconds:g} ms"
    if passed:
        return Outcome(True, expected, round(took, 1))
    return Outcome(False, expected, round(took, 1), f"expected time {expected}, took {took:.0f} ms")


def _variable(assertion: VariableAssertion, variables: Mapping[str, Any], time_limit: float) -> Outcome:
    """`{{x}} OP V`: BerryCrush's condition rules on a variable's value; no response needed."""
    name = assertion.ref.name
    try:
        actual = variables[name] if name in variables else MISSING
        expected = render_json(assertion.expected, variables) if assertion.expected is not None else None
    except KeyError as error:  # the executor checks references first; this is a fallback
        return Outcome(False, None, None, f"undefined variable {error}", undecided=True)
    if actual is MISSING:
        return Outcome(False, expected, None, f"undefined variable '{name}'", undecided=True)
    return _verdict(
        "{{" + name + "}}", assertion.operator, actual, expected, ("", ""), condition=True, time_limit=time_limit
    )
