"""Checking a `then:` assertion, or a BerryCrush condition (`assert`, `if`), against the last
response (docs/spec/steps.md#assertions, docs/spec/berrycrush.md#conditions): the status, a JSON path, a header, the body, the time, a variable,
and `not` / `and` / `or` over them; what an assertion reads (`assertion_refs`) and how it reads in
a message (`describe`). How two values compare is comparison.py's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Mapping

from scenario_core.language.json_paths import DottedPath, JsonPathFunction
from scenario_core.language.nodes.assertions import (
    NO_RESPONSE,
    AllOf,
    AnyOf,
    Assertion,
    BodyAssertion,
    CustomAssertion,
    HeaderAssertion,
    JsonPathAssertion,
    NotAssertion,
    SchemaAssertion,
    SourceAssertion,
    StatusAssertion,
    TimeAssertion,
    VariableAssertion,
)
from scenario_core.language.nodes.base import JsonTemplate, VariableRef
from scenario_core.language.nodes.walk import leaf_conditions
from scenario_core.language.templates import render_json
from scenario_core.run.comparison import (
    MATCH_SECONDS,
    MISSING,
    ORDER,
    SAME,
    Outcome,
    compare,
    fail_message,
    is_number,
    negation,
    show,
    value_text,
    verdict,
)
from scenario_core.run.events import ResponseReceived
from scenario_core.run.json_path_functions import evaluate

if TYPE_CHECKING:
    from scenario_core.run.body_paths import CompiledPath


def _subject(
    assertion: JsonPathAssertion | HeaderAssertion | BodyAssertion | SourceAssertion | VariableAssertion,
) -> str:
    if isinstance(assertion, JsonPathAssertion):
        return assertion.path
    if isinstance(assertion, HeaderAssertion):
        return f"header {assertion.name}"
    if isinstance(assertion, BodyAssertion):
        return "body"
    if isinstance(assertion, SourceAssertion):
        return assertion.written
    return "{{" + assertion.ref.name + "}}"


def describe(assertion: Assertion) -> str:
    """An assertion as one line of text, for messages that cannot quote the file."""
    if isinstance(assertion, StatusAssertion):
        return f"status {assertion.expectation}"
    if isinstance(assertion, (JsonPathAssertion, HeaderAssertion, BodyAssertion, SourceAssertion, VariableAssertion)):
        subject = _subject(assertion)
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


Custom = Callable[[CustomAssertion, Mapping[str, object]], Outcome]
Schema = Callable[[ResponseReceived], Outcome]


def check(
    assertion: Assertion,
    response: ResponseReceived | None,
    variables: Mapping[str, object],
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
        if type(assertion) is StatusAssertion:
            return _status(assertion, response)
        if type(assertion) is JsonPathAssertion:
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
    if isinstance(assertion, StatusAssertion) and assertion.expects_no_response:
        return _status(assertion, response)
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
    if isinstance(assertion, SourceAssertion):  # cookie, regex, xpath
        from scenario_core.run.response_sources import check_source

        return check_source(assertion, response, variables, time_limit)
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


def _status(assertion: StatusAssertion, response: ResponseReceived | None) -> Outcome:
    expected = assertion.expectation
    if response is None:  # only `status -1` reaches here without one: it expects none
        return Outcome(True, expected, NO_RESPONSE)
    status = response.status
    if assertion.code is not None:
        passed = status == assertion.code
    elif assertion.klass is not None:
        passed = status // 100 == assertion.klass
    elif assertion.pattern is not None:  # `20x`: each x any digit
        digits = str(status)
        passed = len(digits) == len(assertion.pattern) and all(p in ("x", d) for p, d in zip(assertion.pattern, digits))
    elif assertion.low is not None and assertion.high is not None:  # `201-204`
        passed = assertion.low <= status <= assertion.high
    else:  # the parser builds none without one of the four
        passed = False
    if passed:
        return Outcome(True, expected, status)
    if assertion.expects_no_response:
        return Outcome(False, expected, status, f"expected no response (status -1), got status {status}")
    return Outcome(False, expected, status, f"expected status {expected}, got {status}{_snippet(response)}")


def json_path_values(compiled: JsonPathFunction | CompiledPath, data: object) -> object:
    """MISSING when nothing matched, the value for one match, a list for several; a path that
    ends with a Jayway function: the function's value."""
    if type(compiled) is DottedPath:  # most paths: one place at most
        return compiled.value_in(data, MISSING)
    if isinstance(compiled, JsonPathFunction):
        return evaluate(compiled, data)
    matches = compiled.find(data)
    if not matches:
        return MISSING
    if len(matches) == 1:
        return matches[0].value
    return [m.value for m in matches]


def _json_path(
    assertion: JsonPathAssertion, response: ResponseReceived, variables: Mapping[str, object], time_limit: float
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
    if actual is MISSING:
        from scenario_core.run.body_paths import matched_nothing  # failures only: its patterns cost start-up

        where = matched_nothing(path, response.json)
    else:
        where = "matched nothing in the response body"
    nothing = (f"it {where}", f"{path} {where}")
    return verdict(
        path, assertion.operator, actual, expected, nothing, condition=assertion.condition, time_limit=time_limit
    )


def _header(
    assertion: HeaderAssertion, response: ResponseReceived, variables: Mapping[str, object], time_limit: float
) -> Outcome:
    op, name = assertion.operator, assertion.name
    subject = f"header {name}"
    actual = response.header(name)
    expected = render_json(assertion.expected, variables) if assertion.expected is not None else None
    if actual is not None and op in ("==", "!=") and not assertion.condition:
        expected_text = value_text(expected)  # a header is text: then:'s == compares text forms
        passed = (actual == expected_text) == (op == "==")
        message = None if passed else fail_message(subject, op, expected_text, actual, None)
        return Outcome(passed, expected_text, actual, message)
    compared: object = SAME
    if actual is not None and negation(op)[1] in ORDER and is_number(expected):
        try:
            compared = float(actual)  # a header is text; compare numbers when the assertion asks for one
        except ValueError:
            pass
    return verdict(
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
    assertion: BodyAssertion, response: ResponseReceived, variables: Mapping[str, object], time_limit: float
) -> Outcome:
    op = assertion.operator
    expected = value_text(render_json(assertion.expected, variables))
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
    return Outcome(False, expected, actual, fail_message("body", op, expected, actual, problem))


def _time(assertion: TimeAssertion, response: ResponseReceived) -> Outcome:
    took = response.elapsed * 1000
    passed = ORDER[assertion.operator](took, assertion.milliseconds) if assertion.operator in ORDER else False
    expected = f"{assertion.operator} {assertion.milliseconds:g} ms"
    if passed:
        return Outcome(True, expected, round(took, 1))
    return Outcome(False, expected, round(took, 1), f"expected time {expected}, took {took:.0f} ms")


def _variable(assertion: VariableAssertion, variables: Mapping[str, object], time_limit: float) -> Outcome:
    """`{{x}} OP V`: BerryCrush's condition rules on a variable's value; no response needed."""
    name = assertion.ref.name
    try:
        actual = variables[name] if name in variables else MISSING
        expected = render_json(assertion.expected, variables) if assertion.expected is not None else None
    except KeyError as error:  # the executor checks references first; this is a fallback
        return Outcome(False, None, None, f"undefined variable {error}", undecided=True)
    if actual is MISSING:
        return Outcome(False, expected, None, f"undefined variable '{name}'", undecided=True)
    return verdict(
        "{{" + name + "}}", assertion.operator, actual, expected, ("", ""), condition=True, time_limit=time_limit
    )
