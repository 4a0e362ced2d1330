"""The app's widgets that the controllers drive, handed to them explicitly (never the app itself).

The controllers are made with the app, before its widgets exist: each widget is looked up on
first use, then kept (a run reports tens of thousands of events: no query each time)."""

from __future__ import annotations

from functools import cached_property

from textual.dom import DOMNode

from scenario_tui.widgets.file_tree import FileTree
from scenario_tui.widgets.history_list import HistoryList
from scenario_tui.widgets.inspector import Inspector
from scenario_tui.widgets.parameters_panel import ParametersPanel
from scenario_tui.widgets.run_status import RunStatus
from scenario_tui.widgets.scope_log import ScopeLog
from scenario_tui.widgets.variables_panel import VariablesPanel


class Panels:
    def __init__(self, root: DOMNode) -> None:
        self._root = root  # where the widgets are composed (the app)

    @cached_property
    def tree(self) -> FileTree:
        return self._root.query_one(FileTree)

    @cached_property
    def status_bar(self) -> RunStatus:
        return self._root.query_one(RunStatus)

    @cached_property
    def parameters_panel(self) -> ParametersPanel:
        return self._root.query_one(ParametersPanel)

    @cached_property
    def variables_panel(self) -> VariablesPanel:
        return self._root.query_one(VariablesPanel)

    @cached_property
    def scope_log(self) -> ScopeLog:
        return self._root.query_one(ScopeLog)

    @cached_property
    def inspector(self) -> Inspector:
        return self._root.query_one(Inspector)

    @property
    def history_list(self) -> HistoryList | None:
        """The history's list, or None where the layout has none (looked up each time, as it is
        needed only when the history is opened or a step runs with it open)."""
        try:
            return self._root.query_one(HistoryList)
        except Exception:  # not in this layout
            return None
