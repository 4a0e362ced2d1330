"""Driving a run: the keys `n`, `c`, `s`, `r`, `f` (break on failure), `g` (run to here), `o`
(run this scenario only) and `a` (re-send the step paused on: edit and continue), and what a
change on disk does to a run. What the run's events do to
the widgets is RunEvents' (run_events.py), which this class extends with the run's state.

It is given the widgets it drives (`Panels`) and Textual's app for its services (workers, timers,
notifications); what the app must know it is told by messages (`RunEvents.Redrawn`,
`RunController.BreakOnFailureChanged`).
"""

from __future__ import annotations

import time
from typing import Callable, Mapping, Sequence

from textual.app import App
from textual.message import Message

from scenario_core.language.nodes.blocks import ScenarioFileNode, ScenarioNode
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run import events as ev
from scenario_core.run.edits import EditError
from scenario_core.run.stepper import CONTINUE, FINISHED, IDLE, PAUSED, Stepper, StepRun
from scenario_tui.app.failures import show_failures
from scenario_tui.app.history import History
from scenario_tui.app.panels import Panels
from scenario_tui.app.run_events import FILE_CHANGED, RunEvents
from scenario_tui.app.run_to import refusal
from scenario_tui.widgets.display import Display
from scenario_tui.widgets.file_tree import Key, TreeItem


