"""Edit and continue (docs/spec/scopes.md#editing-while-paused): run the step a paused run has just finished once more, with the
variables as they are now (`Execution.rerun`, which the stepper's `resend` calls).

The executor's stream is paused right after the step's StepFinished; this runs the same planned
step again as the executor runs a step (StepStarted, the step's events, StepFinished) and leaves
its outcome in `state.message`, which the executor reads when the stream is pulled again: a step
that passes on its second try does not fail its scenario.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Iterator

from scenario_core.language.nodes.steps import IncludeStep
from scenario_core.run.events import FAILED, PASSED, Event, PlannedStep, StepFinished, StepStarted
from scenario_core.run.state import ScenarioState, internal_error

if TYPE_CHECKING:
    from scenario_core.run.steps import StepRunner


def cannot_rerun(planned: PlannedStep) -> str | None:
    """Why this planned step cannot run again once finished, or None."""
    if isinstance(planned.step, IncludeStep):
        return "an include binds its fragment's arguments once: r restarts the run"
    if planned.unbind:
        return "this step ends an included fragment, whose arguments are gone now: r restarts the run"
    return None


def rerun_step(steps: StepRunner, state: ScenarioState) -> Iterator[Event]:
    """The events of `state.planned` run again."""
    planned = state.planned
    step, scope = planned.step, state.scope
    yield StepStarted(step=step, phase=planned.phase, via=planned.via, index=planned.index, snapshot=scope.snapshot())
    started = time.perf_counter()
    state.message = None
    state.interrupted = state.internal = False
    state.consumed.discard(planned.index)  # an auto-test check re-sent: it checks the last response
    try:
        for event in steps.execute(step, state):
            yield event
    except Exception as error:  # as in the executor: a bug of ours, said so, never a traceback
        state.message = internal_error(error)
        state.internal = True
    yield StepFinished(
        step=step,
        phase=planned.phase,
        via=planned.via,
        index=planned.index,
        status=PASSED if state.message is None else FAILED,
        message=state.message,
        elapsed=time.perf_counter() - started,
        snapshot=scope.snapshot(),
        interrupted=state.interrupted,
    )
