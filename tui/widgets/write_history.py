"""Every write of every variable in this run, oldest first: what the value viewer lists as a
variable's history (old → new). Fed by the scope log, which sees the executor's VariableOverwritten
and VariableExtracted events as they flow; cleared with the run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scenario_core.run import events as ev

NEW = object()  # `old` of a write that created the name in its scenario
MAX_WRITES = 1000  # per name: a 2,000-scenario run writing the same name keeps the latest


@dataclass(frozen=True, slots=True)
class Write:
    scenario: str | None  # the scenario that was running
    step: Any  # the extract: step
    old: Any  # NEW when the scenario layer did not hold the name yet
    new: Any
    layers: tuple[str, ...]  # where it went: ("scenario",) or ("scenario", "feature 'Pets'")


class WriteHistory:
    def __init__(self) -> None:
        self._writes: dict[str, list[Write]] = {}
        self._old: dict[str, Any] = {}  # VariableOverwritten comes right before its VariableExtracted
        self._scenario: str | None = None
        self.dropped: dict[str, int] = {}

    def clear(self) -> None:
        self.__init__()

    def record(self, event: ev.Event) -> None:
        if isinstance(event, ev.ScenarioStarted):
            self._scenario = event.scenario.name
        elif isinstance(event, ev.VariableOverwritten):
            self._old.setdefault(event.name, event.old)  # the scenario layer's comes first
        elif isinstance(event, ev.VariableExtracted):
            writes = self._writes.setdefault(event.name, [])
            writes.append(
                Write(self._scenario, event.step, self._old.pop(event.name, NEW), event.value, tuple(event.layers))
            )
            if len(writes) > MAX_WRITES:
                del writes[0]
                self.dropped[event.name] = self.dropped.get(event.name, 0) + 1

    def of(self, name: str) -> list[Write]:
        return list(self._writes.get(name, ()))
