"""A scenario's plan as the run and the static analysis see it: the step phases, in the order
they run, and one planned step. Apart from run.events so that `check` never creates the event
classes (their creation is a noticeable part of start-up)."""

from __future__ import annotations

from scenario_core.language.nodes.steps import DescribedStep, IncludeStep, Step
from scenario_core.support.records import dataclass

BACKGROUND_FILE, BACKGROUND_FEATURE, SCENARIO = "background:file", "background:feature", "scenario"


@dataclass(frozen=True, slots=True)
class PlannedStep:
    """One step of a scenario's flattened plan: backgrounds first, includes expanded in place."""

    step: Step  # an IncludeStep only when it binds arguments (BerryCrush's `include x` + `name: v`)
    phase: str
    via: tuple[IncludeStep, ...] = ()  # the include: steps it came through, outermost first
    index: int = 0  # position in the scenario's plan
    parent: DescribedStep | None = None  # the described step (`when I create a pet`) this directive is under
    unbind: tuple[IncludeStep, ...] = ()  # includes whose arguments are restored after this step
    cleanup: bool = False  # under the scenario's `finally:` block: runs even after a failure

    @property
    def line(self) -> int:
        return self.step.location.line

    @property
    def keyword(self) -> str:
        return self.step.keyword
