"""The warnings of static scope analysis (core/scope_analysis.py) filed under the tree node they
are about, so that the tree marks a step before the run reaches it and the inspector says why."""

from __future__ import annotations

from typing import Iterable

from scenario_core.analysis.scope_analysis import Analysis
from scenario_core.language.errors import Diagnostic
from scenario_tui.widgets.tree_items import TreeItem


class StaticWarnings:
    def __init__(self, analyses: Iterable[Analysis] = ()) -> None:
        self._by_place: dict[tuple[str, int], list[Diagnostic]] = {}
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
