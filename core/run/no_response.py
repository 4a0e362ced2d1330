"""`status -1` (docs/spec/steps.md#expecting-no-response, BerryCrush's way to expect no response): whether the running
request's failure to get a response is what the scenario expects, so it does not fail the step."""

from __future__ import annotations

from scenario_core.language.nodes.assertions import Assertion, StatusAssertion
from scenario_core.language.nodes.steps import AssertStep, ConditionalStep, RequestStep
from scenario_core.language.nodes.walk import leaf_conditions
from scenario_core.run.state import ScenarioState


def reads_status_minus_one(condition: Assertion) -> bool:
    return any(isinstance(node, StatusAssertion) and node.expects_no_response for node in leaf_conditions(condition))


def no_response_expected(state: ScenarioState) -> bool:
    """A `status -1` assertion or condition checks the running request: among the steps after it,
    up to the next request (what checks this request's response checks its absence too)."""
    for later in state.plan[state.planned.index + 1 :]:
        step = later.step
        if isinstance(step, RequestStep):
            return False
        if isinstance(step, AssertStep) and reads_status_minus_one(step.assertion):
            return True
        if isinstance(step, ConditionalStep) and any(
            branch.condition is not None and reads_status_minus_one(branch.condition) for branch in step.branches
        ):
            return True
    return False
