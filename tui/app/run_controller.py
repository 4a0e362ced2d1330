"""Driving a run: the keys `n`, `c`, `s`, `r`, `f` (break on failure), `g` (run to here), `o`
(run this scenario only) and `a` (re-send the step paused on: edit and continue), and what a
change on disk does to a run. It owns the run's state (`RunState`, run_state.py) and a
`RunEvents` (run_events.py), given that state, which maps the run's events onto the widgets.

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
from scenario_core.language.tag_expressions import TagExpression
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run import events as ev
from scenario_core.run.edits import EditError
from scenario_core.run.stepper import CONTINUE, FINISHED, IDLE, PAUSED, Stepper, StepRun
from scenario_tui.app.failures import show_failures
from scenario_tui.app.history import History
from scenario_tui.app.panels import Panels
from scenario_tui.app.run_events import FILE_CHANGED, RunEvents
from scenario_tui.app.run_state import RunState
from scenario_tui.app.run_to import refusal
from scenario_tui.widgets.display import Display
from scenario_tui.widgets.tree_items import Key, TreeItem


class RunController:
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
        tags: TagExpression | None = None,
    ) -> None:
        self.app = app
        self.panels = panels
        self.files = files  # the files that can run, as loaded now
        self.state = state = RunState()
        self._queued_steps = 0  # `n` typed ahead while a step runs
        self.advancing = False  # a worker is pulling events (or about to)
        # The stepper calls the events' methods, and History redraws through them, once they
        # exist (both run after this __init__: the stepper pulls only when a key asks).
        self.stepper = Stepper(
            files,
            overrides,
            run_variables,
            lambda event, run: self.events.receive(event, run),
            lambda event, run: self.events.breakpoint_hit(event, run),
        )
        # (read on the stepper's worker thread: a set's truth and an attribute, nothing more)
        self.stepper.pauses_at_steps = lambda: bool(panels.tree.breakpoints) or state.run_to is not None
        self.stepper.resource_roots = tuple(resource_roots)
        self.stepper.selected = tags  # --tags: a TagExpression
        # `redraw` is a direct call, not a message: History is part of this controller, and its
        # `live` (from `l`, or reset_views) redraws the live run before its caller goes on.
        self.history = History(app, panels, state.records, redraw=lambda: self.flush_panels(force=True))
        self.events = RunEvents(app, panels, display, self.stepper, self.history, state)

    # ------------------------------------------------------------ what the app reads and redraws

    @property
    def records(self) -> dict[Key, StepRun]:
        """Each step's latest record, by tree key (the inspector and history read them)."""
        return self.state.records

    @property
    def scenario_results(self) -> dict[Key, ev.ScenarioFinished]:
        return self.state.scenario_results

    def flush_panels(self, force: bool = False, files: bool = False) -> None:
        """Redraw the panels if anything changed (`force`: in any case): RunEvents.flush_panels."""
        self.events.flush_panels(force, files)

    def update_status(self) -> None:
        self.events.update_status()

    def reset_views(self) -> None:
        """A new run (a restart, a reload): nothing typed ahead, nothing run, nothing shown."""
        self._queued_steps = 0
        self.events.reset_views()

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
            self.state.run_seconds += time.perf_counter() - started  # running time only: pauses are not
            self._after_advance()

    def _after_advance(self) -> None:
        app, stepper = self.app, self.stepper
        if self._queued_steps and stepper.state == PAUSED and stepper.pause_reason != "failure":
            self._queued_steps -= 1
            app.run_worker(self._advance("step"), group="run", exit_on_error=True)
            return
        self._queued_steps = 0
        self.advancing = False
        if self.state.reached and stepper.pause_reason == "breakpoint":
            stepper.pause_reason = "step"  # where `g` ran to: "paused before", as a step would
        self.state.reached = False
        if stepper.state == FINISHED and self.state.run_to is not None:
            app.notify("The run ended before reaching the step g ran to.")
            self.state.run_to = None
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
        if not self.state.file_changed:
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
            self.state.run_seconds += time.perf_counter() - started
            self._after_advance()

    def stop(self) -> None:
        self._queued_steps = 0
        stepper = self.stepper
        where = stepper.current or stepper.paused_after
        if not stepper.stop():
            self.app.notify("Nothing is running.")
            return
        self.state.stopped_at = where.step.location.line if where is not None else None
        self.state.run_to = None
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
        self.state.only = only
        self.stepper.include = None if only is None else (lambda scenario, feature: scenario is only)
        changed = self.state.file_changed  # a restart runs the file as loaded: R still reloads it
        self.reset_views()
        self.state.file_changed = changed
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
        self.state.run_to = item.key
        if self.stepper.state == IDLE:
            self.state.bp_previous = set()
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
        if self.state.file_changed:
            return False  # said already: R reloads (the poll sees the change until then)
        if self.stepper.state in (IDLE, FINISHED) and not self.advancing:
            return True
        self.state.file_changed = True
        self.panels.status_bar.set(note=FILE_CHANGED)
        return False
