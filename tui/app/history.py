"""The history of a run: every step run in order, and the view of one of them as it was right
after it ran (its request and response in the inspector, the variable scopes from its `after`
snapshot with what it changed highlighted). `h` opens the list in the scope log's place; a step
that ran, highlighted in the tree while it is open, is shown the same way; `l` or Escape returns
to the live view."""

from __future__ import annotations

from typing import Callable, Mapping

from textual.app import App

from scenario_core.run.stepper import StepRun
from scenario_tui.app.panels import Panels
from scenario_tui.widgets.tree_items import Key, TreeItem


class History:
    """Part of the run controller, which hands it what it drives: the panels, the step records
    (the controller's own dict, cleared in place) and `redraw`, which shows the live run again."""

    def __init__(
        self, app: App[int], panels: Panels, records: Mapping[Key, StepRun], redraw: Callable[[], None]
    ) -> None:
        self.app = app  # Textual's: notifications
        self.panels = panels
        self.records = records
        self.redraw = redraw
        self.runs: list[StepRun] = []  # the steps that ran (not the skipped), in order
        self.previous: list[StepRun] = []  # the runs of the run before this one (`d` compares with them)
        self.shown: StepRun | None = None  # the step run on view; None: the live view
        self._listed = 0  # how many of `runs` the open list holds (it is filled only while open)

    @property
    def open(self) -> bool:
        widget = self.panels.history_list
        return widget is not None and widget.is_open

    def add(self, run: StepRun) -> None:
        self.runs.append(run)
        widget = self.panels.history_list if self._listed else None
        if widget is not None and widget.is_open:  # while a run goes on with the list open
            widget.add(self.runs[self._listed :])
            self._listed = len(self.runs)

    def replace(self, old: StepRun, new: StepRun) -> None:
        """A step re-sent (edit and continue): its new run takes the old one's place in the list."""
        for index, run in enumerate(self.runs):
            if run is old:
                self.runs[index] = new
                break
        else:
            return self.add(new)
        if self.shown is old:
            self.shown = new
        widget = self.panels.history_list
        if widget is not None and widget.is_open:
            widget.fill(self.runs)
            self._listed = len(self.runs)
            widget.pick(new)

    def clear(self) -> None:
        if self.runs:
            self.previous = self.runs
        self.runs = []
        self._listed = 0
        if self.shown is not None or self.open:
            self.live()

    def toggle(self) -> None:
        """`h`: open the list (on the latest step run), or close it."""
        if self.open:
            self.live()
            return
        widget = self.panels.history_list
        if widget is None:
            return
        if not self.runs:
            self.app.notify("No step has run yet: n runs one.")
            return
        widget.fill(self.runs)
        self._listed = len(self.runs)
        widget.is_open = True
        self.panels.scope_log.display = False
        widget.focus()
        widget.highlighted = len(self.runs) - 1  # announces it: shown by `show`

    def tree_highlighted(self, item: TreeItem | None) -> None:
        """A node highlighted in the tree while the list is open: a step that ran is shown as it was."""
        widget = self.panels.history_list
        if widget is None or not widget.is_open or item is None or item.kind != "step":
            return
        run = self.records.get(item.key)
        if run is None or run.after is None:
            return
        self.show(run)
        widget.pick(run)

    def show(self, run: StepRun) -> None:
        panels = self.panels
        self.shown = run
        step = run.step
        panels.variables_panel.show(run.after, run.scenario.name, run.changed)
        panels.variables_panel.border_title = f"Variables · right after line {step.location.line}"
        panels.inspector.show_step(step, run, about_to_run=False, scenario=run.scenario.name)
        widget = panels.history_list
        if widget is not None:
            widget.border_title = "History — l: live view"
        panels.status_bar.set(note=f"history: right after {step.keyword} line {step.location.line} — l: live")

    def live(self) -> None:
        """Back to the live view: the list closes, the panels show the run as it is now."""
        widget = self.panels.history_list
        if self.shown is None and not self.open:
            return  # live already
        self.shown = None
        if widget is not None and widget.is_open:
            if widget.has_focus:
                self.panels.tree.focus()
            widget.is_open = False
            widget.border_title = "History"
        self.panels.scope_log.display = True
        self.panels.status_bar.set(note="")
        self.redraw()  # (the status line too)
