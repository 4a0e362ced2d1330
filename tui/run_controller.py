"""Between the stepper and the widgets: the executor's events mapped onto the tree, the panels and
the status line, and the keys that drive a run (`n`, `c`, `s`, `r`, `f` break on failure, `g` run to
here, `o` run this scenario only), and what a change on disk does to a run.

It computes no rule: everything it shows comes from the executor's events (through `Stepper`).
Panels are redrawn at most every 100 ms while a run goes on, and at once when it pauses.
"""

from __future__ import annotations

import gc
import time
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from scenario_core import events as ev
from scenario_core.executor import INTERRUPTED
from scenario_core.nodes import ScenarioNode
from scenario_core.resolution import RunOverrides

from .failures import show_failures
from .history import History
from .run_header import counts_line, state_line
from .run_to import refusal
from .stepper import CONTINUE, FINISHED, IDLE, PAUSED, Stepper, StepRun
from .widgets.file_tree import FAILED, PASSED, SKIPPED, Key
from .widgets.file_tree import RUNNING as NODE_RUNNING

PANELS_STEPPING, PANELS_RUNNING = 0.1, 0.3  # seconds between redraws of the panels
FILE_CHANGED = "file changed — R reloads (restarts the run)"

if TYPE_CHECKING:
    from .app import ScenarioApp


