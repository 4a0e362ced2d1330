"""Between the stepper and the widgets: the executor's events mapped onto the tree, the panels and
the status line, and the keys that drive a run (`n`, `c`, `s`, `r`).

It computes no rule: everything it shows comes from the executor's events (through `Stepper`).
Panels are redrawn at most every 100 ms while a run goes on, and at once when it pauses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from scenario_core import events as ev
from scenario_core.resolution import RunOverrides

from .stepper import CONTINUE, FINISHED, IDLE, PAUSED, RUNNING, Stepper, StepRun
from .widgets.file_tree import FAILED, PASSED, SKIPPED, Key
from .widgets.file_tree import RUNNING as NODE_RUNNING

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
        self._bp_previous: set[Key] = set()
        self._counts = [0, 0, 0]
        self._scenario: ev.ScenarioStarted | None = None
        self._changed: frozenset[str] = frozenset()
        self._snapshot: ev.ScopeSnapshot | None = None
        self._panels_dirty = False
        self._queued_steps = 0
        self._reset_note_seen = True
        self.advancing = False  # a worker is pulling events (or about to)
        self.stepper = Stepper(files, overrides, run_variables, self._on_run_event, self._breakpoint_hit)
        self.stepper.resource_roots = tuple(resource_roots)
        self.stepper.selected = tags  # --tags: a TagExpression

    # ------------------------------------------------------------ run events -> widgets

    def _breakpoint_hit(self, event: ev.StepStarted, run: StepRun) -> bool:
        """Pause when the run *enters* a node that has a breakpoint: a step, or the first step of a
        scenario, feature, background, fragment or include."""
        tree = self.app.tree
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
        app = self.app
        app.display_options.learn(event)
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
                app.status_bar.set(note="")  # a feature's reset stays in the status line for a scenario
            self._reset_note_seen = True
            key = tree.scenario_key(event.scenario)
            if key is not None:
                tree.set_status(key, event.status)
                self.scenario_results[key] = event
                if len(key) > 2:  # (file, feature, scenario): a feature's scenario
                    self._feature_results.setdefault(key[:2], []).append(event.status)
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
        """Variables, scope events and inspector are redrawn at most every 100 ms while a run
        goes on (and at once when it pauses)."""
        if not self._panels_dirty:
            self._panels_dirty = True
            self.app.set_timer(0.1, self.flush_panels)

    def flush_panels(self, force: bool = False) -> None:
        app = self.app
        app.scope_log.flush()
        if force:
            self._panels_dirty = True
        if not self._panels_dirty:
            return
        self._panels_dirty = False
        scenario = self._scenario.scenario.name if self._scenario is not None else None
        app.variables_panel.show(self._snapshot, scenario, self._changed)
        self.update_status()
        cursor = app.tree.cursor_node
        if cursor is not None and cursor.data is not None and cursor.data.kind != "file":
            app.show_item(cursor.data)

    def update_status(self) -> None:
        stepper = self.stepper
        state = stepper.state
        passed, failed, skipped = self._counts
        counts = f"{passed} passed · {failed} failed · {skipped} skipped" if sum(self._counts) else ""
        current = stepper.current
        if state == IDLE:
            text = "ready — n steps, c runs"
        elif state == RUNNING:
            text = "running" if stepper.mode == CONTINUE else "stepping"
            if stepper.mode == "drain":
                text = "stopping"
            if current is not None:
                text += f" {current.step.keyword} line {current.step.location.line} of '{current.scenario.name}'"
            text += "…"
        elif state == PAUSED and current is not None:
            text = f"paused before {current.step.keyword} line {current.step.location.line} of '{current.scenario.name}'"
        elif state == FINISHED and stepper.finished is not None:
            done = stepper.finished
            if done.interrupted:
                text = "stopped"
            elif not done.total:
                text = "finished: no scenario to run"
            else:
                text = "finished: failed" if done.failed else "finished: passed"
            elapsed = self.app.display_options.seconds(done.duration)
            if elapsed:
                text += f" in {elapsed}"
            text += " — r restarts"
        else:
            text = state
        self.app.status_bar.set(state=text, counts=counts)

    def reset_views(self) -> None:
        app = self.app
        self._queued_steps = 0
        self.records.clear()
        self.scenario_results.clear()
        self._feature_results.clear()
        self._bp_previous = set()
        self._counts = [0, 0, 0]
        self._scenario = None
        self._snapshot = None
        self._changed = frozenset()
        app.tree.clear_statuses()
        app.variables_panel.show(None)
        app.scope_log.reset()

    # ------------------------------------------------------------ stepping

    def _can_run(self) -> bool:
        app = self.app
        if app.invalid or not app.loaded_files():
            app.notify("The file has errors: fix them and save, it reloads by itself.", severity="error")
            return False
        return True

    async def _advance(self, how: str) -> None:
        self.advancing = True
        self.update_status()
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
        app = self.app
        if self._queued_steps and self.stepper.state == PAUSED:
            self._queued_steps -= 1
            app.run_worker(self._advance("step"), group="run", exit_on_error=True)
            return
        self._queued_steps = 0
        self.advancing = False
        current = self.stepper.current
        if current is not None and current.key is not None and self.stepper.state == PAUSED:
            app.tree.set_current(current.key, follow=True)
        self.flush_panels(force=True)
        cursor = app.tree.cursor_node
        if cursor is not None and cursor.data is not None:
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
        self.advancing = True  # from now: the worker may not have started pulling yet
        self.app.run_worker(self._advance(how), group="run", exclusive=False, exit_on_error=True)

    def stop(self) -> None:
        self._queued_steps = 0
        if not self.stepper.stop():
            self.app.notify("Nothing is running.")
            return
        self.update_status()
        if not self.stepper.busy:
            self.app.run_worker(self._advance("drain"), group="run")

    def restart(self) -> None:
        """Start again from a fresh state, paused before the first step."""
        if not self._can_run():
            return
        self.app.run_worker(self._restart(), group="control", exclusive=True)

    async def _restart(self) -> None:
        await self.stepper.reset()
        self.reset_views()
        self.app.tree.set_current(None)
        self.app.status_bar.set(note="")
        self.update_status()
        await self._advance("step")


def _overall(statuses: list[str]) -> str:
    if FAILED in statuses:
        return FAILED
    if PASSED in statuses:
        return PASSED
    return SKIPPED