class RunController(RunEvents):
    """One per app; survives reloads and restarts (the stepper is reset, not replaced)."""

    class BreakOnFailureChanged(Message):
        """`f` turned break on failure on or off: the footer and a notification say which."""

        def __init__(self, on: bool) -> None:
            super().__init__()
            self.on = on

    def __init__(
        self,
        app: App[int],
        panels: Panels,
        display: Display,
        files: Callable[[], list[ScenarioFileNode]],
        overrides: RunOverrides,
        run_variables: Mapping[str, object],
        resource_roots: Sequence[str] = (),
        tags: object = None,
    ) -> None:
        self.app = app
        self.panels = panels
        self.display = display
        self.files = files  # the files that can run, as loaded now
        self.records: dict[Key, StepRun] = {}
        self.scenario_results: dict[Key, ev.ScenarioFinished] = {}
        self._feature_results: dict[Key, list[str]] = {}
        self._bp_previous: set[Key] | None = set()  # None: worked out from _bp_last when needed
        self._bp_last: tuple[list[Key | None], list[Key]] = ([], [])  # a step's keys, scenarios started since
        self._counts = ev.Counts()  # a stop is not a failure: counted apart
        self._run_seconds = 0.0  # time spent pulling events: a pause does not count
        self._stopped_at: int | None = None  # the line of the step the run was stopped at
        self._run_to: Key | None = None  # `g`: pause just before this step
        self._reached = False  # the last pause is where `g` ran to
        self._only: ScenarioNode | None = None  # `o`: the scenario the current run is limited to
        self.file_changed = False  # saved on disk while a run was active: R reloads
        self._scenario: ev.ScenarioStarted | None = None
        self._changed: frozenset[str] = frozenset()
        self._snapshot: ev.ScopeSnapshot | None = None
        self._cleared = ""
        self._panels_dirty = False
        self._queued_steps = 0
        self._reset_note_seen = True
        self._event_run: StepRun | None = None
        self.advancing = False  # a worker is pulling events (or about to)
        self.stepper = Stepper(files, overrides, run_variables, self._on_run_event, self._breakpoint_hit)
        # (read on the stepper's worker thread: a set's truth and an attribute, nothing more)
        self.stepper.pauses_at_steps = lambda: bool(panels.tree.breakpoints) or self._run_to is not None
        self.stepper.resource_roots = tuple(resource_roots)
        self.stepper.selected = tags  # --tags: a TagExpression
        # `redraw` is a direct call, not a message: History is part of this controller, and its
        # `live` (from `l`, or reset_views) redraws the live run before its caller goes on.
        self.history = History(app, panels, self.records, redraw=lambda: self.flush_panels(force=True))

    # ------------------------------------------------------------ stepping

    def _can_run(self) -> bool:
        if not self.files():  # (none loaded, or none without errors)
            self.app.notify("The file has errors: fix them and save, it reloads by itself.", severity="error")
            return False
        return True

    async def _advance(self, how: str) -> None:
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
            self._after_advance()

    def _after_advance(self) -> None:
        app, stepper = self.app, self.stepper
        if self._queued_steps and stepper.state == PAUSED and stepper.pause_reason != "failure":
            self._queued_steps -= 1
            app.run_worker(self._advance("step"), group="run", exit_on_error=True)
            return
        self._queued_steps = 0
        self.advancing = False
        if self._reached and stepper.pause_reason == "breakpoint":
            stepper.pause_reason = "step"  # where `g` ran to: "paused before", as a step would
        self._reached = False
        if stepper.state == FINISHED and self._run_to is not None:
            app.notify("The run ended before reaching the step g ran to.")
            self._run_to = None
        # The status line first: it may take one row less than while running (80 columns), and
        # the tree scrolls to the cursor in the height it has once that is laid out, so that
        # where it scrolls to does not depend on how soon the screen was refreshed.
        self.update_status()
        app.call_after_refresh(self._show_where_it_stopped)

    def _show_where_it_stopped(self) -> None:
        """The cursor on the failed step (paused after it) or the next step, or after the run on
        its failures; then the app shows the highlighted node again, a file's too."""
        stepper, tree = self.stepper, self.panels.tree
        current = stepper.current
        if stepper.state == PAUSED:
            failed = stepper.paused_after
            if failed is not None and failed.key is not None:
                tree.set_current(None)  # between steps: the failed one shows ✗, not ▶
                tree.reveal(failed.key)  # its response, in the inspector
            elif current is not None and current.key is not None:
                tree.set_current(current.key, follow=True)
        elif stepper.state == FINISHED:
            show_failures(tree, self.scenario_results, self.history.runs)
        self.flush_panels(force=True, files=True)

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
            self.panels.status_bar.set(note="")  # a note of the past (breakpoint set ...) goes
        self.advancing = True  # from now: the worker may not have started pulling yet
        self.app.run_worker(self._advance(how), group="run", exclusive=False, exit_on_error=True)

    def resend(self) -> None:
        """`a`: run the step the run is paused on (again) with the variables as they are now."""
        if self.advancing or self.stepper.state != PAUSED:
            self.app.notify("a re-sends the step the run is paused on: pause first (n, b, g or f).", severity="warning")
            return
        self.advancing = True
        self.app.run_worker(self._resend(), group="run", exit_on_error=True)

    async def _resend(self) -> None:
        self.update_status()
        started = time.perf_counter()
        try:
            await self.stepper.resend()
        except EditError as error:
            self.app.notify(str(error), severity="warning")
        finally:
            self._run_seconds += time.perf_counter() - started
            self._after_advance()

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
        self.panels.tree.set_current(None)
        self.panels.status_bar.set(note="")
        self.update_status()
        await self._advance(how)

    # ------------------------------------------------------------ f, g, o

    def toggle_break_on_failure(self) -> None:
        stepper = self.stepper
        stepper.break_on_failure = not stepper.break_on_failure
        self.app.post_message(self.BreakOnFailureChanged(stepper.break_on_failure))

    def run_to(self, item: TreeItem | None) -> None:
        """`g`: continue until just before the highlighted step."""
        if not self._can_run():
            return
        reason = refusal(
            item,
            self.stepper,
            self.panels.tree,
            advancing=self.advancing,
            results=self.scenario_results,
            records=self.records,
        )
        if reason or item is None:  # (no item: the reason says so)
            self.app.notify(reason, severity="warning")
            return
        self._run_to = item.key
        if self.stepper.state == IDLE:
            self._bp_previous = set()
        self.start("continue")

    def run_only(self, item: TreeItem | None) -> None:
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
        self.panels.status_bar.set(note=FILE_CHANGED)
        return False
