"""Every write of every variable in this run, oldest first: what the value viewer lists as a
variable's history (old → new). Fed by the scope log, which sees the executor's VariableOverwritten
and VariableExtracted events as they flow; cleared with the run."""

from __future__ import annotations

from dataclasses import dataclass

from scenario_core.language.nodes.steps import Step
from scenario_core.run import events as ev
from scenario_core.run.edits import REMOVED, SET, VariableEdited

NEW = object()  # `old` of a write that created the name in its scenario
MAX_WRITES = 1000  # per name: a 2,000-scenario run writing the same name keeps the latest


@dataclass(frozen=True, slots=True)
class Write:
    scenario: str | None  # the scenario that was running
    step: Step | None  # the extract: step; for an edit, the step the run was paused at (or None)
    old: object  # NEW when the scenario layer did not hold the name yet
    new: object
    layers: tuple[str, ...]  # where it went: ("scenario",) or ("scenario", "feature 'Pets'")
    edited: bool = False  # set by the user while paused (edit and continue), not by an extract


class WriteHistory:
    def __init__(self) -> None:
        self._writes: dict[str, list[Write]] = {}
        self._old: dict[str, object] = {}  # VariableOverwritten comes right before its VariableExtracted
        self._scenario: str | None = None
        self.dropped: dict[str, int] = {}

    def clear(self) -> None:
        self._writes.clear()
        self._old.clear()
        self._scenario = None
        self.dropped.clear()

    def record(self, event: ev.Event) -> None:
        if isinstance(event, ev.ScenarioStarted):
            self._scenario = event.scenario.name
        elif isinstance(event, ev.VariableOverwritten):
            self._old.setdefault(event.name, event.old)  # the scenario layer's comes first
        elif isinstance(event, ev.VariableExtracted):
            old = self._old.pop(event.name, NEW)
            self._append(event.name, Write(self._scenario, event.step, old, event.value, tuple(event.layers)))

        elif isinstance(event, VariableEdited) and event.action != REMOVED:
            old = NEW if event.action == SET else event.old
            self._append(event.name, Write(self._scenario, event.step, old, event.new, (event.layer,), edited=True))

    def _append(self, name: str, write: Write) -> None:
        writes = self._writes.setdefault(name, [])
        writes.append(write)
        if len(writes) > MAX_WRITES:
            del writes[0]
            self.dropped[name] = self.dropped.get(name, 0) + 1

    def of(self, name: str) -> list[Write]:
        return list(self._writes.get(name, ()))
