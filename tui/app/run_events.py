"""The executor's events mapped onto the widgets: tree statuses, the step records the inspector
and the history show, the Variables and Scope events panels, the header line.

It computes no rule: everything it shows comes from the executor's events (through `Stepper`).
Panels are redrawn at most every 100 ms while stepping (300 ms while `c` runs on), and at once
when the run pauses; then `Redrawn` tells the app, which shows the highlighted node again.
RunController (run_controller.py) drives the run and owns its state (`RunState`, run_state.py),
which it hands to its RunEvents with the widgets and services the events are drawn on.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from textual.app import App
from textual.message import Message

from scenario_core.parameters.sharing import StoreRef
from scenario_core.run import events as ev
from scenario_core.run.edits import VariableEdited
from scenario_core.run.stepper import CONTINUE, IDLE, Stepper, StepRun
from scenario_core.support.records import replace
from scenario_tui.app.history import History
from scenario_tui.app.panels import Panels
from scenario_tui.app.run_header import counts_line, state_line
from scenario_tui.app.run_state import RunState
from scenario_tui.widgets.display import Display
from scenario_tui.widgets.tree_items import FAILED, PASSED, SKIPPED, Key
from scenario_tui.widgets.tree_items import RUNNING as NODE_RUNNING

PANELS_STEPPING, PANELS_RUNNING = 0.1, 0.3  # seconds between redraws of the panels
FILE_CHANGED = "file changed — R reloads (restarts the run)"


class RunEvents:
    """The stepper's events onto the widgets, and the panels' redraws. Made by RunController,
    which gives it the run's state and what it draws on; the stepper calls `receive` with each
    event and `breakpoint_hit` before each step."""

    class Redrawn(Message):
        """The panels show the run as it is now: the app shows the highlighted node again (its
        inspector and parameters), unless the history is on view. Handled after what is queued
        before it: the app reads the cursor and the history then, so what a key pressed meanwhile
        did (a move, `h`) is not undone."""

        def __init__(self, files: bool) -> None:
            super().__init__()
            self.files = files  # a file's node too (its summary says how the run ended)

    def __init__(
        self, app: App[int], panels: Panels, display: Display, stepper: Stepper, history: History, state: RunState
    ) -> None:
        self.app = app  # Textual's: timers, and where messages go
        self.panels = panels
        self.display = display
        self.stepper = stepper
        self.history = history
        self.state = state
        self._panels_dirty = False  # a redraw of the panels is due (its timer is set)
        self._reset_note_seen = True  # a feature's reset note has stayed for a scenario
        self._event_run: StepRun | None = None  # the step record of the event being received

    def _locate(self, run: StepRun, event: ev.StepStarted | ev.StepFinished) -> None:
        """Where a step run shows in the tree (its key), and where it is written (definitions)."""
        if run.key is None:
            run.key, run.definitions = self.panels.tree.step_keys(
                run.scenario, event.phase, event.via, event.step, run.feature
            )

    def breakpoint_hit(self, event: ev.StepStarted, run: StepRun) -> bool:
        """Pause when the run *enters* a node that has a breakpoint: a step, or the first step of a
        scenario, feature, background, fragment or include."""
        tree, state = self.panels.tree, self.state
        self._locate(run, event)
        keys = [run.key, *run.definitions]
        entered: set[Key] = set()
        if tree.breakpoints:
            prefixes = _prefixes(keys, ())
            entered = (tree.breakpoints & prefixes) - self._previous()
            state.bp_previous = prefixes
        else:  # what the step is inside is worked out only if a breakpoint is set before the next one
            state.bp_previous, state.bp_last = None, (keys, [])
        if state.run_to is not None and (run.key == state.run_to or state.run_to in run.definitions):
            state.run_to = None  # reached: `g` pauses once
            state.reached = True
            return True
        return bool(entered)

    def receive(self, event: ev.Event, run: StepRun | None) -> None:
        """The stepper's callback: each event, with the step record it belongs to (`run`), goes
        to the method RUN_EVENTS names for its type (run.consumers' one dispatch style)."""
        self.display.learn(event)
        if not self._panels_dirty:
            self.panels_changed()
        handler = RUN_EVENTS.get(type(event))
        if handler is not None:
            self._event_run = run
            handler(self, event)

    def _step_started(self, event: ev.StepStarted) -> None:
        run, tree = self._event_run, self.panels.tree
        if run is None:
            return
        self._locate(run, event)
        if run.key is not None:
            self._keep_record(run, run.key)
            self._set_group_status(run, NODE_RUNNING)
            if self.stepper.mode != CONTINUE:  # while `c` runs on, ▶ (set_current) says it
                tree.set_status(run.key, NODE_RUNNING)
        tree.set_current(run.key, follow=False)
        self.state.snapshot = event.snapshot

    def _step_finished(self, event: ev.StepFinished) -> None:
        run, tree = self._event_run, self.panels.tree
        if run is None:
            return
        self._locate(run, event)
        if run.key is not None:
            self._keep_record(run, run.key)
            tree.set_status(run.key, event.status)
            self._set_group_status(run, event.status)
        if event.status != SKIPPED:
            self.state.changed = run.changed
            self.state.snapshot = event.snapshot
            if run.replaces is not None:  # re-sent: its new run replaces the old one
                self.history.replace(run.replaces, run)
            else:
                self.history.add(run)

    def _logged(self, event: ev.Event) -> None:
        self.panels.scope_log.record(event)

    def _variable_edited(self, event: VariableEdited) -> None:  # while paused: the panels show it at once
        self.panels.scope_log.record(event)
        self.state.snapshot = event.snapshot
        self.state.changed = frozenset((event.name,))

    def _scenario_started(self, event: ev.ScenarioStarted) -> None:
        tree, state = self.panels.tree, self.state
        key = tree.scenario_key(event.scenario)
        if key is not None:  # (a scenario runs once per run: nothing of it to clear)
            tree.set_status(key, NODE_RUNNING)
            if state.bp_previous is None:
                state.bp_last[1].append(key)
            else:
                state.bp_previous = {k for k in state.bp_previous if key[: len(k)] == k}
        state.scenario = event
        state.snapshot = event.snapshot  # `changed` stays: what the last step did
        state.cleared = ""
        self.panels.scope_log.record(event)

    def _scenario_finished(self, event: ev.ScenarioFinished) -> None:
        panels, tree, state = self.panels, self.panels.tree, self.state
        if self._reset_note_seen:
            panels.status_bar.set(note="")  # a feature's reset stays in the status line for a scenario
        self._reset_note_seen = True
        key = tree.scenario_key(event.scenario)
        if key is not None:
            tree.set_status(key, event.status)
            state.scenario_results[key] = event
            if len(key) > 2:  # (file, feature, scenario): a feature's scenario
                state.feature_results.setdefault(key[:2], []).append(event.status)
        if event.interrupted:  # (skipped when stopped between steps)
            state.counts.stopped += 1
        else:
            state.counts.add(event.status)
        if state.scenario is not None and event.scenario is state.scenario.scenario:
            state.snapshot = event.snapshot  # (one never started, not selected, has nothing to show)

    def _feature_started(self, event: ev.FeatureStarted) -> None:
        tree = self.panels.tree
        key = tree.feature_key(event.feature)
        if key is not None:
            tree.set_status(key, NODE_RUNNING)
            self.state.feature_results[key] = []

    def _feature_finished(self, event: ev.FeatureFinished) -> None:
        panels, tree = self.panels, self.panels.tree
        key = tree.feature_key(event.feature)
        if key is not None:
            tree.set_status(key, _overall(self.state.feature_results.get(key, [])))
        panels.scope_log.record(event)
        if event.cleared:  # the feature-boundary reset: also where the eye is
            self._store_cleared(event.store, f"feature '{event.feature.name}' ended", event.cleared)
            self._reset_note_seen = False
            panels.status_bar.set(
                note=f"feature '{event.feature.name}' ended — cleared shared variables: " + ", ".join(event.cleared)
            )

    def _file_started(self, event: ev.FileStarted) -> None:
        tree = self.panels.tree
        tree.set_status(tree.file_key(event.file), NODE_RUNNING)

    def _file_finished(self, event: ev.FileFinished) -> None:
        tree = self.panels.tree
        tree.set_status(tree.file_key(event.file), FAILED if event.failed else (PASSED if event.passed else SKIPPED))
        self.panels.scope_log.record(event)
        if event.cleared:
            self._store_cleared(None, "the file ended", event.cleared)

    def _run_finished(self, event: ev.RunFinished) -> None:
        self.panels.tree.set_current(None)
        self.panels.scope_log.record(event)

    def _store_cleared(self, store: StoreRef | None, when: str, names: tuple[str, ...]) -> None:
        """A store was dropped (None: the file store): if the Variables panel shows it, it shows
        it empty from now on, saying when it was cleared, as the Scope events log does."""
        state = self.state
        snapshot = state.snapshot
        shown = snapshot.store if snapshot is not None else None
        if snapshot is None or shown is None or (shown != store if store is not None else shown.feature is not None):
            return
        state.snapshot = replace(snapshot, store_values={}, store_origins={})
        state.cleared = f"cleared when {when}: {', '.join(names)}"
        self._panels_dirty = True

    def _previous(self) -> set[Key]:
        """The nodes the last step run was inside (and the scenarios started since are inside)."""
        state = self.state
        if state.bp_previous is None:
            state.bp_previous = _prefixes(*state.bp_last)
        return state.bp_previous

    def _keep_record(self, run: StepRun, key: Key) -> None:
        """The inspector finds a step run under its scenario (`key`, its place there), and (its
        latest run) under the background or fragment it is written in."""
        records = self.state.records
        records[key] = run
        for key in run.definitions:
            records[key] = run

    def _set_group_status(self, run: StepRun, status: str) -> None:
        """Backgrounds and includes under a scenario take the status of the steps run through them."""
        tree = self.panels.tree
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

    def flush_panels(self, force: bool = False, files: bool = False) -> None:
        """Redraw the panels if anything changed (`force`: in any case); `files`: see `Redrawn`."""
        panels, state = self.panels, self.state
        panels.scope_log.flush()
        if force:
            self._panels_dirty = True
        if not self._panels_dirty:
            return
        self._panels_dirty = False
        scenario = state.scenario.scenario.name if state.scenario is not None else None
        if self.history.shown is None:
            panels.variables_panel.show(state.snapshot, scenario, state.changed, state.cleared)
        self.update_status()
        self.app.post_message(self.Redrawn(files))

    def update_status(self) -> None:
        stepper, run = self.stepper, self.state
        seconds = self.display.seconds(run.run_seconds)
        state, subject = state_line(stepper, run.stopped_at, seconds)
        done = stepper.finished
        counts = counts_line(run.counts, self.panels.tree.scenario_count, bool(done and done.interrupted))
        if run.only is not None and stepper.state != IDLE:
            counts = f"only scenario '{run.only.name}'" + (" — " + counts if counts else "")
        self.panels.status_bar.set(state=state, subject=subject, counts=counts)
        if run.file_changed:
            self.panels.status_bar.set(note=FILE_CHANGED)

    def reset_views(self) -> None:
        """A new run: its state starts over, the history is cleared, the widgets show nothing run."""
        panels = self.panels
        self.state.start_over()
        self.history.clear()  # (back to the live view: a redraw, of the scopes still on view)
        self.state.clear_scopes()
        panels.tree.clear_statuses()
        panels.variables_panel.show(None)
        panels.scope_log.reset()


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


# The method that receives each event type (the TUI's table, as run.consumers' consumers have).
RUN_EVENTS: dict[type[ev.Event], Callable[[RunEvents, Any], None]] = {
    ev.StepStarted: RunEvents._step_started,
    ev.StepFinished: RunEvents._step_finished,
    ev.VariableExtracted: RunEvents._logged,
    ev.VariableOverwritten: RunEvents._logged,
    VariableEdited: RunEvents._variable_edited,
    ev.ScenarioStarted: RunEvents._scenario_started,
    ev.ScenarioFinished: RunEvents._scenario_finished,
    ev.FeatureStarted: RunEvents._feature_started,
    ev.FeatureFinished: RunEvents._feature_finished,
    ev.ScopeCreated: RunEvents._logged,
    ev.WebhookCallsDropped: RunEvents._logged,
    ev.FileStarted: RunEvents._file_started,
    ev.FileFinished: RunEvents._file_finished,
    ev.RunFinished: RunEvents._run_finished,
}
