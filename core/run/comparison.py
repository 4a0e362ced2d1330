"""Comparing values as JSON values, the operators of `then:` and of BerryCrush's conditions
(docs/spec/steps.md#assertions, docs/spec/berrycrush.md#conditions), and how a value reads in a message.

`1 == 1.0`, but `true != 1`; ordering needs two numbers or two strings (lexicographic); a JSON path
matching several values compares the list of them. A condition's `equals` also takes a string for
the number or boolean it spells (`"1" equals 1`). `verdict` puts an operator, a value and the
message together into the `Outcome` of one assertion (assertions.py evaluates the assertions).
"""

from __future__ import annotations

import json
from typing import TypeGuard, cast

from scenario_core.language.templates import text_form
from scenario_core.support.json_depth import cut_depth
from scenario_core.support.records import dataclass


@dataclass(frozen=True, slots=True)
class Outcome:
    passed: bool
    expected: object
    actual: object
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


def show(value: object, width: int = 120) -> str:
    """A value as the user reads it in a message: JSON, one line, clipped."""
    if value is MISSING:
        return "nothing"
    try:
        text = json.dumps(cut_depth(value), ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = type_name(value)
    text = " ".join(text.split()) if "\n" in text else text
    return text if len(text) <= width else text[: width - 1] + "…"


def type_name(value: object) -> str:
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


def json_equal(a: object, b: object) -> bool:
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


def is_number(value: object) -> TypeGuard[int | float]:
    """A JSON number: an int or a float, never a boolean."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# The ordering operators, shared by `then:` and conditions (and `time < 500ms`).
ORDER = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


# Operators that take no value; they decide on a value that is not there, too.
NO_OPERAND = ("exists", "notEmpty", "empty")


def negation(op: str) -> tuple[bool, str]:
    """An operator as (negated, the operator it negates): `not contains` -> (True, "contains"),
    `!=` -> (True, "=="), `hasSize` -> (False, "hasSize")."""
    if op == "!=":
        return True, "=="
    if op.startswith("not "):
        return True, op[4:]
    return False, op


def loose_equal(a: object, b: object) -> bool:
    """BerryCrush's `equals`: JSON equality, or a string equal to the JSON text of a number or
    boolean (`"1" equals 1`, `"true" equals true`; `"1.0"` is not 1)."""
    if json_equal(a, b):
        return True
    if isinstance(a, str) and isinstance(b, (int, float)):
        return a == value_text(b)
    if isinstance(b, str) and isinstance(a, (int, float)):
        return b == value_text(a)
    return False


def _empty(value: object) -> bool:
    # BerryCrush's notEmpty: only nothing, null, "" and [] are empty (an object never is).
    return value is MISSING or value is None or (isinstance(value, (str, list)) and not value)


def compare(
    op: str, actual: object, expected: object, time_limit: float = MATCH_SECONDS, *, condition: bool = False
) -> tuple[bool, str | None]:
    """(passed, problem): `problem` explains an operation that cannot apply to these types (the
    comparison then fails, negated or not). `condition`: BerryCrush's rules (conditions.py):
    `matches` matches the whole value and `in` compares as `equals`; otherwise ours (`then:`)."""
    negated, base = negation(op)
    holds, problem = _apply(base, actual, expected, time_limit, condition)
    if problem:
        return False, problem
    return holds != negated, None


def _apply(op: str, actual: object, expected: object, time_limit: float, condition: bool) -> tuple[bool, str | None]:
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
    if op in ORDER:
        if (is_number(actual) and is_number(expected)) or (isinstance(actual, str) and isinstance(expected, str)):
            return ORDER[op](actual, expected), None
        return False, (
            f"cannot order {type_name(actual)} against {type_name(expected)}: "
            "< <= > >= compare two numbers or two strings"
        )
    if op == "contains":
        if isinstance(actual, str):
            return value_text(expected) in actual, None
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
        text, part = value_text(actual), value_text(expected)
        return (text.startswith(part) if op == "startsWith" else text.endswith(part)), None
    if op == "hasSize":
        if (
            isinstance(expected, bool)
            or not is_number(expected)
            or expected < 0
            or (isinstance(expected, float) and not expected.is_integer())
        ):
            return False, f"hasSize needs a whole number, got {show(expected)}"
        if not isinstance(actual, (list, str, dict)):
            return False, f"hasSize needs an array, a string or an object, got {type_name(actual)}"
        return len(actual) == expected, None
    return False, f"unknown operator '{op}'"


def value_text(value: object) -> str:
    """text_form for a value of any depth (json.dumps dies with RecursionError on deep ones)."""
    return text_form(cut_depth(value))


def _matches(expected: object, actual: object, time_limit: float, whole: bool = False) -> tuple[bool, str | None]:
    # The `regex` package, not `re`: it takes a timeout (re cannot be interrupted at all) and is
    # what check-time validation compiles patterns with. Imported here: most runs never match.
    import regex

    pattern = expected if isinstance(expected, str) else value_text(expected)
    subject = value_text(actual)
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


def fail_message(subject: str, op: str, expected: object, actual: object, problem: str | None) -> str:
    """`expected SUBJECT OP EXPECTED, got ACTUAL`, and the problem that kept the operator from applying."""
    message = f"expected {subject} {op} {show(expected)}, got {show(actual)}"
    return f"{message}: {problem}" if problem else message


SAME = object()  # verdict's `compared` when the operator sees `actual` itself


def verdict(
    subject: str,
    op: str,
    actual: object,
    expected: object,
    nothing: tuple[str, str],
    *,
    condition: bool,
    time_limit: float,
    compared: object = SAME,
) -> Outcome:
    """One operator on one value, with the message. `actual` is MISSING when there is nothing;
    `nothing` then says so after "expected X to exist, " and after "but " ("it matched nothing in
    the response body", "$.id matched nothing in the response body"). `compared`, when given, is
    what the operator sees instead of `actual` (a header's text as a number)."""
    negated, base = negation(op)
    value = actual if compared is SAME else compared
    written = f"{subject} {op}" if base in NO_OPERAND else f"{subject} {op} {show(expected)}"
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
    if actual is MISSING and base not in NO_OPERAND and not (condition and base == "equals"):
        return Outcome(False, expected, actual, f"expected {written}, but {nothing[1]}", undecided=True)
    holds, problem = _apply(base, value, expected, time_limit, condition)
    if problem:
        return Outcome(False, expected, actual, f"expected {written}, got {show(actual)}: {problem}", undecided=True)
    if holds != negated:
        return Outcome(True, expected, actual)
    if actual is MISSING:
        return Outcome(False, expected, actual, f"expected {written}, but {nothing[1]}")
    # hasSize applied without a problem: a list, a string or an object
    size = f" (size {len(cast('list[object] | str | dict[str, object]', value))})" if base == "hasSize" else ""
    return Outcome(False, expected, actual, f"expected {written}, got {show(actual)}{size}")