class RunController:
    """One per app; survives reloads and restarts (the stepper is reset, not replaced)."""

    def __init__(self, app: ScenarioApp, files, overrides: RunOverrides, run_variables: Mapping[str, Any],
                 resource_roots: Sequence[str] = (), tags: Any = None) -> None:
        self.app = app
        self.records: dict[Key, StepRun] = {}
        self.scenario_results: dict[Key, ev.ScenarioFinished] = {}
        self._feature_results: dict[Key, list[str]] = {}
        self._bp_previous: set[Key] | None = set()  # None: worked out from _bp_last when needed
        self._bp_last: tuple[list[Key | None], list[Key]] = ([], [])  # a step's keys, scenarios started since
        self._counts = [0, 0, 0, 0]  # passed, failed, skipped, stopped (a stop is not a failure)
        self._run_seconds = 0.0  # time spent pulling events: a pause does not count
        self._stopped_at: int | None = None  # the line of the step the run was stopped at
        self._run_to: Key | None = None  # `g`: pause just before this step
        self._reached = False  # the last pause is where `g` ran to
        self._only: ScenarioNode | None = None  # `o`: the scenario the current run is limited to
        self.file_changed = False  # saved on disk while a run was active: R reloads
        self._scenario: ev.ScenarioStarted | None = None
        self._changed: frozenset[str] = frozenset()
        self._snapshot: ev.ScopeSnapshot | None = None
        self._panels_dirty = False
        self._frozen = False  # gc.freeze() while `c` runs on
        self._queued_steps = 0
        self._reset_note_seen = True
        self.advancing = False  # a worker is pulling events (or about to)
        self.stepper = Stepper(files, overrides, run_variables, self._on_run_event, self._breakpoint_hit)
        self.stepper.resource_roots = tuple(resource_roots)
        self.stepper.selected = tags  # --tags: a TagExpression
        self.history = History(app, self)

    # ------------------------------------------------------------ run events -> widgets

    def _breakpoint_hit(self, event: ev.StepStarted, run: StepRun) -> bool:
        """Pause when the run *enters* a node that has a breakpoint: a step, or the first step of a
        scenario, feature, background, fragment or include."""
        tree = self.app.tree
        if run.key is None:
            run.key, run.definitions = tree.step_keys(run.scenario, event.phase, event.via, event.step, run.feature)
        keys = [run.key, *run.definitions]
        entered: set[Key] = set()
        if tree.breakpoints:
            prefixes = _prefixes(keys, ())
            entered = (tree.breakpoints & prefixes) - self._previous()
            self._bp_previous = prefixes
        else:  # what the step is inside is worked out only if a breakpoint is set before the next one
            self._bp_previous, self._bp_last = None, (keys, [])
        if self._run_to is not None and (run.key == self._run_to or self._run_to in run.definitions):
            self._run_to = None  # reached: `g` pauses once
            self._reached = True
            return True
        return bool(entered)

    def _on_run_event(self, event: ev.Event, run: StepRun | None) -> None:
        app = self.app
        app.display_options.learn(event)
        if not self._panels_dirty:
            self.panels_changed()
        tree = app.tree
        log = app.scope_log
        if isinstance(event, ev.StepStarted) and run is not None:
            if run.key is None:
                run.key, run.definitions = tree.step_keys(run.scenario, event.phase, event.via, event.step,
                                                          run.feature)
            if run.key is not None:
                self._keep_record(run)
                self._set_group_status(run, NODE_RUNNING)
                if self.stepper.mode != CONTINUE:  # while `c` runs on, ▶ (set_current) says it
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
                self.history.add(run)
        elif isinstance(event, (ev.VariableExtracted, ev.VariableOverwritten)):
            log.record(event)
        elif isinstance(event, ev.ScenarioStarted):
            key = tree.scenario_key(event.scenario)
            if key is not None:  # (a scenario runs once per run: nothing of it to clear)
                tree.set_status(key, NODE_RUNNING)
                if self._bp_previous is None:
                    self._bp_last[1].append(key)
                else:
                    self._bp_previous = {k for k in self._bp_previous if key[: len(k)] == k}
            self._scenario = event
            self._snapshot = event.snapshot  # `_changed` stays: what the last step did
            log.record(event)
        elif isinstance(event, ev.ScenarioFinished):
            if self._reset_note_seen:
                app.status_bar.set(note="")  # a feature's reset stays in the status line for a scenario
            self._reset_note_seen = True
            key = tree.scenario_key(event.scenario)
            stopped = event.message == INTERRUPTED  # (skipped when stopped between steps)
            if key is not None:
                tree.set_status(key, event.status)
                self.scenario_results[key] = event
                if len(key) > 2:  # (file, feature, scenario): a feature's scenario
                    self._feature_results.setdefault(key[:2], []).append(event.status)
            self._counts[3 if stopped else {PASSED: 0, FAILED: 1}.get(event.status, 2)] += 1
            if self._scenario is not None and event.scenario is self._scenario.scenario:
                self._snapshot = event.snapshot  # (one never started, not selected, has nothing to show)
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
                app.status_bar.set(note=f"feature '{event.feature.name}' ended — cleared shared variables: "
                                        + ", ".join(event.cleared))
        elif isinstance(event, ev.ScopeCreated):
            log.record(event)
        elif isinstance(event, ev.FileStarted):
            tree.set_status(tree.file_key(event.file), NODE_RUNNING)
        elif isinstance(event, ev.FileFinished):
            tree.set_status(tree.file_key(event.file), FAILED if event.failed else (PASSED if event.passed else SKIPPED))
            log.record(event)
        elif isinstance(event, ev.RunFinished):
            tree.set_current(None)
            log.record(event)

    def _previous(self) -> set[Key]:
        """The nodes the last step run was inside (and the scenarios started since are inside)."""
        if self._bp_previous is None:
            self._bp_previous = _prefixes(*self._bp_last)
        return self._bp_previous

    def _keep_record(self, run: StepRun) -> None:
        """The inspector finds a step run under its scenario, and (its latest run) under the
        background or fragment it is written in."""
        self.records[run.key] = run
        for key in run.definitions:
            self.records[key] = run

    def _set_group_status(self, run: StepRun, status: str) -> None:
        """Backgrounds and includes under a scenario take the status of the steps run through them."""
        tree = self.app.tree
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

    def panels_changed(self) -> None:
        """Variables, scope events and inspector are redrawn at most every 100 ms while stepping,
        300 ms while `c` runs on (and at once when it pauses)."""
        if not self._panels_dirty:
            self._panels_dirty = True
            # Each redraw lays the screen out again: while `c` runs on, a few a second is plenty.
            continuing = self.stepper.mode == CONTINUE
            self.app.set_timer(PANELS_RUNNING if continuing else PANELS_STEPPING, self.flush_panels)

    def flush_panels(self, force: bool = False) -> None:
        app = self.app
        app.scope_log.flush()
        if force:
            self._panels_dirty = True
        if not self._panels_dirty:
            return
        self._panels_dirty = False
        if self.stepper.busy and self.stepper.mode == CONTINUE:
            # What the run keeps (step records, snapshots, log lines) only grows: collect the young
            # garbage and set the survivors aside, so that full collections do not walk them again
            # and again (reset_views gives them back to the collector).
            gc.collect(1)
            gc.freeze()
            self._frozen = True
        scenario = self._scenario.scenario.name if self._scenario is not None else None
        if self.history.shown is None:
            app.variables_panel.show(self._snapshot, scenario, self._changed)
        self.update_status()
        cursor = app.tree.cursor_node
        if cursor is not None and cursor.data is not None and cursor.data.kind != "file" and self.history.shown is None:
            app.show_item(cursor.data)

    def update_status(self) -> None:
        stepper = self.stepper
        seconds = self.app.display_options.seconds(self._run_seconds)
        state, subject = state_line(stepper, self._stopped_at, seconds)
        done = stepper.finished
        counts = counts_line(self._counts, self.app.tree.scenario_count, bool(done and done.interrupted))
        if self._only is not None and stepper.state != IDLE:
            counts = f"only scenario '{self._only.name}'" + (" — " + counts if counts else "")
        self.app.status_bar.set(state=state, subject=subject, counts=counts)
        if self.file_changed:
            self.app.status_bar.set(note=FILE_CHANGED)

    def reset_views(self) -> None:
        app = self.app
        self._unfreeze()  # (a reload while `c` runs: the old tree may be garbage now)
        self._queued_steps = 0
        self.records.clear()
        self.scenario_results.clear()
        self._feature_results.clear()
        self._bp_previous = set()
        self._counts = [0, 0, 0, 0]
        self._run_seconds = 0.0
        self._stopped_at = None
        self._run_to = None
        self.file_changed = False
        self.history.clear()
        self._scenario = None
        self._snapshot = None
        self._changed = frozenset()
        app.tree.clear_statuses()
        app.variables_panel.show(None)
        app.scope_log.reset()
        # Called as a file is loaded (the collector off): what the load made (the syntax tree, the
        # tree's nodes) all lives on. Set aside, the first young collection does not walk it
        # before the first paint; given back after it, to the old generation where it belongs.
        gc.freeze()
        self._frozen = True
        app.call_after_refresh(self._unfreeze)

    # ------------------------------------------------------------ stepping

    def _can_run(self) -> bool:
        app = self.app
        if app.invalid or not app.loaded_files():
            app.notify("The file has errors: fix them and save, it reloads by itself.", severity="error")
            return False
        return True

    async def _advance(self, how: str) -> None:
        if how == "continue":
            # What exists when `c` starts (the syntax tree, the tree's nodes, the widgets, what ran
            # so far) outlives the run: out of the collector's way while it runs, full collections
            # walk only what the run makes (see flush_panels). Given back when it pauses or ends.
            gc.freeze()
            self._frozen = True
        self.advancing = True
        self.update_status()
        started = time.perf_counter()
        try:
            if how == "step":
                await self.stepper.step()
            elif how == "continue":
                await self.stepper.resume()
            else:
                await self.stepper.drain()
        finally:
            self._run_seconds += time.perf_counter() - started  # running time only: pauses are not
            self._unfreeze()
            self._after_advance()

    def _unfreeze(self) -> None:
        if self._frozen:
            gc.unfreeze()
            self._frozen = False

    def _after_advance(self) -> None:
        app = self.app
        stepper = self.stepper
        if self._queued_steps and stepper.state == PAUSED and stepper.pause_reason != "failure":
            self._queued_steps -= 1
            app.run_worker(self._advance("step"), group="run", exit_on_error=True)
            return
        self._queued_steps = 0
        self.advancing = False
        current = stepper.current
        if self._reached and stepper.pause_reason == "breakpoint":
            stepper.pause_reason = "step"  # where `g` ran to: "paused before", as a step would
        self._reached = False
        if stepper.state == PAUSED:
            failed = stepper.paused_after
            if failed is not None and failed.key is not None:
                app.tree.set_current(None)  # between steps: the failed one shows ✗, not ▶
                app.tree.reveal(failed.key)  # its response, in the inspector
            elif current is not None and current.key is not None:
                app.tree.set_current(current.key, follow=True)
        elif stepper.state == FINISHED:
            if self._run_to is not None:
                app.notify("The run ended before reaching the step g ran to.")
                self._run_to = None
            show_failures(app.tree, self.scenario_results, self.history.runs)
        self.flush_panels(force=True)
        cursor = app.tree.cursor_node
        if cursor is not None and cursor.data is not None and self.history.shown is None:
            app.show_item(cursor.data)

    def start(self, how: str) -> None:
        """`n` (how="step") or `c` (how="continue")."""
        if not self._can_run():
            return
        stepper = self.stepper
        if self.advancing:
            if how == "step":
                if stepper.busy and stepper.mode == CONTINUE:
                    stepper.request_pause()  # n while running: pause before the next step
                elif self._queued_steps < 20:
                    self._queued_steps += 1  # n typed ahead while a step runs: step again after it
            return
        if stepper.state == FINISHED:
            self.app.notify("The run has finished: r restarts it.")
            return
        if not self.file_changed:
            self.app.status_bar.set(note="")  # a note of the past (breakpoint set ...) goes
        self.advancing = True  # from now: the worker may not have started pulling yet
        self.app.run_worker(self._advance(how), group="run", exclusive=False, exit_on_error=True)

    def stop(self) -> None:
        self._queued_steps = 0
        stepper = self.stepper
        where = stepper.current or stepper.paused_after
        if not stepper.stop():
            self.app.notify("Nothing is running.")
            return
        self._stopped_at = where.step.location.line if where is not None else None
        self._run_to = None
        self.update_status()
        if not stepper.busy:
            self.app.run_worker(self._advance("drain"), group="run")

    def restart(self, only: ScenarioNode | None = None) -> None:
        """Start again from a fresh state, paused before the first step (`only`: that scenario alone)."""
        if not self._can_run():
            return
        self.app.run_worker(self._restart(only), group="control", exclusive=True)

    async def _restart(self, only: ScenarioNode | None = None, how: str = "step") -> None:
        await self.stepper.reset()
        self._only = only
        self.stepper.include = None if only is None else (lambda scenario, feature: scenario is only)
        changed = self.file_changed  # a restart runs the file as loaded: R still reloads it
        self.reset_views()
        self.file_changed = changed
        self.app.tree.set_current(None)
        self.app.status_bar.set(note="")
        self.update_status()
        await self._advance(how)

    # ------------------------------------------------------------ f, g, o

    def toggle_break_on_failure(self) -> None:
        stepper = self.stepper
        stepper.break_on_failure = not stepper.break_on_failure
        self.app.refresh_bindings()
        self.app.notify("Break on failure: on." if stepper.break_on_failure else "Break on failure: off.")

    def run_to(self, item: Any) -> None:
        """`g`: continue until just before the highlighted step."""
        if not self._can_run():
            return
        reason = refusal(self, item)
        if reason:
            self.app.notify(reason, severity="warning")
            return
        self._run_to = item.key
        if self.stepper.state == IDLE:
            self._bp_previous = set()
        self.start("continue")

    def run_only(self, item: Any) -> None:
        """`o`: a fresh run of the highlighted scenario alone (the others are not selected)."""
        if not self._can_run():
            return
        scenario = item.scenario if item is not None else None
        if scenario is None:
            self.app.notify("o runs one scenario: highlight a scenario or one of its steps.", severity="warning")
            return
        self.app.run_worker(self._restart(scenario, "continue"), group="control", exclusive=True)

    # ------------------------------------------------------------ the file changed on disk

    def file_changed_on_disk(self) -> bool:
        """True: reload now (nothing runs). While a run is active or paused it is kept, and the
        header says R reloads (restarting it)."""
        if self.file_changed:
            return False  # said already: R reloads (the poll sees the change until then)
        if self.stepper.state in (IDLE, FINISHED) and not self.advancing:
            return True
        self.file_changed = True
        self.app.status_bar.set(note=FILE_CHANGED)
        return False


def _overall(statuses: list[str]) -> str:
    if FAILED in statuses:
        return FAILED
    if PASSED in statuses:
        return PASSED
    return SKIPPED


def _prefixes(keys: Sequence[Key | None], within: Sequence[Key]) -> set[Key]:
    """Every node the keys are inside (themselves too), kept to those each of `within` is inside."""
    prefixes = {key[:i] for key in keys if key is not None for i in range(len(key) + 1)}
    for scope in within:
        prefixes = {k for k in prefixes if scope[: len(k)] == k}
    return prefixes
