"""`g` (run to here): why a node cannot be run to, in words, or "" when it can."""

from __future__ import annotations

from typing import Mapping

from scenario_core.run import events as ev
from scenario_core.run.stepper import FINISHED, Stepper, StepRun
from scenario_tui.widgets.file_tree import FileTree
from scenario_tui.widgets.tree_items import Key, TreeItem


def refusal(
    item: TreeItem | None,
    stepper: Stepper,
    tree: FileTree,
    *,
    advancing: bool,
    results: Mapping[Key, ev.ScenarioFinished],
    records: Mapping[Key, StepRun],
) -> str:
    """`advancing`: a run is going on; `results`, `records`: the run's scenario results and step
    runs so far, under their tree keys."""
    if item is None or item.kind != "step":
        kind = item.kind if item is not None else "nothing"
        return f"g runs to a step: this is a {kind}, which is not a step that runs."
    if stepper.state == FINISHED:
        return "The run has finished: r restarts it, then g runs to the step."
    if advancing:
        return "The run is going on: wait for it to pause."
    scenario_key = tree.scenario_key(item.scenario) if item.scenario is not None else None
    if scenario_key is None or item.key[: len(scenario_key)] != scenario_key:
        return ""  # a background or fragment as written: it runs with each scenario that uses it
    if not selected(stepper, item):
        return f"Line {item.line} never runs in this run: its scenario is not selected."
    result = results.get(scenario_key)
    if result is not None and result.interrupted:
        return f"The run stopped in line {item.line}'s scenario: r restarts it."
    run = records.get(item.key)
    if result is not None or (run is not None and run is not stepper.current):
        return f"The run is past line {item.line}: r restarts it."
    return ""


def selected(stepper: Stepper, item: TreeItem) -> bool:
    """Whether the step's scenario runs in this run (--tags, `o`)."""
    scenario = item.scenario
    if scenario is None:  # (a step's item always has its scenario)
        return True
    if stepper.execution is not None:
        return stepper.execution.selected(scenario, item.feature)
    if stepper.selected is None:
        return True
    tags = scenario.tags | item.feature.tags if item.feature is not None else scenario.tags
    return bool(stepper.selected(tags))
