"""What the inspector can have on view: a step (with its run), or a note about another node."""

from __future__ import annotations

from typing import NamedTuple, Sequence

from rich.console import RenderableType

from scenario_core.language.errors import Diagnostic
from scenario_core.language.nodes.steps import Step
from scenario_core.run import events as ev
from scenario_core.run.stepper import StepRun


class StepView(NamedTuple):
    """A step on view: its run (None: not run yet), whether the run is paused just before it, the
        scenario it ran in, the static warnings about it, and paused before a request, the request as it
    will be sent."""

    step: Step
    run: StepRun | None
    about_to_run: bool = False
    scenario: str | None = None
    warnings: Sequence[Diagnostic] = ()
    preview: ev.RequestSent | str | None = None  # paused before a request: as it will be sent, or why not


class NoteView(NamedTuple):
    """Any other node on view (a scenario, a file, a block): a title and its lines."""

    title: str
    lines: Sequence[RenderableType]
