"""The files the TUI shows, as last read: each path's size and mtime, and its syntax tree (or why
it cannot run). A reload reads again only the files whose size or mtime changed."""

from __future__ import annotations

import os
from typing import Callable, Sequence

from scenario_core.language.nodes.blocks import ScenarioFileNode
from scenario_tui.widgets.tree_items import BrokenFile

Stat = tuple[float, int] | None
Loaded = ScenarioFileNode | BrokenFile


def stat_of(path: str) -> Stat:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_mtime, info.st_size


class SuiteFiles:
    def __init__(self, paths: Sequence[str], read: Callable[[str], Loaded]) -> None:
        self.paths = list(paths)
        self._read = read
        self._loaded: dict[str, tuple[Stat, Loaded]] = {}

    def changed(self) -> bool:
        """Whether a file was saved (or removed, or came back) since it was read."""
        return any(stat_of(path) != self._loaded.get(path, (None,))[0] for path in self.paths)

    def load(self, keep: bool) -> list[Loaded]:
        """Every file in order; with `keep`, the unchanged ones as they were read."""
        files = []
        for path in self.paths:
            stat = stat_of(path)
            cached = self._loaded.get(path)
            if not (keep and cached is not None and stat is not None and cached[0] == stat):
                cached = self._loaded[path] = (stat, self._read(path))
            files.append(cached[1])
        return files
