"""Custom steps and assertions (Python plugins, scenario_core.custom_steps) as a run runs them: a
described step without directives runs the Python step registered for its rendered description;
`assert <free text>` runs the Python assertion registered for the text. Each gets a StepContext:
the visible variables, `set` (writes the scenario's scope, as an extract does), the last response
and the effective parameters."""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from scenario_core.language.nodes.assertions import CustomAssertion
from scenario_core.language.nodes.steps import DescribedStep
from scenario_core.language.templates import render_text
from scenario_core.run.comparison import MISSING, Outcome
from scenario_core.run.events import SCENARIO, Event, Origin
from scenario_core.run.state import ScenarioState

if TYPE_CHECKING:  # the plugin API is imported only by runs that use it
    from scenario_core.custom_steps.context import StepContext
    from scenario_core.custom_steps.registry import Registry
    from scenario_core.run.assertions import Custom

_STEP_HINT = "custom steps are Python functions, see docs/custom-steps.md"
_ASSERTION_HINT = "custom assertions are Python functions, see docs/custom-steps.md"


def run_custom_step(
    registry: Registry | None, step: DescribedStep, state: ScenarioState, visible: Mapping[str, object]
) -> list[Event]:
    """Run the Python step registered for the step's description: the events of the variables it
    set; its failure, if any, is left in `state.message`."""
    from scenario_core.custom_steps.patterns import PatternTooSlow

    description = render_text(step.description, visible)
    try:
        match = registry.match_step(description) if registry is not None else None
    except PatternTooSlow as slow:
        state.message = str(slow)
        return []
    if match is None:
        state.message = f'no step matches "{description}"; {_STEP_HINT}'
        return []
    events: list[Event] = []
    state.message = match.run(step_context(state, visible, events))
    return events


def step_context(state: ScenarioState, visible: Mapping[str, object], events: list[Event]) -> StepContext:
    """What a Python step or assertion sees; the events of what it sets go to `events`."""
    from scenario_core.custom_steps.context import StepContext

    planned = state.planned
    step = planned.step

    def set_variable(name: str, value: object) -> None:
        origin = Origin(step.location, state.scenario.name, state.feature_name, planned.phase)
        events.extend(state.scope.extract(step, name, value, origin, planned.phase == SCENARIO))
        state.record.extracted.add(name)

    parameters = {key: value.value for key, value in state.params.items()}
    return StepContext(visible, set_variable, state.response, parameters)


def custom_assertion(registry: Registry, state: ScenarioState) -> Custom:
    """check()'s hook for `assert <free text>`: the Python assertion registered for the text."""

    def run(assertion: CustomAssertion, variables: Mapping[str, object]) -> Outcome:
        from scenario_core.custom_steps.patterns import PatternTooSlow

        text = render_text(assertion.text, variables)
        try:
            match = registry.match_assertion(text)
        except PatternTooSlow as slow:
            return Outcome(False, text, None, str(slow))
        if match is None:
            return Outcome(False, None, MISSING, f'no assertion matches "{text}"; {_ASSERTION_HINT}')
        message = match.run(step_context(state, variables, []))  # an async one on a loop of its own
        return Outcome(message is None, text, None, message)

    return run
