"""The checking steps of a run: `then:` / BerryCrush's `assert` against the last response (and the
conditions of `if`), with the run's own hooks for what assertions.py cannot know (`schema`: the
called operation's; free text: a Python assertion); and `extract:` of a value from the response.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from scenario_core.language.nodes.assertions import (
    Assertion,
    BodyAssertion,
    HeaderAssertion,
    JsonPathAssertion,
    SchemaAssertion,
    SourceAssertion,
    StatusAssertion,
    TimeAssertion,
    VariableAssertion,
)
from scenario_core.language.nodes.steps import AssertStep, ExtractStep
from scenario_core.language.nodes.walk import leaf_conditions
from scenario_core.language.parameter_keys import STRICT_SCHEMA
from scenario_core.run.assertions import Schema, check, json_path_values
from scenario_core.run.comparison import MISSING, Outcome
from scenario_core.run.custom_step_runs import custom_assertion
from scenario_core.run.events import AssertionChecked, ResponseReceived
from scenario_core.run.operation_calls import schema_message
from scenario_core.run.state import ScenarioState, one_line

if TYPE_CHECKING:
    from scenario_core.custom_steps.registry import Registry

# Assertions check() evaluates on its own (no custom or schema hook inside).
_PLAIN_ASSERTIONS = frozenset(
    (StatusAssertion, JsonPathAssertion, HeaderAssertion, BodyAssertion, SourceAssertion, TimeAssertion)
)


def checks_without_response(assertion: Assertion) -> bool:
    """A condition on variables alone (`{{x}} equals 1`, also under not / and / or) needs no
    response; neither does `status -1`, which expects none (docs/spec/steps.md#expecting-no-response)."""
    return all(
        isinstance(node, VariableAssertion) or (isinstance(node, StatusAssertion) and node.expects_no_response)
        for node in leaf_conditions(assertion)
    )


def assertion_checked(
    step: AssertStep, state: ScenarioState, visible: Mapping[str, object], registry: Registry | None
) -> AssertionChecked | None:
    """Check an assertion step: its event, its failure left in `state.message` (None and a failure
    when `then: schema` has no response to check)."""
    if isinstance(step.assertion, SchemaAssertion):
        response = state.response
        if response is None:
            state.message = f"no response to check: {step.keyword} needs a request before it"
            return None
        problems: list[str] = []
        operation = state.operation
        message = schema_message(operation, response, state.params[STRICT_SCHEMA].value, problems, state.params.timeout)
        state.message = message
        # `actual`: each offending value as `$.path: expected …, got …`, for the TUI.
        return AssertionChecked(
            step=step,
            passed=message is None,
            expected="the response schema of " + (operation.label if operation else "an operation"),
            actual=problems or None,
            message=message,
        )
    outcome = check_in_run(step.assertion, state, visible, registry)
    actual = None if outcome.actual is MISSING else outcome.actual
    if not outcome.passed:
        state.message = outcome.message or "assertion failed"
    return AssertionChecked(
        step=step, passed=outcome.passed, expected=outcome.expected, actual=actual, message=outcome.message
    )


def check_in_run(
    assertion: Assertion, state: ScenarioState, visible: Mapping[str, object], registry: Registry | None
) -> Outcome:
    """assertions.check with the run's hooks; an assertion that needs a response and has none fails."""
    if state.response is None and not checks_without_response(assertion):
        keyword = getattr(state.planned.step, "keyword", "then")
        need = "a when: step" if keyword == "then" else "a call"
        return Outcome(False, None, MISSING, f"no response to check: {keyword} needs {need} before it")
    if type(assertion) in _PLAIN_ASSERTIONS:  # nothing of the run's is needed: no hooks to make
        return check(assertion, state.response, visible)
    custom = custom_assertion(registry, state) if registry is not None else None
    return check(assertion, state.response, visible, custom=custom, schema=_schema_check(state))


def _schema_check(state: ScenarioState) -> Schema:
    """check()'s hook for `schema` inside not / and / or: the called operation's schema."""

    def run(response: ResponseReceived) -> Outcome:
        message = schema_message(
            state.operation, response, state.params[STRICT_SCHEMA].value, timeout=state.params.timeout
        )
        return Outcome(message is None, "the response schema", None, message)

    return run


def extracted(step: ExtractStep, response: ResponseReceived | None) -> tuple[object, str | None]:
    """The value an extract step takes from the response: (value, None) or (None, why not)."""
    if response is None:
        return None, "no response to extract from: extract needs a when: step before it"
    if step.source in ("cookie", "text", "regex", "xpath"):
        from scenario_core.run.response_sources import extract_source

        return extract_source(step.source, step.compiled, step.path, step.name, response)
    if step.source == "header":
        value: object = response.header(step.path)
        if value is None:
            return None, f"the response has no {step.path} header to extract {step.name} from"
        return value, None
    if not response.is_json:
        return None, f"cannot extract {step.name} from {step.path}: {response.json_error}"
    try:
        value = json_path_values(step.compiled, response.json)
    except Exception as error:
        return None, f"cannot evaluate {step.path}: {one_line(error)}"
    if value is MISSING:
        from scenario_core.run.body_paths import matched_nothing  # failures only: its patterns cost start-up

        return None, f"{step.path} {matched_nothing(step.path, response.json)}"
    return value, None
