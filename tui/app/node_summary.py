"""What the inspector says about a highlighted node that is not a step: a scenario's result, the
file's last run, what a background, fragment, feature or parameters block is for."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text

from scenario_core.language.nodes.blocks import ScenarioFileNode
from scenario_core.run import events as ev
from scenario_core.run.events import RunFinished
from scenario_core.support.plural import counted
from scenario_core.support.printable import visible
from scenario_tui.app.broken_summary import broken_file_summary
from scenario_tui.widgets.display import Display
from scenario_tui.widgets.file_tree import FileTree
from scenario_tui.widgets.theme_styles import ERROR, ERROR_BOLD, SUCCESS_BOLD, WARNING_BOLD
from scenario_tui.widgets.tree_items import PASSED, TreeItem
from scenario_tui.widgets.tree_items import RUNNING as NODE_RUNNING

KINDS = {
    "parameters": "parameters: static settings, resolved most specific first (see the Parameters panel)",
    "background": "background: runs again before every scenario it applies to; what it extracts stays "
    "in the scenario layer",
    "fragment": "fragment: its steps run wherever a scenario includes it, as if written there",
    "feature": "feature: groups scenarios; its parameters apply to its scenarios only",
}


def scenario_summary(
    item: TreeItem, result: ev.ScenarioFinished | None, status: str | None, display: Display, breakpoint: bool = False
) -> tuple[str, list[Text]]:
    lines: list[Text] = []
    line = Text()
    line.append(f"scenario '{item.node.name}'", "bold")
    line.append(f"  line {item.line}", "dim")
    lines.append(line)
    if getattr(item.node, "description", None):  # its `description:` lines (BerryCrush samples)
        lines.append(Text(display.text(item.node.description), style="italic"))
    if result is not None:
        elapsed = display.seconds(result.elapsed)
        lines.append(
            Text(
                result.status + (f" · {elapsed}" if elapsed else ""),
                style=SUCCESS_BOLD if result.status == PASSED else ERROR_BOLD,
            )
        )
        if result.message:
            lines.append(Text(display.text(result.message), style=ERROR))
    elif status == NODE_RUNNING:
        lines.append(Text("running", style=WARNING_BOLD))
    elif breakpoint:
        lines.append(Text("not run yet · breakpoint set — c runs to it", style=WARNING_BOLD))
    else:
        lines.append(Text("not run yet — b sets a breakpoint on it", style="dim"))
    lines.append(
        Text(
            f"{counted(len(item.node.steps), 'step')} of its own; expand it to see every step it runs, "
            "backgrounds and fragments included.",
            style="dim",
        )
    )
    return f"Inspector · scenario line {item.line}", lines


def file_summary(
    path: str, file: ScenarioFileNode | None, scenario_count: int, finished: RunFinished | None
) -> tuple[str, list[Text]]:
    lines = [Text(Path(path).name, style="bold")]
    if file is not None:
        lines.append(
            Text(
                f"{counted(len(file.features), 'feature')} · {counted(scenario_count, 'scenario')}"
                f" · {counted(len(file.fragments), 'fragment')}",
                style="dim",
            )
        )
    if finished is not None:
        lines.append(
            Text(
                f"last run: {finished.passed} passed, {finished.failed} failed, {finished.skipped} skipped"
                + (" (stopped)" if finished.interrupted else "")
            )
        )
    lines.append(Text("n runs one step and pauses · c runs to the next breakpoint · ? help", style="dim"))
    return "Inspector · file", lines


def block_summary(item: TreeItem) -> tuple[str, list[Text]]:
    lines = [Text(f"{block_name(item)}  line {item.line}", style="bold"), Text(KINDS.get(item.kind, ""), style="dim")]
    return f"Inspector · {item.kind} line {item.line}", lines


def block_name(item: TreeItem) -> str:
    """`parameters`, `file background`, `feature 'Pets'`, `fragment 'login'`: a block's kind says
    all when its label is (or ends with) the kind, so it is not repeated in quotes."""
    if item.label == item.kind or item.label.endswith(" " + item.kind):
        return visible(item.label)
    return f"{item.kind} '{visible(item.label)}'"


def subject(item: TreeItem) -> str:
    """What the Parameters panel names besides the scenario or feature: `when line 17`."""
    if item.kind in ("file", "feature", "scenario"):
        return ""
    if item.kind == "step":
        return f"{item.node.keyword} line {item.line}"
    return f"{item.label} line {item.line}"


def node_summary(
    item: TreeItem, tree: FileTree, result: ev.ScenarioFinished | None, finished: RunFinished | None, display: Display
) -> tuple[str, list[Text]]:
    """What the inspector says about a node that is not a step: its title and lines."""
    if item.kind == "scenario":
        status = tree.statuses.get(item.key)
        return scenario_summary(item, result, status, display, breakpoint=item.key in tree.breakpoints)
    if item.kind == "file" and item.broken is not None:
        return broken_file_summary(item.broken)
    if item.kind == "file":
        return file_summary(item.node.path, item.node, tree.items.scenario_count_of(item.key), finished)
    return block_summary(item)
