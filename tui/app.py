"""The step debugger: a file's tree, the effective parameters of what is highlighted, live
variables by layer, scope events and an inspector, driven one step at a time.

The app computes no rule: the tree comes from the parser, parameters and sharing from
`parameter_nodes`, everything about a run from the executor's events (through `Stepper`). It
maps those onto widgets: attributes go down (`show`, `set_status`), messages come up (the tree's
highlight and breakpoint messages). HTTP runs in a worker, so the UI never waits for it.
"""

from __future__ import annotations

import gc
import os
import time
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import ContentSwitcher, Footer, Tree

from scenario_core import events as ev
from scenario_core.errors import InvalidFileError, ScenarioError
from scenario_core.nodes import ScenarioFileNode
from scenario_core.params_report import ParameterNode, parameter_nodes
from scenario_core.parser import load_file
from scenario_core.operation_check import operation_shapes
from scenario_core.resolution import RunOverrides, calls_operations, parameter_diagnostics

from .stepper import CONTINUE, FINISHED, IDLE, PAUSED, RUNNING, Stepper, StepRun
from .widgets.display import Display
from .widgets.errors_view import ErrorsView
from .widgets.file_tree import FAILED, PASSED, SKIPPED, FileTree, Key, TreeItem
from .widgets.file_tree import RUNNING as NODE_RUNNING
from .widgets.help_screen import HelpScreen
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
        self.records: dict[Key, StepRun] = {}
        self._scenario_results: dict[Key, ev.ScenarioFinished] = {}
        self._feature_results: dict[Key, list[str]] = {}
        self._bp_previous: set[Key] = set()
        self._counts = [0, 0, 0]
        self._scenario: ev.ScenarioStarted | None = None
        self._changed: frozenset[str] = frozenset()
        self._snapshot: ev.ScopeSnapshot | None = None
        self._panels_dirty = False
        self._queued_steps = 0
        self._reset_note_seen = True
        self._advancing = False  # a worker is pulling events (or about to)
        self.stepper = Stepper(self._files, self.overrides, self.run_variables, self._on_run_event,
                               self._breakpoint_hit)
        self.stepper.resource_roots = tuple(resource_roots)
        self.stepper.selected = tags  # --tags: a TagExpression

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

    def _files(self) -> list[ScenarioFileNode]:
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
        self._reset_run_views()
        self.status_bar.set(state="ready — n steps, c runs", counts="", note="")
        self._show_item(self.tree.cursor_node.data if self.tree.cursor_node else None)
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
        self._show_item(event.node.data)

    def _show_item(self, item: TreeItem | None) -> None:
        self.parameters_panel.show(self._parameters_for(item), self._subject(item) if item else "")
        inspector = self.inspector
        if item is None:
            return
        if item.kind == "step":
            run = self.records.get(item.key)
            current = self.stepper.current
            about = current is not None and current.key == item.key and self.stepper.state == PAUSED
            shown = run.scenario if run is not None else item.scenario  # a definition: its latest run's
            scenario = shown.name if shown is not None else None
            inspector.show_step(item.node, run, about_to_run=about, scenario=scenario)
            return
        inspector.show_note(*self._summary(item))

    def _summary(self, item: TreeItem) -> tuple[str, list[Text]]:
        lines: list[Text] = []
        if item.kind == "scenario":
            result = self._scenario_results.get(item.key)
            status = self.tree.statuses.get(item.key)
            line = Text()
            line.append(f"scenario '{item.node.name}'", "bold")
            line.append(f"  line {item.line}", "dim")
            lines.append(line)
            if result is not None:
                lines.append(Text(result.status + (f" · {self.display_options.seconds(result.elapsed)}"
                                                   if self.display_options.seconds(result.elapsed) else ""),
                                  style="bold green" if result.status == PASSED else "bold red"))
                if result.message:
                    lines.append(Text(self.display_options.text(result.message), style="red"))
            elif status == NODE_RUNNING:
                lines.append(Text("running", style="bold yellow"))
            else:
                lines.append(Text("not run yet — b sets a breakpoint on it", style="dim"))
            lines.append(Text(f"{len(item.node.steps)} steps of its own; expand it to see every step it runs, "
                              "backgrounds and fragments included.", style="dim"))
            return f"Inspector · scenario line {item.line}", lines
        if item.kind == "file":
            lines.append(Text(f"{Path(self.path).name}", style="bold"))
            file = self.file
            if file is not None:
                scenarios = self.tree.scenario_count
                lines.append(Text(f"{len(file.features)} features · {scenarios} scenarios · "
                                  f"{len(file.fragments)} fragments", style="dim"))
            if self.stepper.finished is not None:
                done = self.stepper.finished
                lines.append(Text(f"last run: {done.passed} passed, {done.failed} failed, {done.skipped} skipped"
                                  + (" (stopped)" if done.interrupted else "")))
            lines.append(Text("n runs one step and pauses · c runs to the next breakpoint · ? help", style="dim"))
            return "Inspector · file", lines
        kinds = {
            "parameters": "parameters: static settings, resolved most specific first (see the Parameters panel)",
            "background": "background: runs again before every scenario it applies to; what it extracts stays "
                          "in the scenario layer",
            "fragment": "fragment: its steps run wherever a scenario includes it, as if written there",
            "feature": "feature: groups scenarios; its parameters apply to its scenarios only",
        }
        lines.append(Text(f"{item.kind} '{item.label}'  line {item.line}", style="bold"))
        lines.append(Text(kinds.get(item.kind, ""), style="dim"))
        return f"Inspector · {item.kind} line {item.line}", lines

    # ------------------------------------------------------------ run events -> widgets

    def _breakpoint_hit(self, event: ev.StepStarted, run: StepRun) -> bool:
        """Pause when the run *enters* a node that has a breakpoint: a step, or the first step of a
        scenario, feature, background, fragment or include."""
        tree = self.tree
        if run.key is None:
            run.key, run.definitions = tree.step_keys(run.scenario, event.phase, event.via, event.step, run.feature)
        prefixes: set[Key] = set()
        for key in [run.key, *run.definitions]:
            if key is not None:
                prefixes.update(key[:i] for i in range(len(key) + 1))
        entered = (tree.breakpoints & prefixes) - self._bp_previous
        self._bp_previous = prefixes
        return bool(entered)

    def _on_run_event(self, event: ev.Event, run: StepRun | None) -> None:
        self.display_options.learn(event)
        self._panels_changed()
        tree = self.tree
        log = self.scope_log
        if isinstance(event, ev.StepStarted) and run is not None:
            if run.key is None:
                run.key, run.definitions = tree.step_keys(run.scenario, event.phase, event.via, event.step,
                                                          run.feature)
            if run.key is not None:
                self._keep_record(run)
                self._set_group_status(run, NODE_RUNNING)
                tree.set_status(run.key, NODE_RUNNING)
            tree.set_current(run.key, follow=False)
            self._snapshot = event.snapshot
        elif isinstance(event, ev.StepFinished) and run is not None:
            if run.key is None:
                run.key, run.definitions = tree.step_keys(run.scenario, event.phase, event.via, event.step,
                                                          run.feature)
            if run.key is not None:
                self._keep_record(run)
                tree.set_status(run.key, event.status)
                self._set_group_status(run, event.status)
            if event.status != SKIPPED:
                self._changed = run.changed
                self._snapshot = event.snapshot
        elif isinstance(event, (ev.VariableExtracted, ev.VariableOverwritten)):
            log.record(event)
        elif isinstance(event, ev.ScenarioStarted):
            key = tree.scenario_key(event.scenario)
            if key is not None:  # (a scenario runs once per run: nothing of it to clear)
                tree.set_status(key, NODE_RUNNING)
                self._bp_previous = {k for k in self._bp_previous if key[: len(k)] == k}
            self._scenario = event
            self._snapshot = event.snapshot  # `_changed` stays: what the last step did
            log.record(event)
        elif isinstance(event, ev.ScenarioFinished):
            if self._reset_note_seen:
                self.status_bar.set(note="")  # a feature's reset stays in the status line for a scenario
            self._reset_note_seen = True
            key = tree.scenario_key(event.scenario)
            if key is not None:
                tree.set_status(key, event.status)
                self._scenario_results[key] = event
                if len(key) > 1:
                    self._feature_results.setdefault(key[:1], []).append(event.status)
            self._counts[{PASSED: 0, FAILED: 1}.get(event.status, 2)] += 1
            self._snapshot = event.snapshot
        elif isinstance(event, ev.FeatureStarted):
            key = tree.feature_key(event.feature)
            if key is not None:
                tree.set_status(key, NODE_RUNNING)
                self._feature_results[key] = []
        elif isinstance(event, ev.FeatureFinished):
            key = tree.feature_key(event.feature)
            if key is not None:
                tree.set_status(key, _overall(self._feature_results.get(key, [])))
            log.record(event)
            if event.cleared:  # the feature-boundary reset: also where the eye is
                self._reset_note_seen = False
                self.status_bar.set(note=f"feature '{event.feature.name}' ended — cleared shared variables: "
                                         + ", ".join(event.cleared))
        elif isinstance(event, ev.ScopeCreated):
            log.record(event)
        elif isinstance(event, ev.FileStarted):
            tree.set_status((), NODE_RUNNING)
        elif isinstance(event, ev.FileFinished):
            tree.set_status((), FAILED if event.failed else (PASSED if event.passed else SKIPPED))
            log.record(event)
        elif isinstance(event, ev.RunFinished):
            tree.set_current(None)
            log.record(event)

    def _keep_record(self, run: StepRun) -> None:
        """The inspector finds a step run under its scenario, and (its latest run) under the
        background or fragment it is written in."""
        self.records[run.key] = run
        for key in run.definitions:
            self.records[key] = run

    def _set_group_status(self, run: StepRun, status: str) -> None:
        """Backgrounds and includes under a scenario take the status of the steps run through them."""
        tree = self.tree
        scenario_key = tree.scenario_key(run.scenario)
        if scenario_key is None or run.key is None:
            return
        for depth in range(len(run.key) - 1, len(scenario_key), -1):
            prefix = run.key[:depth]
            current = tree.statuses.get(prefix)
            if status == FAILED or current == FAILED:
                new = FAILED
            elif status in (NODE_RUNNING, PASSED):
                new = status
            else:
                new = current or SKIPPED
            tree.set_status(prefix, new)

    def _panels_changed(self) -> None:
        """Variables, scope events and inspector are redrawn at most every 100 ms while a run
        goes on (and at once when it pauses)."""
        if not self._panels_dirty:
            self._panels_dirty = True
            self.set_timer(0.1, self._flush_panels)

    def _flush_panels(self) -> None:
        self.scope_log.flush()
        if not self._panels_dirty:
            return
        self._panels_dirty = False
        scenario = self._scenario.scenario.name if self._scenario is not None else None
        self.variables_panel.show(self._snapshot, scenario, self._changed)
        self._update_status()
        cursor = self.tree.cursor_node
        if cursor is not None and cursor.data is not None and cursor.data.kind != "file":
            self._show_item(cursor.data)

    def _update_status(self) -> None:
        state = self.stepper.state
        passed, failed, skipped = self._counts
        counts = f"{passed} passed · {failed} failed · {skipped} skipped" if sum(self._counts) else ""
        current = self.stepper.current
        if state == IDLE:
            text = "ready — n steps, c runs"
        elif state == RUNNING:
            text = "running" if self.stepper.mode == CONTINUE else "stepping"
            if self.stepper.mode == "drain":
                text = "stopping"
            if current is not None:
                text += f" {current.step.keyword} line {current.step.location.line} of '{current.scenario.name}'"
            text += "…"
        elif state == PAUSED and current is not None:
            text = f"paused before {current.step.keyword} line {current.step.location.line} of '{current.scenario.name}'"
        elif state == FINISHED and self.stepper.finished is not None:
            done = self.stepper.finished
            if done.interrupted:
                text = "stopped"
            elif not done.total:
                text = "finished: no scenario to run"
            else:
                text = "finished: failed" if done.failed else "finished: passed"
            elapsed = self.display_options.seconds(done.duration)
            if elapsed:
                text += f" in {elapsed}"
            text += " — r restarts"
        else:
            text = state
        self.status_bar.set(state=text, counts=counts)

    def _reset_run_views(self) -> None:
        self._queued_steps = 0
        self.records.clear()
        self._scenario_results.clear()
        self._feature_results.clear()
        self._bp_previous = set()
        self._counts = [0, 0, 0]
        self._scenario = None
        self._snapshot = None
        self._changed = frozenset()
        self.tree.clear_statuses()
        self.variables_panel.show(None)
        self.scope_log.reset()

    # ------------------------------------------------------------ stepping

    def _can_run(self) -> bool:
        if self.invalid or self.file is None:
            self.notify("The file has errors: fix them and save, it reloads by itself.", severity="error")
            return False
        return True

    async def _advance(self, how: str) -> None:
        self._advancing = True
        self._update_status()
        try:
            if how == "step":
                await self.stepper.step()
            elif how == "continue":
                await self.stepper.resume()
            else:
                await self.stepper.drain()
        finally:
            self._after_advance()

    def _after_advance(self) -> None:
        if self._queued_steps and self.stepper.state == PAUSED:
            self._queued_steps -= 1
            self.run_worker(self._advance("step"), group="run", exit_on_error=True)
            return
        self._queued_steps = 0
        self._advancing = False
        current = self.stepper.current
        if current is not None and current.key is not None and self.stepper.state == PAUSED:
            self.tree.set_current(current.key, follow=True)
        self._panels_dirty = True
        self._flush_panels()
        cursor = self.tree.cursor_node
        if cursor is not None and cursor.data is not None:
            self._show_item(cursor.data)

    def _start(self, how: str) -> None:
        if not self._can_run():
            return
        if self._advancing:
            if how == "step":
                if self.stepper.busy and self.stepper.mode == CONTINUE:
                    self.stepper.request_pause()  # n while running: pause before the next step
                elif self._queued_steps < 20:
                    self._queued_steps += 1  # n typed ahead while a step runs: step again after it
            return
        if self.stepper.state == FINISHED:
            self.notify("The run has finished: r restarts it.")
            return
        self._advancing = True  # from now: the worker may not have started pulling yet
        self.run_worker(self._advance(how), group="run", exclusive=False, exit_on_error=True)

    def action_next_step(self) -> None:
        """Run the next step, then pause (the first `n` starts the run)."""
        self._start("step")

    def action_continue_run(self) -> None:
        """Run to the next breakpoint or to the end."""
        self._start("continue")

    def action_stop(self) -> None:
        self._queued_steps = 0
        if not self.stepper.stop():
            self.notify("Nothing is running.")
            return
        self._update_status()
        if not self.stepper.busy:
            self.run_worker(self._advance("drain"), group="run")

    def action_restart(self) -> None:
        """Start again from a fresh state, paused before the first step."""
        if not self._can_run():
            return
        self.run_worker(self._restart(), group="control", exclusive=True)

    async def _restart(self) -> None:
        await self.stepper.reset()
        self._reset_run_views()
        self.tree.set_current(None)
        self.status_bar.set(note="")
        self._update_status()
        await self._advance("step")

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
        self._panels_dirty = True
        self._flush_panels()
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
        yield SystemCommand("Help", "Keys and icons (?)", self.action_help)


def _overall(statuses: list[str]) -> str:
    if FAILED in statuses:
        return FAILED
    if PASSED in statuses:
        return PASSED
    return SKIPPED


def launch(path: str, overrides: RunOverrides, run_variables: dict, fragments: Sequence[str] = (),
           plugins: Sequence[str] = (), resource_roots: Sequence[str] = (), tags: Any = None) -> int:
    """Open the TUI on `path` (called by `scenario-tui FILE` and `scenario-tui demo`)."""
    app = ScenarioApp(path, overrides, run_variables, fragments=fragments, plugins=plugins,
                      resource_roots=resource_roots, tags=tags)
    result = app.run()
    return int(result or 0) if app.return_code in (None, 0) else int(app.return_code or 1)
