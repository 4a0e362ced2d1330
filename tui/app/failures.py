"""After a run: where it failed, under the cursor. In a big file the failures would otherwise hide
among thousands of collapsed scenarios."""

from __future__ import annotations

from typing import Iterable, Mapping

from scenario_core.run import events as ev
from scenario_core.run.stepper import StepRun
from scenario_tui.widgets.file_tree import FileTree
from scenario_tui.widgets.tree_items import FAILED, Key

MAX_EXPANDED = 50  # this many failed scenarios are expanded (a tree of thousands stays usable)


def show_failures(tree: FileTree, results: Mapping[Key, ev.ScenarioFinished], runs: Iterable[StepRun]) -> None:
    """Expand the failed scenarios and put the cursor on the first failed step."""
    failed = [key for key, result in results.items() if result.status == FAILED and not result.interrupted]
    if not failed:
        return
    for key in failed[:MAX_EXPANDED]:
        node = tree.node_for(key)
        if node is None:
            tree.reveal(key)  # builds the nodes down to it
            node = tree.node_for(key)
        if node is not None:
            node.expand()
    first = failed[0]
    steps = [run.key for run in runs if run.status == FAILED and run.key is not None and run.key[: len(first)] == first]
    tree.reveal(steps[0] if steps else first)
