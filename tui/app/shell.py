"""The step debugger: a file's tree, the effective parameters of what is highlighted, live
variables by layer, scope events and an inspector, driven one step at a time. The app is the
shell (keys, loading and watching the file) and computes no rule; `RunController` maps a run's
events onto the widgets, helpers own the rest. Attributes go down, messages come up: no widget or
controller imports the app. HTTP runs in a worker, so the UI never waits for it."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from textual import on
from textual.app import App, ComposeResult, SystemCommand
from textual.containers import Horizontal, Vertical
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import ContentSwitcher, Input, Tree

from scenario_core.language.nodes.blocks import ScenarioFileNode
from scenario_core.language.tag_expressions import TagExpression, selects_any
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.stepper import PAUSED, Stepper, StepRun
from scenario_core.support.collector import apply_collector_policy, resume_collector
from scenario_tui.app.coverage_key import CoverageTap
from scenario_tui.app.edit_continue import EditAndContinue
from scenario_tui.app.external_editor import open_in_editor
from scenario_tui.app.keys import APP_BINDINGS, app_commands
from scenario_tui.app.layout import TreeSplit, toggle_maximize
from scenario_tui.app.node_summary import node_summary, subject
from scenario_tui.app.panels import Panels
from scenario_tui.app.playground import open_curl_paste, open_playground
from scenario_tui.app.response_compare import ResponseCompare
from scenario_tui.app.run_controller import RunController
from scenario_tui.app.run_events import RunEvents
from scenario_tui.app.suite_files import SuiteFiles
from scenario_tui.app.suite_reading import SuiteReader
from scenario_tui.widgets.curl_view import CurlView
from scenario_tui.widgets.display import Display
from scenario_tui.widgets.errors_view import ErrorsView
from scenario_tui.widgets.file_tree import FileTree
from scenario_tui.widgets.help_screen import HelpScreen
from scenario_tui.widgets.history_list import HistoryList
from scenario_tui.widgets.inspector import Inspector, warning_lines
from scenario_tui.widgets.json_playground import JsonPlayground
from scenario_tui.widgets.key_footer import KeyFooter
from scenario_tui.widgets.parameters_panel import ParametersPanel
from scenario_tui.widgets.run_status import RunStatus
from scenario_tui.widgets.scope_log import ScopeLog
from scenario_tui.widgets.theme_styles import ThemeStyles
from scenario_tui.widgets.tree_filter import FilterInput
from scenario_tui.widgets.tree_items import BrokenFile, Key, TreeItem, never_pauses
from scenario_tui.widgets.value_viewer import ValueViewer, variable_viewer
from scenario_tui.widgets.variable_editor import VariableEditor
from scenario_tui.widgets.variables_panel import VariablesPanel

DETERMINISTIC_ENV = "SCENARIO_TUI_DETERMINISTIC"  # "1": no timings, no ports (snapshot tests)
POLL_SECONDS = 0.5


class ScenarioApp(App[int]):
    """`scenario-tui FILE|DIR...`."""

    CSS_PATH = "app.tcss"
    TITLE = "scenario-tui"
    ENABLE_COMMAND_PALETTE = True
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (34, "-tall")]
    BINDINGS = APP_BINDINGS

    def __init__(
        self,
        path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
        overrides: RunOverrides | None = None,
        run_variables: Mapping[str, object] | None = None,
        *,
        deterministic: bool | None = None,
        watch: bool = True,
        fragments: Sequence[str] = (),
        plugins: Sequence[str] = (),
        resource_roots: Sequence[str] = (),
        tags: TagExpression | None = None,
    ) -> None:
        super().__init__()
        self.fragments = tuple(fragments)  # --fragments: more .fragment files
        self.plugins = tuple(plugins)  # --plugins: custom steps and assertions
        self.created_at = time.perf_counter()
        self.first_paint_at: float | None = None
        # One file, or a suite (a folder's or the command line's files): one root each in the tree.
        self.paths = [str(path)] if isinstance(path, (str, os.PathLike)) else [str(p) for p in path]
        self.path = self.paths[0]
        self.overrides = overrides or RunOverrides()
        self.run_variables = dict(run_variables or {})
        if deterministic is None:
            deterministic = os.environ.get(DETERMINISTIC_ENV) == "1"
        self.display_options = display = Display(deterministic=deterministic)
        self.watch_file = watch
        self.files: list[ScenarioFileNode | BrokenFile] = []  # in the order given; BrokenFile: cannot run
        self.invalid = False  # no file can run
        self.panels = panels = Panels(self)
        self.run_controller = RunController(
            self, panels, display, self.loaded_files, self.overrides, self.run_variables, resource_roots, tags
        )
        self.reader = SuiteReader(self.stepper, self.overrides, self.run_variables, self.fragments, self.plugins)
        self.suite_files = SuiteFiles(self.paths, self.reader.read)
        self.theme_styles = ThemeStyles(self)  # the panels' colours, from the Textual theme
        self.theme_styles.install()
        self.tree_split = TreeSplit(self)  # `<`, `>`
        self.edit_and_continue = EditAndContinue(self, self.run_controller, panels, display)  # `=`
        self.response_compare = ResponseCompare(self, display, self.run_controller.history)  # `d`
        stepper = self.stepper  # `C`: the tap sees every event first (reset on restart, never replaced)
        self.coverage_tap = stepper.on_event = CoverageTap(stepper.descriptions, stepper.on_event)

    @property
    def stepper(self) -> Stepper:
        return self.run_controller.stepper

    @property
    def records(self) -> dict[Key, StepRun]:  # each step run, under the tree key of where it ran
        return self.run_controller.records

    # ------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        display = self.display_options
        yield RunStatus(id="status")
        with ContentSwitcher(initial="main", id="switcher"):
            with Horizontal(id="main"):
                with Vertical(id="left"):
                    yield FilterInput(id="tree-filter")
                    yield FileTree(id="tree")
                    yield ParametersPanel(display, id="parameters")
                with Vertical(id="right"):
                    yield VariablesPanel(display, id="variables")
                    yield ScopeLog(display, id="scope")
                    yield HistoryList(display, id="history")
                    yield Inspector(display, id="inspector")
            yield ErrorsView(id="errors")
        yield KeyFooter()

    # The widgets, looked up once (see Panels), shared with the controllers.
    @property
    def file_tree(self) -> FileTree:
        return self.panels.tree

    @property
    def status_bar(self) -> RunStatus:
        return self.panels.status_bar

    @property
    def parameters_panel(self) -> ParametersPanel:
        return self.panels.parameters_panel

    @property
    def variables_panel(self) -> VariablesPanel:
        return self.panels.variables_panel

    @property
    def scope_log(self) -> ScopeLog:
        return self.panels.scope_log

    @property
    def inspector(self) -> Inspector:
        return self.panels.inspector

    def on_mount(self) -> None:
        apply_collector_policy(paused=True)  # the TUI's entry point: before the files' trees are made
        self.theme_styles.follow()
        self.status_bar.set(file_name=self.suite_name)
        self._load(keep=False)
        (self.query_one(ErrorsView) if self.invalid else self.file_tree).focus()
        if self.watch_file:
            self.set_interval(POLL_SECONDS, self._poll_file)
        self.call_after_refresh(self._first_painted)

    def _first_painted(self) -> None:
        if self.first_paint_at is None:
            self.first_paint_at = time.perf_counter()
            resume_collector()  # (paused at mount: what start-up made is walked once, now)

    def on_unmount(self) -> None:
        resume_collector()  # an app that ends before its first paint

    # ------------------------------------------------------------ loading and watching

    @property
    def suite_name(self) -> str:
        return Path(self.path).name if len(self.paths) == 1 else f"{len(self.paths)} files"

    @property
    def file(self) -> ScenarioFileNode | None:
        """The first file that can run (the only one, unless this is a suite)."""
        return next(iter(self.loaded_files()), None)

    def loaded_files(self) -> list[ScenarioFileNode]:
        """The files that can run, in the order given: what a run runs."""
        return [file for file in self.files if isinstance(file, ScenarioFileNode)]

    def _poll_file(self) -> None:
        """Saved on disk: reload, unless a run is active or paused (the header then says R reloads)."""
        if self.suite_files.changed() and self.run_controller.file_changed_on_disk():
            self.action_reload()

    def _load(self, keep: bool) -> bool:
        """Read the files; show their tree, or a lone file's errors. Whether any file can run."""
        self.files = files = self.suite_files.load(keep)  # on a reload, only the files that changed
        switcher = self.query_one(ContentSwitcher)
        broken = [file for file in files if isinstance(file, BrokenFile)]
        self.invalid = len(broken) == len(files)
        if len(files) == 1 and broken:  # a lone file: its errors take the screen
            error = broken[0]
            self.query_one(ErrorsView).show(self.path, error.diagnostics, error.message)
            switcher.current = "errors"
            self.query_one(ErrorsView).focus()  # PageDown / End scroll the errors at once
            count = len(error.diagnostics)
            self.status_bar.set(
                state=(
                    f"invalid: {count} error{'s' if count != 1 else ''}" if count else "invalid: cannot read the file"
                ),
                counts="",
                note="",
            )
            return False
        shapes = self.reader.index(files)
        switcher.current = "main"
        if self.focused is None or isinstance(self.focused, ErrorsView):
            self.file_tree.focus()
        self.file_tree.load(files, keep=keep, shapes=shapes)
        self.call_after_refresh(self.call_after_refresh, self._analyse)  # after the first paint and what waits for it
        self.file_tree.border_title = self.suite_name
        self.run_controller.reset_views()
        if broken:  # a suite: the valid files still show and run
            self.status_bar.set(
                state="ready — n steps, c runs" if not self.invalid else "invalid: no file can run",
                counts="",
                note=f"{len(broken)} of {len(files)} files cannot run — highlight one for its errors",
            )
        elif not selects_any(self.loaded_files(), self.stepper.selected):  # as `run` refuses it
            self.status_bar.set(
                state="ready — n steps, c runs",
                counts="",
                note=f"--tags '{self.stepper.selected}' selects no scenario of these files",
            )
        else:
            self.status_bar.set(state="ready — n steps, c runs", counts="", note="")
        self.show_item(self.file_tree.cursor_node.data if self.file_tree.cursor_node else None)
        return not self.invalid

    def action_reload(self) -> None:
        """Read the file again (it is also polled): the tree keeps its expansion and cursor."""
        self.run_worker(self._reload(), group="control", exclusive=True)

    async def _reload(self) -> None:
        await self.stepper.reset()
        if not self.is_running:  # quit while the run wound down (a file saved as the user quit)
            return
        self._load(keep=True)
        if not self.invalid:
            self.status_bar.set(note="reloaded")

    # ------------------------------------------------------------ highlighted node

    @on(Tree.NodeHighlighted, "#tree")
    def _highlighted(self, event: Tree.NodeHighlighted[TreeItem]) -> None:
        self.show_item(event.node.data)
        self.run_controller.history.tree_highlighted(event.node.data)

    def show_item(self, item: TreeItem | None) -> None:
        self.refresh_bindings()  # the footer's v follows the run (the cursor follows it too)
        self.parameters_panel.show(self.reader.parameters_for(item), subject(item) if item else "")
        inspector = self.inspector
        if item is None:
            return
        if item.kind == "step":
            run = self.run_controller.records.get(item.key)
            current = self.stepper.current
            about = current is not None and current.key == item.key and self.stepper.state == PAUSED
            shown = run.scenario if run is not None else item.scenario  # a definition: its latest run's
            scenario = shown.name if shown is not None else None
            preview = self.stepper.preview() if about else None  # the request as it will be sent
            inspector.show_step(item.node, run, about, scenario, self.file_tree.warnings.of(item), preview)
            return
        result = self.run_controller.scenario_results.get(item.key)
        title, lines = node_summary(item, self.file_tree, result, self.stepper.finished, self.display_options)
        inspector.show_note(title, lines[:1] + warning_lines(self.file_tree.warnings.of(item)) + lines[1:])

    @on(RunEvents.Redrawn)
    def _run_redrawn(self, event: RunEvents.Redrawn) -> None:
        """The highlighted node as the run left it, unless the history is on view."""
        cursor = self.file_tree.cursor_node
        item = cursor.data if cursor is not None else None
        if item is not None and (event.files or item.kind != "file") and self.run_controller.history.shown is None:
            self.show_item(item)

    def _analyse(self) -> None:
        """Static scope analysis after the first paint: warnings marked in the tree, before any run."""
        self.file_tree.show_warnings(self.reader.warnings(self.files))
        cursor = self.file_tree.cursor_node
        self.show_item(cursor.data if cursor is not None else None)

    # ------------------------------------------------------------ stepping (see RunController)

    def action_next_step(self) -> None:  # the first `n` starts the run
        self.run_controller.start("step")

    def action_continue_run(self) -> None:  # to the next breakpoint or the end
        self.run_controller.start("continue")

    def action_stop(self) -> None:
        self.run_controller.stop()

    def action_restart(self) -> None:
        """Start again from a fresh state, paused before the first step."""
        self.run_controller.restart()

    def action_break_on_failure(self, on: bool) -> None:
        """`f`: with it on, a failing step pauses the run before the scenario's rest is skipped."""
        self.run_controller.toggle_break_on_failure()

    @on(RunController.BreakOnFailureChanged)
    def _break_on_failure_changed(self, event: RunController.BreakOnFailureChanged) -> None:
        self.refresh_bindings()  # the footer shows the f that says the state
        self.notify("Break on failure: on." if event.on else "Break on failure: off.")

    def action_run_to_here(self) -> None:
        """`g`: continue until just before the highlighted step."""
        self.run_controller.run_to(self.file_tree.cursor_node.data if self.file_tree.cursor_node else None)

    def action_run_only(self) -> None:
        """`o`: a fresh run of the highlighted scenario alone."""
        self.run_controller.run_only(self.file_tree.cursor_node.data if self.file_tree.cursor_node else None)

    def action_history(self) -> None:
        self.run_controller.history.toggle()

    def action_live_view(self) -> None:
        self.run_controller.history.live()

    def action_json_playground(self) -> None:
        open_playground(self, self.inspector.shown, self.display_options)

    def action_paste_curl(self) -> None:
        open_curl_paste(self, self.file_tree.cursor_node)

    def on_json_playground_extract_written(self, event: JsonPlayground.ExtractWritten) -> None:
        self.notify(f"Wrote '{event.text}' at line {event.line}.")
        self._poll_file()  # reloads now, as the watcher would

    @on(HistoryList.Picked)
    def _history_picked(self, event: HistoryList.Picked) -> None:
        self.run_controller.history.show(event.run)

    @on(HistoryList.Closed)
    def _history_closed(self) -> None:
        self.run_controller.history.live()

    def action_toggle_breakpoint(self) -> None:
        node = self.file_tree.cursor_node
        item = node.data if node is not None else None
        reason = "no file can run: fix its errors first" if self.invalid else never_pauses(item)
        if reason and not (item is not None and item.key in self.file_tree.breakpoints):  # removing one always works
            self.status_bar.set(note=f"no breakpoint here: {reason}")
            return
        self.file_tree.toggle_breakpoint()

    @on(FileTree.BreakpointsChanged)
    def _breakpoints_changed(self, event: FileTree.BreakpointsChanged) -> None:
        item = event.item
        what = ""
        if item is not None:
            what = f"{item.node.keyword} line {item.line}" if item.kind == "step" else f"{item.kind} line {item.line}"
        done = "breakpoint set" if event.added else "breakpoint removed"
        self.status_bar.set(note=f"{done}{f' on {what}' if what else ''} ({len(event.breakpoints)} in all)")
        if self.file_tree.cursor_node is not None:  # the inspector says whether it has one
            self.show_item(self.file_tree.cursor_node.data)

    @on(VariablesPanel.ValueSelected)
    def _open_value(self, event: VariablesPanel.ValueSelected) -> None:
        self.push_screen(variable_viewer(event, self.display_options, self.scope_log.history))

    def action_reveal_secrets(self) -> None:
        display = self.display_options
        display.reveal_secrets = not display.reveal_secrets
        if isinstance(self.screen, ValueViewer):
            self.screen.rebuild()
        self.scope_log.rerender()
        self.run_controller.flush_panels(force=True)
        self.notify("Secrets shown — v masks them again." if display.reveal_secrets else "Secrets masked.")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer shows a key only where it applies (False hides it and turns it off)."""
        if action == "reveal_secrets":  # once a run has shown requests and variables (or to mask again)
            return bool(self.run_controller.records) or self.display_options.reveal_secrets
        if action == "toggle_maximize":
            return self.screen.focused is not None
        if action == "break_on_failure":  # of f's two bindings the footer shows the one that says the state
            return parameters[0] != self.stepper.break_on_failure
        return True

    def action_toggle_wrap(self) -> None:
        self.inspector.action_toggle_wrap()

    def action_copy_curl(self) -> None:
        command = self.inspector.copy_curl()
        if command is not None:  # shown to select, as the clipboard may not have it
            self.push_screen(CurlView(command, masked=not self.display_options.reveal_secrets))

    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None:
        """Palette → Screenshot: into the working directory (Textual's ~/Downloads may not exist)."""
        return super().deliver_screenshot(filename, path or os.getcwd(), time_format)

    # ------------------------------------------------------------ `e`: $EDITOR at the node's line

    def action_edit(self) -> None:
        """Open the highlighted node's file at its line in $EDITOR; the app waits, then reloads."""
        node = self.file_tree.cursor_node
        if node is not None and node.data is not None and node.data.kind != "suite":
            note, ran = open_in_editor(self, node.data)
            self.status_bar.set(note=note)
            if ran:
                self._poll_file()  # what a save changed reloads now, as the watcher would

    # ------------------------------------------------------------ `/`: filter the tree

    def action_filter_tree(self) -> None:
        box = self.query_one(FilterInput)
        box.add_class("-shown")
        box.focus()

    @on(Input.Changed, "#tree-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        text = event.value.strip()
        shown = self.file_tree.set_filter(text)
        cursor = self.file_tree.cursor_node  # the cursor may stay on line 0 with another node under it
        self.show_item(cursor.data if cursor is not None else None)
        self.file_tree.border_title = self.suite_name + (
            f" · /{text}: {shown} scenario{'s' if shown != 1 else ''}" if text else ""
        )

    @on(FilterInput.Done)
    def _filter_done(self, event: FilterInput.Done) -> None:
        if event.cleared:
            box = self.query_one(FilterInput)
            box.value = ""  # (Esc in the filtered tree asks too: the filter goes)
            box.remove_class("-shown")
        self.file_tree.focus()

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    async def action_quit(self) -> None:
        if self.stepper.execution is not None:
            self.stepper.execution.stop()
        self.exit(0)

    # ------------------------------------------------------------ layout, edit and continue, coverage

    def on_resize(self, event: Resize) -> None:
        self.tree_split.apply(event.size.width)

    def action_widen_tree(self) -> None:
        self.tree_split.widen()

    def action_narrow_tree(self) -> None:
        self.tree_split.narrow()

    def action_toggle_maximize(self) -> None:
        toggle_maximize(self.screen)

    def action_edit_variable(self) -> None:
        self.edit_and_continue.open_editor()

    def on_variable_editor_applied(self, event: VariableEditor.Applied) -> None:
        self.edit_and_continue.apply(event)

    def action_resend_step(self) -> None:  # `a`: the step paused on, with the variables as they are now
        self.run_controller.resend()

    def action_response_diff(self) -> None:  # `d`: what the response answers differently from before
        self.response_compare.open((self.inspector.shown or (None, None))[1])

    def action_load_report(self) -> None:
        self.response_compare.ask_for_report()

    def action_coverage(self) -> None:
        from scenario_tui.widgets.coverage_screen import CoverageScreen

        self.push_screen(CoverageScreen(self.coverage_tap.coverage))

    # ------------------------------------------------------------ command palette

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield from app_commands(self)
