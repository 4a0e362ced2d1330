"""The units of a scope-parallel run (`run --jobs N --dist scope`, docs/spec/scopes.md#scope-parallel-runs): what may
run at the same time as something else without either seeing the other's variables.

- an isolated scenario (no sharing store applies to it) is a unit of its own;
- a feature whose scenarios share their own store is one unit, its scenarios in order;
- a file where any scenario uses the file store (file-level sharing) is one unit, whole and in
  order: its sharing scenarios may be interleaved with isolated ones, and output keeps source order;
- a file with a `webhook` step anywhere is one unit, whole: a receiver listens on a port, and two
  units of one file would ask for the same one at once.

A feature whose isolated scenarios fall into several units opens in the first and closes in the
last (`feature_opens` / `feature_closes`); a file opens in its first unit and closes in its last.
Units are listed in source order, file after file."""

from __future__ import annotations

from typing import Iterator, Sequence

from scenario_core.language.nodes.blocks import FeatureNode, ScenarioFileNode, ScenarioNode
from scenario_core.language.nodes.steps import WebhookStep
from scenario_core.language.nodes.walk import step_blocks, walk_steps
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.parameters.sharing import store_for
from scenario_core.run.events import (
    Event,
    FeatureFinished,
    FeatureStarted,
    FileFinished,
    FileStarted,
    RunFinished,
    RunStarted,
)
from scenario_core.run.state import FileRun
from scenario_core.support.records import dataclass, replace


@dataclass(frozen=True, slots=True, kw_only=True)
class Unit:
    """`nodes`: the ids of the features and scenarios it runs (Execution's `only`);
    `file_opens` / `file_closes`: its file's first and last unit; `feature_opens` /
    `feature_closes`: ids of the features whose FeatureStarted / FeatureFinished it gives."""

    file: ScenarioFileNode
    nodes: frozenset[int] | None  # None: the whole file
    label: str
    file_opens: bool = False
    file_closes: bool = False
    feature_opens: frozenset[int] = frozenset()
    feature_closes: frozenset[int] = frozenset()

    @property
    def scenarios(self) -> int:
        """How many scenarios it runs: what its run is expected to cost."""
        if self.nodes is None:
            return sum(len(f.scenarios) for f in self.file.features) + len(self.file.scenarios)
        return len(self.nodes - {id(f) for f in self.file.features})


def schedule(units: Sequence[Unit]) -> list[int]:
    """The order to start units in: the longest first (a sharing feature's scenarios run one
    after another, so it starts while the isolated ones fill the other workers), source order
    among equals. Output keeps source order whatever the schedule."""
    return sorted(range(len(units)), key=lambda index: (-units[index].scenarios, index))


def scope_units(files: Sequence[ScenarioFileNode], overrides: RunOverrides) -> list[Unit]:
    units: list[Unit] = []
    for file in files:
        units += _file_units(file, overrides)
    return units


def file_units(files: Sequence[ScenarioFileNode]) -> list[Unit]:
    """`--dist file`: each file one unit."""
    return [_whole(file) for file in files]


def _whole(file: ScenarioFileNode) -> Unit:
    features = frozenset(id(item) for item in file.items if isinstance(item, FeatureNode))
    return Unit(
        file=file,
        nodes=None,
        label=file.path,
        file_opens=True,
        file_closes=True,
        feature_opens=features,
        feature_closes=features,
    )


class UnitMerge:
    """Turns the streams of units, taken in unit order, into the stream one run of their files
    would give: a file opens in its first unit and closes in its last with the counts of all of
    them; a feature split into units opens in the first and closes in the last."""

    __slots__ = ("units", "_counts")

    def __init__(self, units: Sequence[Unit]) -> None:
        self.units = units
        self._counts: dict[int, tuple[int, int, int, tuple[str, ...]]] = {}

    def events(self, index: int, events: Sequence[Event]) -> Iterator[Event]:
        unit = self.units[index]
        for event in events:
            kind = type(event)
            if kind is RunStarted or kind is RunFinished:
                continue  # one run: the driver gives its own
            if kind is FileStarted and not unit.file_opens:
                continue
            if isinstance(event, FileFinished):
                key = id(unit.file)
                passed, failed, skipped, cleared = self._counts.get(key, (0, 0, 0, ()))
                total = (
                    passed + event.passed,
                    failed + event.failed,
                    skipped + event.skipped,
                    cleared + event.cleared,
                )
                self._counts[key] = total
                if unit.file_closes:
                    yield replace(event, passed=total[0], failed=total[1], skipped=total[2], cleared=total[3])
                continue
            if isinstance(event, FeatureStarted) and id(event.feature) not in unit.feature_opens:
                continue
            if isinstance(event, FeatureFinished) and id(event.feature) not in unit.feature_closes:
                continue
            yield event


def _file_units(file: ScenarioFileNode, overrides: RunOverrides) -> list[Unit]:
    run = FileRun(file, overrides)  # its parameters resolved once, for both questions below
    if _whole_file(file) is not None or _uses_the_file_store(file, run):
        return [_whole(file)]
    groups: list[tuple[frozenset[int], str, FeatureNode | None]] = []
    for item in file.items:
        if isinstance(item, ScenarioNode):
            groups.append((frozenset({id(item)}), _label(file, None, item), None))
            continue
        params, _ = run.params(item)
        if store_for(params, item.line) is not None or not item.scenarios:  # a sharing (or empty) feature: whole
            nodes = frozenset({id(item), *(id(s) for s in item.scenarios)})
            groups.append((nodes, _label(file, item, None), item))
        else:
            for scenario in item.scenarios:
                groups.append((frozenset({id(item), id(scenario)}), _label(file, item, scenario), item))
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for index, (_, _, feature) in enumerate(groups):
        if feature is not None:
            first.setdefault(id(feature), index)
            last[id(feature)] = index
    units = []
    for index, (nodes, label, _) in enumerate(groups):
        units.append(
            Unit(
                file=file,
                nodes=nodes,
                label=label,
                file_opens=index == 0,
                file_closes=index == len(groups) - 1,
                feature_opens=frozenset(f for f, at in first.items() if at == index),
                feature_closes=frozenset(f for f, at in last.items() if at == index),
            )
        )
    return units or [_whole(file)]  # a file without scenarios: its opening and closing lines


def _whole_file(file: ScenarioFileNode) -> str | None:
    """Why the file must run as one unit whatever its sharing, or None."""
    for block in step_blocks(file):
        if any(isinstance(step, WebhookStep) for step in walk_steps(block)):
            return "webhook"
    return None


def _uses_the_file_store(file: ScenarioFileNode, run: FileRun) -> bool:
    file_params, _ = run.params(None)
    for item in file.items:
        params = run.params(item)[0] if isinstance(item, FeatureNode) else file_params
        ref = store_for(params, item.line if isinstance(item, FeatureNode) else None)
        if ref is not None and ref.feature is None:
            return True
    return False


def _label(file: ScenarioFileNode, feature: FeatureNode | None, scenario: ScenarioNode | None) -> str:
    parts = [file.path] + ([feature.name] if feature is not None else []) + ([scenario.name] if scenario else [])
    return " › ".join(parts)
