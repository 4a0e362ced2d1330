"""Checking a `then:` assertion against the last response (semantics.md §4).

Values compare as JSON values: `1 == 1.0`, but `true != 1`; ordering needs two numbers or two
strings (lexicographic); a JSON path matching several values compares the list of them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping

from .events import ResponseReceived
from .json_depth import MAX_DEPTH, cut_depth, cut_marker  # noqa: F401 - cut_depth is used by reports too
from .nodes import (
    Assertion, BodyAssertion, HeaderAssertion, JsonPathAssertion, StatusAssertion, TimeAssertion,
)
from .templates import render_json, text_form


@dataclass(frozen=True, slots=True)
class Outcome:
    passed: bool
    expected: Any
    actual: Any
    message: str | None = None


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
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


def compare(op: str, actual: Any, expected: Any, time_limit: float = MATCH_SECONDS) -> tuple[bool, str | None]:
    """(passed, problem): `problem` explains an operation that cannot apply to these types."""
    if op == "==":
        return json_equal(actual, expected), None
    if op == "!=":
        return not json_equal(actual, expected), None
    if op in _ORDER:
        if (_is_number(actual) and _is_number(expected)) or (isinstance(actual, str) and isinstance(expected, str)):
            return _ORDER[op](actual, expected), None
        return False, (f"cannot order {type_name(actual)} against {type_name(expected)}: "
                       "< <= > >= compare two numbers or two strings")
    if op in ("contains", "not contains"):
        if isinstance(actual, str):
            found = _text(expected) in actual
        elif isinstance(actual, list):
            found = any(json_equal(item, expected) for item in actual)
        elif isinstance(actual, dict):
            if not isinstance(expected, str):
                return False, f"an object contains keys (strings), not a {type_name(expected)}"
            found = expected in actual
        else:
            return False, f"contains needs a string, a list or an object, got {type_name(actual)}"
        return found == (op == "contains"), None
    if op == "matches":
        return _matches(expected, actual, time_limit)
    return False, f"unknown operator '{op}'"


def _text(value: Any) -> str:
    """text_form for a value of any depth (json.dumps dies with RecursionError on deep ones)."""
    return text_form(cut_depth(value))


def _matches(expected: Any, actual: Any, time_limit: float) -> tuple[bool, str | None]:
    # The `regex` package, not `re`: it takes a timeout (re cannot be interrupted at all) and is
    # what check-time validation compiles patterns with. Imported here: most runs never match.
    import regex

    pattern = expected if isinstance(expected, str) else _text(expected)
    subject = _text(actual)
    try:
        return regex.search(pattern, subject, timeout=time_limit) is not None, None
    except regex.error as error:
        return False, f"invalid regular expression {show(pattern)}: {error}"
    except TimeoutError:
        return False, (f"the regular expression {show(pattern)} took over {time_limit:g} s on a "
                       f"{len(subject)}-character value and was stopped; make it simpler "
                       "(nested repetition such as (a|a)* backtracks without end)")


def _fail_message(subject: str, op: str, expected: Any, actual: Any, problem: str | None) -> str:
    message = f"expected {subject} {op} {show(expected)}, got {show(actual)}"
    return f"{message}: {problem}" if problem else message


def check(assertion: Assertion, response: ResponseReceived, variables: Mapping[str, Any],
          time_limit: float = MATCH_SECONDS) -> Outcome:
    """Evaluate one assertion; never raises for anything a response can contain. `time_limit`
    bounds a `matches` search, in seconds."""
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
    return Outcome(False, None, None, f"unknown assertion {type(assertion).__name__}")


def _snippet(response: ResponseReceived) -> str:
    body = " ".join(response.body.split())
    if not body:
        return ""
    return f" (body: {body if len(body) <= 100 else body[:99] + '…'})"


def _status(assertion: StatusAssertion, response: ResponseReceived) -> Outcome:
    status = response.status
    if assertion.code is not None:
        expected: Any = assertion.code
        passed = status == assertion.code
    else:
        expected = f"{assertion.klass}xx"
        passed = status // 100 == assertion.klass
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


def _json_path(assertion: JsonPathAssertion, response: ResponseReceived, variables: Mapping[str, Any],
               time_limit: float) -> Outcome:
    op, path = assertion.operator, assertion.path
    expected = render_json(assertion.expected, variables) if assertion.expected is not None else None
    if not response.is_json:
        return Outcome(False, expected, None, f"cannot evaluate {path}: {response.json_error}")
    try:
        actual = json_path_values(assertion.compiled, response.json)
    except Exception as error:  # jsonpath-ng can raise on odd data (e.g. arithmetic on strings)
        return Outcome(False, expected, None, f"cannot evaluate {path}: {str(error).splitlines()[0] if str(error) else type(error).__name__}")
    if op == "exists":
        if actual is MISSING:
            return Outcome(False, None, actual, f"expected {path} to exist, it matched nothing in the response body")
        return Outcome(True, None, actual)
    if op == "not exists":
        if actual is MISSING:
            return Outcome(True, None, actual)
        return Outcome(False, None, actual, f"expected {path} not to exist, got {show(actual)}")
    if actual is MISSING:
        return Outcome(False, expected, actual, f"expected {path} {op} {show(expected)}, "
                                                f"but {path} matched nothing in the response body")
    passed, problem = compare(op, actual, expected, time_limit)
    if passed:
        return Outcome(True, expected, actual)
    return Outcome(False, expected, actual, _fail_message(path, op, expected, actual, problem))


def _header(assertion: HeaderAssertion, response: ResponseReceived, variables: Mapping[str, Any],
            time_limit: float) -> Outcome:
    op, name = assertion.operator, assertion.name
    subject = f"header {name}"
    actual = response.header(name)
    expected = render_json(assertion.expected, variables) if assertion.expected is not None else None
    if op == "exists":
        if actual is None:
            return Outcome(False, None, MISSING, f"expected {subject} to exist, the response has no {name} header")
        return Outcome(True, None, actual)
    if op == "not exists":
        if actual is None:
            return Outcome(True, None, MISSING)
        return Outcome(False, None, actual, f"expected {subject} not to exist, got {show(actual)}")
    if actual is None:
        return Outcome(False, expected, MISSING,
                       f"expected {subject} {op} {show(expected)}, but the response has no {name} header")
    value: Any = actual
    if op in _ORDER and _is_number(expected):
        try:
            value = float(actual)  # a header is text; compare numbers when the assertion asks for one
        except ValueError:
            pass
    elif op in ("==", "!="):
        expected_text = _text(expected)
        passed = (actual == expected_text) == (op == "==")
        message = None if passed else _fail_message(subject, op, expected_text, actual, None)
        return Outcome(passed, expected_text, actual, message)
    passed, problem = compare(op, value, expected, time_limit)
    if passed:
        return Outcome(True, expected, actual)
    return Outcome(False, expected, actual, _fail_message(subject, op, expected, actual, problem))


def _body(assertion: BodyAssertion, response: ResponseReceived, variables: Mapping[str, Any],
          time_limit: float) -> Outcome:
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
