"""A step's run as the stepper records it (run/stepper.py): its request, its response, what it
checked and extracted, its outcome, and where the TUI shows it. Apart from the stepper so the
record's shape reads on its own."""

from __future__ import annotations

from typing import Callable, Literal, Union

from scenario_core.language.nodes.blocks import FeatureNode, ScenarioNode
from scenario_core.language.nodes.steps import DescribedStep, IncludeStep, Step
from scenario_core.run import events as ev
from scenario_core.support.records import dataclass, field

# A node's place in the TUI's suite tree (widgets/tree_items.py): its file's number, then one part
# per level: (kind, name, occurrence) for a feature, scenario or fragment, (kind,) for a file's
# parameters or background and a scenario's phase, ("step", index) for a step.
KeyPart = Union[int, tuple[str], tuple[str, int], tuple[str, str, int]]
Key = tuple[KeyPart, ...]


@dataclass(eq=False)
class StepRun:
    """One step run (or skipped) within one scenario."""

    step: Step
    phase: str
    via: tuple[IncludeStep, ...]
    index: int
    scenario: ScenarioNode
    feature: FeatureNode | None
    status: ev.Status | Literal["running"] = "running"
    message: str | None = None
    elapsed: float = 0.0
    request: ev.RequestSent | None = None
    response: ev.ResponseReceived | None = None
    read_response: ev.ResponseReceived | None = None  # the response a then:/extract: step read
    read_request: ev.RequestSent | None = None  # the request that response answered (`y` copies it)
    assertion: ev.AssertionChecked | None = None
    branch: ev.BranchTaken | None = None  # an if chain: the branch taken and the conditions tried
    auto_tests: list[ev.AutoTestRan] = field(default_factory=list)
    retries: list[ev.RequestRetried] = field(default_factory=list)  # each attempt retried, and why
    extracted: list[ev.VariableExtracted] = field(default_factory=list)
    overwritten: list[ev.VariableOverwritten] = field(default_factory=list)
    before: ev.ScopeSnapshot | None = None
    after: ev.ScopeSnapshot | None = None
    parent: DescribedStep | None = None  # the described step a directive is under
    key: Key | None = None  # where the TUI shows it (set by the app)
    definitions: list[Key] = field(default_factory=list)  # the background / fragment it is written in
    replaces: StepRun | None = None  # re-sent (edit and continue): the earlier run of this step
    read_from: int | None = None  # the plan index of the step whose response it reads
    resent: tuple[StepRun, ...] = ()  # re-sent after a then:/extract:: the steps run again before it

    @property
    def changed(self) -> frozenset[str]:
        return frozenset(e.name for e in self.extracted)


def _set(name: str) -> Callable[[StepRun, ev.Event], None]:
    return lambda run, event: setattr(run, name, event)


def _append(name: str) -> Callable[[StepRun, ev.Event], None]:
    return lambda run, event: getattr(run, name).append(event)


# What each event of a running step adds to its record (the stepper's table, as run.consumers'
# consumers have one): the event's exact type -> how it is folded in.
FOLD: dict[type, Callable[[StepRun, ev.Event], None]] = {
    ev.RequestSent: _set("request"),
    ev.ResponseReceived: _set("response"),
    ev.AssertionChecked: _set("assertion"),
    ev.BranchTaken: _set("branch"),
    ev.AutoTestRan: _append("auto_tests"),
    ev.RequestRetried: _append("retries"),
    ev.VariableExtracted: _append("extracted"),
    ev.VariableOverwritten: _append("overwritten"),
}
