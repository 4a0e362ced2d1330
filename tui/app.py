"""The step debugger: a file's tree, the effective parameters of what is highlighted, live
variables by layer, scope events and an inspector, driven one step at a time.

The app is the shell: layout, keys, loading and watching the file. It computes no rule: the tree
comes from the parser, parameters and sharing from `parameter_nodes`, and everything about a run
from the executor's events, which `RunController` maps onto the widgets. Attributes go down
(`show`, `set_status`), messages come up (the tree's highlight and breakpoint messages). HTTP runs
in a worker, so the UI never waits for it.
"""

from __future__ import annotations

import gc
import os
import time
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from textual import on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import ContentSwitcher, Footer, Tree

from scenario_core.errors import InvalidFileError, ScenarioError
from scenario_core.nodes import ScenarioFileNode
from scenario_core.params_report import ParameterNode, parameter_nodes
from scenario_core.parser import load_file
from scenario_core.operation_check import operation_shapes
from scenario_core.resolution import RunOverrides, calls_operations, parameter_diagnostics

from .node_summary import block_summary, file_summary, scenario_summary
from .run_controller import RunController
from .stepper import PAUSED, Stepper, StepRun
from .widgets.display import Display
from .widgets.errors_view import ErrorsView
from .widgets.file_tree import FileTree, Key, TreeItem
from .widgets.help_screen import HelpScreen
from .widgets.history_list import HistoryList
from .widgets.inspector import Inspector
from .widgets.parameters_panel import ParametersPanel
from .widgets.run_status import RunStatus
from .widgets.scope_log import ScopeLog
from .widgets.variables_panel import VariablesPanel

DETERMINISTIC_ENV = "SCENARIO_TUI_DETERMINISTIC"  # "1": no timings, no ports (snapshot tests)
POLL_SECONDS = 0.5


