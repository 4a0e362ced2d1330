"""What the header line says about a run: its state (with the scenario it is about, which the
header clips first) and the counts, in the words `run`'s summary uses (passed, failed, skipped),
plus, after a stop, what was stopped and what never ran.

A step written in a fragment is named by where its line is (`line 14 of fragment
'login'`), then the scenario that ran it (the header then says `in 'create a pet'`)."""

from __future__ import annotations

from scenario_core.run.events import Counts
from scenario_core.run.stepper import CONTINUE, DRAIN, FINISHED, IDLE, PAUSED, RUNNING, Stepper, StepRun
from scenario_tui.widgets.inspector_request import path_of

READY = "ready — n steps, c runs"


def state_line(stepper: Stepper, stopped_at: int | None, seconds: str) -> tuple[str, str]:
    """(state, scenario name): `paused at breakpoint, line 39` and `read pet`."""
    state = stepper.state
    current = stepper.current
    if state == IDLE:
        return READY, ""
    if state == RUNNING:
        text = {CONTINUE: "running", DRAIN: "stopping"}.get(stepper.mode or "", "stepping")
        if current is None:
            return text + "…", ""
        return f"{text} {current.step.keyword} {_line(current)}…", current.scenario.name
    if state == PAUSED:
        failed = stepper.paused_after
        if stepper.pause_reason == "failure" and failed is not None:
            return f"paused on failure, {_line(failed)}", failed.scenario.name
        if stepper.pause_reason == "resent" and failed is not None:  # edit and continue: `a`
            return _resent(failed), failed.scenario.name
        if current is None:
            return "paused", ""
        if stepper.pause_reason == "breakpoint":
            return f"paused at breakpoint, {_line(current)}", current.scenario.name
        return f"paused before {current.step.keyword} {_line(current)}", current.scenario.name
    if state == FINISHED and stepper.finished is not None:
        done = stepper.finished
        if done.interrupted:
            text = f"stopped at line {stopped_at}" if stopped_at is not None else "stopped"
        elif not done.total:
            text = "finished: no scenario to run"
        else:
            text = "finished: failed" if done.failed else "finished: passed"
            if seconds:
                text += f" in {seconds}"
        return text + " — r restarts", ""
    return state, ""


def _resent(run: StepRun) -> str:
    """`passed after re-sending GET /pets/1 → 200, line 14`: a then:/extract: with the request it
    reads sent again first; `failed when re-sent, line 12` for a step re-sent itself."""
    sent = next((earlier for earlier in run.resent if earlier.request is not None), None)
    if sent is None or sent.request is None:
        return f"{run.status} when re-sent, {_line(run)}"
    answer = f" → {sent.response.status}" if sent.response is not None else ""
    return f"{run.status} after re-sending {sent.request.method} {path_of(sent.request.url)}{answer}, {_line(run)}"


def _line(run: StepRun) -> str:
    """`line 14`, and where that line is when it is not in the scenario itself."""
    line = f"line {run.step.location.line}"
    if run.via:  # the innermost include: the fragment the line is written in
        return f"{line} of fragment '{run.via[-1].fragment}'"
    return line


def counts_line(counts: Counts, scenarios: int, interrupted: bool) -> str:
    """`1 passed · 0 failed · 0 skipped · 1 stopped · 3 not run` (the last two only after a stop)."""
    passed, failed, skipped, stopped = counts.passed, counts.failed, counts.skipped, counts.stopped
    if not counts.total():
        return ""
    text = f"{passed} passed · {failed} failed · {skipped} skipped"
    if stopped:
        text += f" · {stopped} stopped"
    not_run = scenarios - counts.total()
    if interrupted and not_run > 0:
        text += f" · {not_run} not run"
    return text
