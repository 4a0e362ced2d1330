"""The warnings of static scope analysis (core/scope_analysis.py) filed under the tree node they
are about, so that the tree marks a step before the run reaches it and the inspector says why;
and how many are about anything written under a node, which the node shows while collapsed (a
file's warnings are not hidden until the right scenario is expanded)."""

from __future__ import annotations

from typing import Iterable

from scenario_core.analysis.scope_analysis import Analysis
from scenario_core.language.errors import Diagnostic
from scenario_core.language.nodes.base import Node
from scenario_core.language.nodes.walk import walk_steps
from scenario_tui.widgets.tree_items import Key, TreeItem


class StaticWarnings:
    def __init__(self, analyses: Iterable[Analysis] = ()) -> None:
        self._by_place: dict[tuple[str, int], list[Diagnostic]] = {}
        self._under: dict[Key, int] = {}  # a node's key -> the warnings about it or what it holds
        for analysis in analyses:
            for warning in analysis.diagnostics:
                anchor = analysis.anchors.get(warning, warning.location)
                places = {(anchor.file, anchor.line), (warning.location.file, warning.location.line)}
                for place in places:  # the node it is about, and the line it is written on
                    self._by_place.setdefault(place, []).append(warning)

    def __bool__(self) -> bool:
        return bool(self._by_place)

    def of(self, item: TreeItem) -> list[Diagnostic]:
        if item.kind in ("suite", "file") or not self._by_place:
            return []
        location = item.node.location
        return self._by_place.get((location.file, location.line), [])

    def under(self, item: TreeItem) -> int:
        """How many warnings are about `item` or any line written under it (its steps, at any
        depth; a feature's background and scenarios; a file's everything)."""
        if item.kind == "suite" or not self._by_place:
            return 0
        found = self._under.get(item.key)
        if found is None:
            file = getattr(item.node, "location", None)
            if file is None:  # a file that cannot run: its errors, not warnings
                found = 0
            elif item.kind == "file":
                found = len({id(w) for (path, _), ws in self._by_place.items() if path == file.file for w in ws})
            else:
                lines = _lines(item.node)
                found = len(
                    {
                        id(w)
                        for (path, line), ws in self._by_place.items()
                        if path == file.file and line in lines
                        for w in ws
                    }
                )
            self._under[item.key] = found
        return found


def _lines(node: Node) -> set[int]:
    """The lines a node and everything under it are written on."""
    lines = {node.location.line}
    blocks = [getattr(node, "steps", ())]
    background = getattr(node, "background", None)
    if background is not None:
        lines.add(background.location.line)
        blocks.append(background.steps)
    for block in blocks:
        lines.update(step.location.line for step in walk_steps(tuple(block)))
    for scenario in getattr(node, "scenarios", ()):
        lines |= _lines(scenario)
    return lines