class ScenarioApp(App[int]):
    """`scenario-tui FILE`."""

    CSS_PATH = "app.tcss"
    TITLE = "scenario-tui"
    ENABLE_COMMAND_PALETTE = True
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (34, "-tall")]
    BINDINGS = [
        Binding("n", "next_step", "Next"),
        Binding("c", "continue_run", "Continue"),
        Binding("b", "toggle_breakpoint", "Breakpoint"),
        Binding("r", "restart", "Restart"),
        Binding("s", "stop", "Stop"),
        Binding("f", "break_on_failure(True)", "Break on fail ○"),  # one of the two shows: its state
        Binding("f", "break_on_failure(False)", "Break on fail ●"),
        Binding("g", "run_to_here", "Run to here", show=False),
        Binding("o", "run_only", "Only this", show=False),
        Binding("h", "history", "History"),
        Binding("l", "live_view", "Live view", show=False),
        Binding("v", "reveal_secrets", "Secrets", show=False),
        Binding("R", "reload", "Reload", show=False),
        Binding("z", "toggle_maximize", "Zoom", show=False),
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(
        self,
        path: str | os.PathLike[str],
        overrides: RunOverrides | None = None,
        run_variables: Mapping[str, Any] | None = None,
        *,
        deterministic: bool | None = None,
        watch: bool = True,
        fragments: Sequence[str] = (),
        plugins: Sequence[str] = (),
        resource_roots: Sequence[str] = (),
        tags: Any = None,
    ) -> None:
        super().__init__()
        self.fragments = tuple(fragments)  # --fragments: more .fragment files
        self.plugins = tuple(plugins)  # --plugins: custom steps and assertions
        self.created_at = time.perf_counter()
        self.first_paint_at: float | None = None
        self.path = str(path)
        self.overrides = overrides or RunOverrides()
        self.run_variables = dict(run_variables or {})
        if deterministic is None:
            deterministic = os.environ.get(DETERMINISTIC_ENV) == "1"
        self.display_options = Display(deterministic=deterministic)
        self.watch_file = watch
        self.file: ScenarioFileNode | None = None
        self.invalid = False
        self._mtime: tuple[float, int] | None = None
        self._param_nodes: dict[int, ParameterNode] = {}
        self._file_params: ParameterNode | None = None
        self.run_controller = RunController(self, self.loaded_files, self.overrides, self.run_variables,
                                            resource_roots, tags)

    @property
    def stepper(self) -> Stepper:
        return self.run_controller.stepper

    @property
    def records(self) -> dict[Key, StepRun]:
        """Each step run, under the tree key of where it ran and where it is written."""
        return self.run_controller.records

    # ------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        display = self.display_options
        yield RunStatus(id="status")
        with ContentSwitcher(initial="main", id="switcher"):
            with Horizontal(id="main"):
                with Vertical(id="left"):
                    yield FileTree(id="tree")
                    yield ParametersPanel(display, id="parameters")
                with Vertical(id="right"):
                    yield VariablesPanel(display, id="variables")
                    yield ScopeLog(display, id="scope")
                    yield HistoryList(id="history")
                    yield Inspector(display, id="inspector")
            yield ErrorsView(id="errors")
        yield Footer()

    # The widgets, looked up once: a run reports tens of thousands of events.

    @cached_property
    def tree(self) -> FileTree:
        return self.query_one(FileTree)

    @cached_property
    def status_bar(self) -> RunStatus:
        return self.query_one(RunStatus)

    @cached_property
    def parameters_panel(self) -> ParametersPanel:
        return self.query_one(ParametersPanel)

    @cached_property
    def variables_panel(self) -> VariablesPanel:
        return self.query_one(VariablesPanel)

    @cached_property
    def scope_log(self) -> ScopeLog:
        return self.query_one(ScopeLog)

    @cached_property
    def inspector(self) -> Inspector:
        return self.query_one(Inspector)

    def on_mount(self) -> None:
        self.status_bar.set(file_name=Path(self.path).name)
        self._load(keep=False)
        self.tree.focus()
        if self.watch_file:
            self.set_interval(POLL_SECONDS, self._poll_file)
        self.call_after_refresh(self._first_painted)

    def _first_painted(self) -> None:
        if self.first_paint_at is None:
            self.first_paint_at = time.perf_counter()

    # ------------------------------------------------------------ loading and watching

    def loaded_files(self) -> list[ScenarioFileNode]:
        return [self.file] if self.file is not None else []

    def _stat(self) -> tuple[float, int] | None:
        try:
            info = os.stat(self.path)
        except OSError:
            return None
        return info.st_mtime, info.st_size

    def _poll_file(self) -> None:
        now = self._stat()
        if now != self._mtime:
            self._file_changed()

    def _file_changed(self) -> None:
        """Saved on disk: reload, unless a run is active or paused (the header then says R reloads)."""
        if self.run_controller.file_changed_on_disk():
            self.action_reload()

    def _load(self, keep: bool) -> bool:
        """Read the file; show its tree, or its errors. Whether it is valid."""
        # Building a big syntax tree and its tree nodes makes hundreds of thousands of objects
        # that all live on: the cyclic collector would only walk them again and again.
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._load_file(keep)
        finally:
            if collecting:
                gc.enable()

    def _load_file(self, keep: bool) -> bool:
        self._mtime = self._stat()
        switcher = self.query_one(ContentSwitcher)
        try:
            file = load_file(self.path, self.fragments)
            problems = parameter_diagnostics(file, self.overrides, self.stepper.descriptions)
            problems += self._custom_step_problems(file)
            if problems:
                raise InvalidFileError(problems)
        except InvalidFileError as error:
            self.invalid = True
            self.file = None
            self.query_one(ErrorsView).show(self.path, error.diagnostics)
            switcher.current = "errors"
            count = len(error.diagnostics)
            self.status_bar.set(state=f"invalid: {count} error{'s' if count != 1 else ''}", counts="", note="")
            return False
        except ScenarioError as error:  # unreadable: gone, not UTF-8 ...
            self.invalid = True
            self.file = None
            self.query_one(ErrorsView).show(self.path, [], str(error))
            switcher.current = "errors"
            self.status_bar.set(state="invalid: cannot read the file", counts="", note="")
            return False
        self.invalid = False
        self.file = file
        nodes = parameter_nodes(file, self.overrides)
        self._file_params = nodes[0]
        self._param_nodes = {id(node.node): node for node in nodes}
        switcher.current = "main"
        shapes = operation_shapes(file, self.overrides, self.stepper.descriptions) if calls_operations(file) else {}
        self.tree.load(file, keep=keep, shapes=shapes)
        self.tree.border_title = Path(self.path).name
        self.run_controller.reset_views()
        self.status_bar.set(state="ready — n steps, c runs", counts="", note="")
        self.show_item(self.tree.cursor_node.data if self.tree.cursor_node else None)
        return True

    def _custom_step_problems(self, file: ScenarioFileNode) -> list:
        """Custom steps no plugin matches; the plugins' registry goes to the stepper's runs."""
        from scenario_core.custom_steps import custom_diagnostics, load_registry, uses_custom_steps

        if not self.plugins and not uses_custom_steps(file):
            return []
        if self.stepper.registry is None:
            self.stepper.registry = load_registry(self.plugins)
        return custom_diagnostics(file, self.stepper.registry)

    def action_reload(self) -> None:
        """Read the file again (it is also polled): the tree keeps its expansion and cursor."""
        self.run_worker(self._reload(), group="control", exclusive=True)

    async def _reload(self) -> None:
        await self.stepper.reset()
        self._load(keep=True)
        if not self.invalid:
            self.status_bar.set(note="reloaded")

    # ------------------------------------------------------------ highlighted node

    def _parameters_for(self, item: TreeItem | None) -> ParameterNode | None:
        if item is None or self.file is None:
            return self._file_params
        for node in (item.node if item.kind in ("feature", "scenario") else None, item.scenario, item.feature):
            if node is not None and id(node) in self._param_nodes:
                return self._param_nodes[id(node)]
        return self._file_params

    def _subject(self, item: TreeItem) -> str:
        if item.kind in ("file", "feature", "scenario"):
            return ""
        if item.kind == "step":
            return f"{item.node.keyword} line {item.line}"
        return f"{item.label} line {item.line}"

    @on(Tree.NodeHighlighted, "#tree")
    def _highlighted(self, event: Tree.NodeHighlighted[TreeItem]) -> None:
        self.show_item(event.node.data)
        self.run_controller.history.tree_highlighted(event.node.data)

    def show_item(self, item: TreeItem | None) -> None:
        self.parameters_panel.show(self._parameters_for(item), self._subject(item) if item else "")
        inspector = self.inspector
        if item is None:
            return
        if item.kind == "step":
            run = self.run_controller.records.get(item.key)
            current = self.stepper.current
            about = current is not None and current.key == item.key and self.stepper.state == PAUSED
            shown = run.scenario if run is not None else item.scenario  # a definition: its latest run's
            scenario = shown.name if shown is not None else None
            inspector.show_step(item.node, run, about_to_run=about, scenario=scenario)
            return
        if item.kind == "scenario":
            inspector.show_note(*scenario_summary(item, self.run_controller.scenario_results.get(item.key),
                                                  self.tree.statuses.get(item.key), self.display_options))
        elif item.kind == "file":
            inspector.show_note(*file_summary(self.path, self.file, self.tree.scenario_count, self.stepper.finished))
        else:
            inspector.show_note(*block_summary(item))

    # ------------------------------------------------------------ stepping (see RunController)

    def action_next_step(self) -> None:
        """Run the next step, then pause (the first `n` starts the run)."""
        self.run_controller.start("step")

    def action_continue_run(self) -> None:
        """Run to the next breakpoint or to the end."""
        self.run_controller.start("continue")

    def action_stop(self) -> None:
        self.run_controller.stop()

    def action_restart(self) -> None:
        """Start again from a fresh state, paused before the first step."""
        self.run_controller.restart()

    def action_break_on_failure(self, on: bool) -> None:
        """`f`: with it on, a failing step pauses the run before the scenario's rest is skipped."""
        self.run_controller.toggle_break_on_failure()

    def action_run_to_here(self) -> None:
        """`g`: continue until just before the highlighted step."""
        self.run_controller.run_to(self.tree.cursor_node.data if self.tree.cursor_node else None)

    def action_run_only(self) -> None:
        """`o`: a fresh run of the highlighted scenario alone."""
        self.run_controller.run_only(self.tree.cursor_node.data if self.tree.cursor_node else None)

    def action_history(self) -> None:
        self.run_controller.history.toggle()

    def action_live_view(self) -> None:
        self.run_controller.history.live()

    @on(HistoryList.Picked)
    def _history_picked(self, event: HistoryList.Picked) -> None:
        self.run_controller.history.show(event.run)

    @on(HistoryList.Closed)
    def _history_closed(self) -> None:
        self.run_controller.history.live()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "break_on_failure":  # the footer shows the one binding that says the state
            return parameters[0] != self.stepper.break_on_failure
        return True

    def action_toggle_breakpoint(self) -> None:
        if self.invalid:
            return
        self.tree.toggle_breakpoint()

    @on(FileTree.BreakpointsChanged)
    def _breakpoints_changed(self, event: FileTree.BreakpointsChanged) -> None:
        item = event.item
        what = ""
        if item is not None:
            what = f"{item.node.keyword} line {item.line}" if item.kind == "step" else f"{item.kind} line {item.line}"
        count = len(event.breakpoints)
        self.status_bar.set(note=("breakpoint set" if event.added else "breakpoint removed")
                            + (f" on {what}" if what else "") + f" ({count} in all)")

    def action_reveal_secrets(self) -> None:
        display = self.display_options
        display.reveal_secrets = not display.reveal_secrets
        self.scope_log.rerender()
        self.run_controller.flush_panels(force=True)
        self.notify("Secrets shown — v masks them again." if display.reveal_secrets else "Secrets masked.")

    def action_toggle_maximize(self) -> None:
        screen = self.screen
        if screen.maximized is not None:
            screen.minimize()
        elif screen.focused is not None:
            screen.maximize(screen.focused)

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    async def action_quit(self) -> None:
        if self.stepper.execution is not None:
            self.stepper.execution.stop()
        self.exit(0)

    # ------------------------------------------------------------ command palette

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Next step", "Run the next step, then pause (n)", self.action_next_step)
        yield SystemCommand("Continue", "Run to the next breakpoint or the end (c)", self.action_continue_run)
        yield SystemCommand("Toggle breakpoint", "On the highlighted node (b)", self.action_toggle_breakpoint)
        yield SystemCommand("Restart", "Run again from a fresh state (r)", self.action_restart)
        yield SystemCommand("Stop", "Stop the run, cancelling a request in flight (s)", self.action_stop)
        yield SystemCommand("Reveal or mask secrets", "Show tokens and auth headers, or mask them (v)",
                            self.action_reveal_secrets)
        yield SystemCommand("Reload file", "Read the file again (R)", self.action_reload)
        yield SystemCommand("Break on failure", "Toggle: c pauses on a failing step (f)",
                            lambda: self.action_break_on_failure(True))
        yield SystemCommand("Run to here", "Continue until just before the highlighted step (g)",
                            self.action_run_to_here)
        yield SystemCommand("Run this scenario only", "A fresh run of the highlighted scenario alone (o)",
                            self.action_run_only)
        yield SystemCommand("History", "The steps that ran, each as it was right after it (h; l: live view)",
                            self.action_history)
        yield SystemCommand("Help", "Keys and icons (?)", self.action_help)


def launch(path: str, overrides: RunOverrides, run_variables: dict, fragments: Sequence[str] = (),
           plugins: Sequence[str] = (), resource_roots: Sequence[str] = (), tags: Any = None) -> int:
    """Open the TUI on `path` (called by `scenario-tui FILE` and `scenario-tui demo`)."""
    app = ScenarioApp(path, overrides, run_variables, fragments=fragments, plugins=plugins,
                      resource_roots=resource_roots, tags=tags)
    result = app.run()
    return int(result or 0) if app.return_code in (None, 0) else int(app.return_code or 1)
