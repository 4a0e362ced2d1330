"""`scenario-tui params` as a readable tree: each node's values and where each came from. Only
keys something set (a file, a feature, a scenario, a description, the command line) are shown;
`--all` adds those at their defaults (25 keys a node would bury the few that matter)."""

from __future__ import annotations

import sys
from typing import Sequence

from rich.console import Console
from rich.text import Text
from rich.tree import Tree

from scenario_core.language import parameter_keys as params
from scenario_core.parameters.params_report import ParameterNode, shown_value
from scenario_core.parameters.resolution import EffectiveValue
from scenario_core.support.printable import visible
from scenario_tui.output.palette import KIND, SUCCESS, VALUE, WARNING

UNWRAPPED = 100_000  # columns: wider than any line we print


def format_value(value: object) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):  # a list of names (`secrets`)
        return ", ".join(value) if value else "(none)"
    return visible(str(value))  # a Duration reads `500ms`, a {{...}} value as written


def provenance_text(effective: EffectiveValue, node: ParameterNode | None = None) -> str:
    """`feature 'Pets' (line 7) · file 30 · default 30` (secret values masked when `node` is given)."""
    winner = effective.winner
    where = winner.short() + (f" (line {winner.line})" if winner.line else "")
    if winner.source == "openapi" and winner.detail:
        where += f" {winner.detail}"
    if winner.via:  # a {{env.NAME}} / {{param.KEY}} value: what it was read from
        where += f", from {winner.via}"
    lower = [
        f"{s.short()} {format_value(shown_value(node.parameters, effective.key, s.value) if node else s.value)}"
        for s in effective.overridden
    ]
    return visible(" · ".join([where] + lower))  # feature names and paths come from files


def _is_set(effective: EffectiveValue) -> bool:
    return effective.winner.source != "default"


def parameter_lines(node: ParameterNode, every_key: bool = True) -> list[Text]:
    shown = {key: e for key, e in node.parameters.items() if every_key or _is_set(e)}
    if not shown:
        return [Text("every key at its default", "dim")]
    width = max(len(key) for key in shown)
    lines = []
    for key, effective in shown.items():
        line = Text()
        line.append(key.ljust(width), "bold")
        line.append("  ")
        line.append(format_value(shown_value(node.parameters, key, effective.value)), VALUE)
        line.append("  ← ", "dim")
        line.append(provenance_text(effective, node), "dim")
        if not params.is_known(key):  # docs/spec/parameters.md#user-parameters: a user parameter, read as {{param.KEY}}
            line.append("  (user parameter)", WARNING)
        lines.append(line)
    return lines


def _label(node: ParameterNode) -> Text:
    label = Text()
    label.append(node.kind, KIND)
    label.append(" ")
    label.append(visible(node.name) if node.kind == "file" else f"'{visible(node.name)}'", "bold")
    if node.kind != "file":
        label.append(f" (line {node.line})", "dim")
    label.append(f" — {visible(node.sharing)}", SUCCESS if node.store else WARNING)
    return label


def print_parameter_tree(
    nodes: Sequence[ParameterNode], console: Console | None = None, every_key: bool = False
) -> None:
    """The file, its features and scenarios; without `every_key`, a last line counts what the
    defaults left out so nobody reads the short tree as the whole story."""
    if console is None:
        # Piped to a file or a pager: one line per value, however long (rich would wrap at 80).
        piped = not sys.stdout.isatty()
        console = Console(highlight=False, width=UNWRAPPED if piped else None)
    root = Tree(_label(nodes[0]))
    for line in parameter_lines(nodes[0], every_key):
        root.add(line)
    feature_branch = root
    for node in nodes[1:]:
        parent = feature_branch if node.kind == "scenario" and node.feature is not None else root
        branch = parent.add(_label(node))
        for line in parameter_lines(node, every_key):
            branch.add(line)
        if node.kind == "feature":
            feature_branch = branch
    console.print(root)
    if not every_key:
        defaults = sum(not _is_set(e) for e in nodes[0].parameters.values())
        console.print(
            f"{defaults} more keys of the file are at their defaults; params --all shows every key", style="dim"
        )
