"""A request as it will be sent, built while the run is paused before it and never sent: its
method, final URL, headers and body with the variables as they are now (edits included). The
TUI's inspector shows it in place of the template; masking is the front end's, as for a request
sent. Built by the same code as the request the step sends (run/sending.py, run/operation_calls.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from scenario_core.language.nodes.steps import RequestStep
from scenario_core.run.events import RequestSent
from scenario_core.run.http.client import RequestFailed
from scenario_core.run.state import ScenarioState, one_line

if TYPE_CHECKING:
    from scenario_core.run.steps import StepRunner


def preview_request(steps: StepRunner, step: RequestStep, state: ScenarioState) -> RequestSent | str:
    """The request `step` would send now, or why it cannot be built (one line)."""
    visible, missing = steps.references(step, state)
    if missing is not None:
        return f"'{missing[0]}' is not defined here yet, so the request cannot be built ({missing[1]})"
    operation = None
    placements: tuple[tuple[str, str, str], ...] = ()
    file = state.run.file.path
    try:
        if step.operation is not None:
            request, body_text, _, operation, placements = steps.calls.build(step, visible, state.params, file)
        elif step.raw is not None:
            from scenario_core.run.raw_calls import build_raw_call

            request, body_text, _, operation, placements = build_raw_call(
                steps.calls, step, visible, state.params, file
            )
        else:
            request, body_text, _ = steps.sender.build(step, visible, state.params, file, steps.calls.resource_roots)
    except RequestFailed as failed:
        return str(failed)
    except Exception as error:  # whatever building would fail with when it runs: said in one line
        return one_line(error)
    return RequestSent(
        step=step,
        method=request.method,
        url=request.url,
        headers=tuple(request.headers),
        body=body_text,
        operation=operation.label if operation is not None else None,
        placements=placements,
        summary=operation.summary if operation is not None else "",
    )
