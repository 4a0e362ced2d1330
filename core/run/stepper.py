"""The controller between the TUI and the executor's event stream.

The stream is pull-based: the executor advances only when the next event is pulled. The stepper
pulls until a pause point, then simply stops pulling:

- `step()`      pulls until the next step is about to run (a StepStarted), or the run ends; the
                first call starts the run, so the first pause is before its first step;
- `resume()`    pulls until a step where `breakpoint_hit` says to pause, or the end;
                with `break_on_failure`, both also pause right after a step fails, before the
                scenario's remaining steps are skipped (`paused_after` is that step's record);
- `stop()`      asks the executor to stop (a request in flight ends at once); the stream
                then winds down: the interrupted step, its scenario, the open stores, RunFinished;
- `reset()`     closes the stream and forgets the run: the next `step()` starts a fresh one.

Edit and continue (the rules in run/edits.py): while PAUSED, `edit_variable()` /
`delete_variable()` change one layer of what the paused scenario sees (a `VariableEdited` event),
and `resend()` runs the step paused on with the variables as they are now -- the step about to
run, or the one just finished (after a failure, or a re-send) again -- then pauses right after it
(`pause_reason` "resent", `paused_after` its record, whose `replaces` is the record it
replaces). A step that reads the last response (`then:`, `extract:`) sends the request it reads
again first, with the steps between: checking the old response once more would test nothing new.
`n` and `c` then go on from there; a step that passes when re-sent does not fail its scenario.

The executor is a plain generator, pulled on a worker thread (asyncio.to_thread) a batch at a time
up to the next point where it may pause; `stop()` from the UI's thread ends the request in flight.

It also turns the stream into `StepRun` records (request, response, assertion, extracted values,
outcome of each step run) that the inspector shows. It knows nothing of Textual: every event is
handed to `on_event` with the record it belongs to; the app decides what to show.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Callable, Final, Iterator, Literal, Mapping, Sequence

from scenario_core.language.nodes.blocks import FeatureNode, ScenarioFileNode, ScenarioNode
from scenario_core.language.nodes.steps import AssertStep, ExtractStep, RequestStep
from scenario_core.parameters.descriptions import DescriptionSet
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run import events as ev
from scenario_core.run.edits import EditableLayer, EditError, EditOrigin, VariableEdited, edit_variable, layers_of
from scenario_core.run.edits import parse_value as parse_edited_value
from scenario_core.run.executor import Execution
from scenario_core.run.options import run_options
from scenario_core.run.rerun import cannot_rerun
from scenario_core.run.scopes import DELETED, Scope
from scenario_core.run.step_runs import FOLD
from scenario_core.run.step_runs import StepRun as StepRun  # (imported from here by the TUI)

if TYPE_CHECKING:
    from scenario_core.custom_steps.registry import Registry
    from scenario_core.language.tag_expressions import TagExpression

State = Literal["idle", "running", "paused", "finished"]
IDLE: Final = "idle"
RUNNING: Final = "running"
PAUSED: Final = "paused"
FINISHED: Final = "finished"
_END: Final = None  # a batch's last item when the stream has ended


STEP, CONTINUE, DRAIN, RESEND = "step", "continue", "drain", "resend"


class Stepper:
    def __init__(
        self,
        files: Callable[[], Sequence[ScenarioFileNode]],
        overrides: RunOverrides | None,
        run_variables: Mapping[str, object],
        on_event: Callable[[ev.Event, StepRun | None], None],
        breakpoint_hit: Callable[[ev.StepStarted, StepRun], bool] = lambda event, run: False,
        yield_every: int = 50,
        descriptions: DescriptionSet | None = None,
    ) -> None:
        self._files = files
        # The session's OpenAPI descriptions: read once, kept across restarts and reloads (a
        # description that changes on disk is read again: the cache checks each file's mtime).
        self.descriptions = descriptions or DescriptionSet()
        self.registry: Registry | None = None  # custom steps and assertions (set by the app when a file has some)
        self.resource_roots: tuple[str, ...] = ()  # --resource-root
        self.selected: TagExpression | None = None  # --tags; None for every scenario
        # Execution(include=): "run this scenario only"; None for every scenario
        self.include: Callable[[ScenarioNode, FeatureNode | None], bool] | None = None
        self.break_on_failure = False
        self.pause_reason: str | None = None  # why it is PAUSED: "step", "breakpoint" or "failure"
        self.paused_after: StepRun | None = None  # paused on failure: the step that failed
        self.overrides = overrides
        self.run_variables = dict(run_variables)
        self.on_event = on_event
        self.breakpoint_hit = breakpoint_hit
        # Whether `c` may pause at a step (a breakpoint is set, a run-to is on). Read on the
        # worker thread that pulls: while False, it pulls on past each StepStarted.
        self.pauses_at_steps: Callable[[], bool] = lambda: True
        self.yield_every = yield_every
        self.state: State = IDLE
        self.mode: str | None = None
        self.execution: Execution | None = None
        self._stream: Iterator[ev.Event] | None = None
        self._lock = asyncio.Lock()
        self.current: StepRun | None = None  # the step about to run (paused) or running
        self.scenario: ev.ScenarioStarted | None = None
        self.finished: ev.RunFinished | None = None
        self._last_response: ev.ResponseReceived | None = None
        self._last_request: ev.RequestSent | None = None  # the request _last_response answered
        self._last_index: int | None = None  # the plan index of the step that received it
        self._runs: dict[int, StepRun] = {}  # the paused scenario's latest run of each planned step

    # ------------------------------------------------------------ control

    @property
    def busy(self) -> bool:
        return self.state == RUNNING

    def request_pause(self) -> None:
        """While running: pause before the next step."""
        if self.state == RUNNING and self.mode == CONTINUE:
            self.mode = STEP

    async def step(self) -> None:
        await self._advance(STEP)

    async def resume(self) -> None:
        await self._advance(CONTINUE)

    def stop(self) -> bool:
        """Ask the run to stop; False when nothing runs. The stream must then be drained
        (`drain()`), which `_advance` does when it is the one pulling."""
        if self.execution is None or self.state in (IDLE, FINISHED):
            return False
        self.execution.stop()
        self.mode = DRAIN
        return True

    async def drain(self) -> None:
        """Pull the stream to its end (after `stop()`, the wind-down events)."""
        await self._advance(DRAIN)

    async def reset(self) -> None:
        """Forget the run: stop it, let the stream wind down and close it (its HTTP client too);
        the next step() starts afresh."""
        if self.execution is not None and self.state not in (IDLE, FINISHED):
            self.execution.stop()
            self.mode = DRAIN
        async with self._lock:  # a worker still pulling finishes the wind-down first
            stream, self._stream = self._stream, None
            if stream is not None:
                try:
                    await asyncio.to_thread(stream.close)  # type: ignore[attr-defined]
                except Exception:
                    pass
            self.execution = None
            self.state = IDLE
            self.mode = None
            self.current = None
            self.scenario = None
            self.finished = None
            self._last_response = self._last_request = self._last_index = None
            self._runs = {}
            self.pause_reason = None
            self.paused_after = None

    # ------------------------------------------------------------ edit and continue

    def _paused_scope(self) -> Scope:
        """The live scope of the paused scenario; EditError when there is none."""
        execution = self.execution
        running = execution.running if execution is not None else None
        if self.state != PAUSED or self._lock.locked() or running is None or execution is None or execution.stopped:
            raise EditError("variables can be edited only while the run is paused in a scenario")
        return running.scope

    def editable_layers(self) -> list[EditableLayer]:
        """The layers the paused scenario sees, innermost first ([] when not paused in one)."""
        try:
            return layers_of(self._paused_scope())
        except EditError:
            return []

    def paused_snapshot(self) -> ev.ScopeSnapshot | None:
        """What the paused scenario sees now, edits included; None when not paused in one."""
        try:
            return self._paused_scope().snapshot()
        except EditError:
            return None

    def preview(self) -> ev.RequestSent | str | None:
        """Paused before a request: what it will send now (or why it cannot be built); else None."""
        run = self.current
        if self.paused_after is not None or run is None or not isinstance(run.step, RequestStep):
            return None
        if self.state != PAUSED or self._lock.locked() or self.execution is None:
            return None
        return self.execution.preview(run.step)

    def edit_variable(self, layer: str, name: str, raw: str) -> VariableEdited:
        """Set `name` in `layer` to `raw` read as `--var` reads a value. EditError (one line)
        when it cannot be done."""
        return self._edit(layer, name, parse_edited_value(raw))

    def delete_variable(self, layer: str, name: str) -> VariableEdited:
        return self._edit(layer, name, DELETED)

    def _edit(self, layer: str, name: str, value: object) -> VariableEdited:
        scope = self._paused_scope()
        running = self.execution.running if self.execution is not None else None
        assert running is not None  # (_paused_scope checked it)
        record = self.paused_after or self.current
        step = record.step if record is not None else None
        origin = EditOrigin(
            step.location if step is not None else running.scenario.location,
            running.scenario.name,
            running.feature_name,
            record.phase if record is not None else ev.SCENARIO,
        )
        event = edit_variable(scope, layer, name, value, origin, step)
        if record is not None and record is self.current:
            record.before = event.snapshot  # about to run: with what it will see
        self.on_event(event, record)
        return event

    async def resend(self) -> None:
        """Run the step paused on (again), then pause right after it; a `then:` or `extract:` sends
        the request it reads again first. EditError (one line) when there is none."""
        if self.state != PAUSED or self._lock.locked() or self.execution is None or self.execution.stopped:
            raise EditError("a step can be re-sent only while the run is paused")
        previous = self.paused_after
        target = previous or self.current
        if target is None:
            raise EditError("the run is paused between scenarios: n goes on to the next step")
        start = target.read_from if isinstance(target.step, (AssertStep, ExtractStep)) else None
        if previous is None:  # the step about to run: its request again first, then pulled to its end
            if start is not None:
                if not await self._rerun(start, target.index - 1, None):
                    return  # the request failed: paused right after it
                target.resent = tuple(self._runs[i] for i in range(start, target.index) if i in self._runs)
                target.read_response, target.read_request = self._last_response, self._last_request
                target.read_from = self._last_index
                target.before = self.paused_after.after if self.paused_after is not None else target.before
                self.current = target
            await self._advance(RESEND)
            return
        await self._rerun(previous.index if start is None else start, previous.index, previous)
        if self.execution.stopped:  # stop() while it ran: the stream winds down as after any stop
            await self.drain()

    async def _rerun(self, first: int, last: int, previous: StepRun | None) -> bool:
        """Run the planned steps `first`..`last` of the paused scenario again and pause right after
        the last one run (`previous`: the run the last one replaces). False when one failed before
        the last: the steps after it are not run."""
        events = self._rerun_events(first, last)
        chain: list[StepRun] = []
        async with self._lock:
            self.state, self.mode = RUNNING, RESEND
            self.pause_reason = None
            try:
                while (event := await asyncio.to_thread(next, events, None)) is not None:
                    if isinstance(event, ev.StepStarted):
                        run = self._started(event)
                        earlier = previous if event.index == last and previous else self._runs.get(event.index)
                        if earlier is not None:
                            run.replaces = earlier
                            run.key, run.definitions, run.parent = earlier.key, earlier.definitions, earlier.parent
                        if event.index == last:
                            run.resent = tuple(chain)
                        self.on_event(event, run)
                        continue
                    record = self._record(event)
                    self.on_event(event, record)
                    if isinstance(event, ev.StepFinished) and record is not None:
                        self.paused_after = record
                        chain.append(record)
            finally:
                self.state = PAUSED
                self.pause_reason = "resent"
        done = self.paused_after
        return done is not None and (done.index == last or done.status != ev.FAILED)

    def _rerun_events(self, first: int, last: int) -> Iterator[ev.Event]:
        """The re-run's events: planned steps `first`..`last` of the paused scenario, stopping at
        the first that fails; EditError when one cannot run again (checked up front)."""
        execution = self.execution
        assert execution is not None
        running = execution.running
        if running is None:
            raise EditError("the run is not paused in a scenario")
        chain = running.plan[first : last + 1]
        for planned in chain:
            reason = cannot_rerun(planned)
            if reason is not None:
                raise EditError(reason)
        paused_at = running.planned

        def events() -> Iterator[ev.Event]:
            try:
                for planned in chain:
                    running.planned = planned  # what Execution.rerun runs
                    yield from execution.rerun()
                    if running.message is not None and planned is not chain[-1]:
                        return  # the request failed: the steps after it would read nothing new
            finally:
                running.planned = paused_at  # its outcome (running.message): the last step re-run's

        return events()

    # ------------------------------------------------------------ pulling

    async def _advance(self, mode: str) -> None:
        if self._lock.locked():  # already pulling: only change what it pauses for
            if mode == STEP:
                self.request_pause()
            return
        async with self._lock:
            if self.state == FINISHED:
                return
            if self._stream is None:
                options = run_options(
                    overrides=self.overrides or RunOverrides(),
                    run_variables=self.run_variables,
                    registry=self.registry,
                    resource_roots=self.resource_roots,
                    selected=self.selected,
                )
                self.execution = Execution(
                    list(self._files()), options, descriptions=self.descriptions, include=self.include
                )
                self._stream = self.execution.events()
            stream = self._stream
            self.mode = DRAIN if self.execution is not None and self.execution.stopped else mode
            self.state = RUNNING
            self.pause_reason = None
            self.paused_after = None
            try:
                while not await self._pull_on(stream):
                    pass  # the worker stopped where the run might pause, and it did not
            finally:
                if self.state == RUNNING:
                    self.state = PAUSED

    async def _pull_on(self, stream: Iterator[ev.Event]) -> bool:
        """One worker thread pulls the stream and posts the events to this loop as it goes (at
        each StepStarted, so the step about to run is shown while it runs); it stops at the first
        event the run may pause at. True once the stepper stops pulling (paused, finished)."""
        loop = asyncio.get_running_loop()
        batches: asyncio.Queue[tuple[bool, list[ev.Event | BaseException | None]]] = asyncio.Queue()

        def post(final: bool, events: list[ev.Event | BaseException | None]) -> None:
            loop.call_soon_threadsafe(batches.put_nowait, (final, events))

        halt: list[bool] = [False]  # set when this side stops listening: the worker pulls no more
        worker = asyncio.ensure_future(asyncio.to_thread(self._pull, stream, post, halt))
        try:
            while True:
                final, events = await batches.get()
                if self._take(events, final):
                    return True
                if final:
                    return False
        finally:
            halt[0] = True
            await asyncio.wait([worker])  # the stream is never pulled by two threads

    def _take(self, events: list[ev.Event | BaseException | None], final: bool) -> bool:
        """Hand the events on; True when the stepper stops pulling. It pauses only at the last
        event of a final batch: the worker went on past any other, whose step has run already."""
        last = len(events) - 1
        for index, event in enumerate(events):
            may_pause = final and index == last
            if event is _END:
                self.state = FINISHED
                return True
            if isinstance(event, BaseException):  # what pulling raised on the worker thread
                raise event
            if isinstance(event, ev.StepStarted):
                started = self._started(event)
                # Asked for every step, so it can tell when the run *enters* a node.
                hit = self.mode != DRAIN and self.breakpoint_hit(event, started)
                self.on_event(event, started)
                if may_pause and (self.mode == STEP or (self.mode == CONTINUE and hit)):
                    self.state = PAUSED  # the step is about to run: stop pulling
                    self.pause_reason = "breakpoint" if hit and self.mode == CONTINUE else STEP
                    return True
                continue
            run = self._record(event)
            self.on_event(event, run)
            if isinstance(event, ev.StepFinished) and may_pause and self.mode == RESEND:
                self.state = PAUSED  # right after the step re-sent, as after a failure
                self.pause_reason = "resent"
                self.paused_after = run
                return True
            if isinstance(event, ev.StepFinished) and may_pause and self._pauses_after(event):
                self.state = PAUSED  # before the scenario's remaining steps are skipped
                self.pause_reason = "failure"
                self.paused_after = run
                return True
            if isinstance(event, ev.RunFinished):
                self.finished = event
                self.current = None
                self.state = FINISHED
                return True
        return False

    def _pauses_after(self, event: ev.StepFinished) -> bool:
        """With break on failure: right after a step that failed (not one a stop cut short)."""
        return event.status == ev.FAILED and self.break_on_failure and self.mode != DRAIN and not event.interrupted

    def _pull(
        self,
        stream: Iterator[ev.Event],
        post: Callable[[bool, list[ev.Event | BaseException | None]], None],
        halt: list[bool],
    ) -> None:
        """On the worker thread: pull events and post them, a batch at each StepStarted (or every
        `yield_every` events), until one the run may pause at (a StepStarted in STEP mode or
        while a breakpoint is set, a StepFinished it pauses after): posted as the final batch.
        _END ends the last batch when the stream ends; a fault is handed over as it is. It
        stops early once `halt` is set (the loop no longer listens: finished, or it failed)."""
        batch: list[ev.Event | BaseException | None] = []
        try:
            for event in stream:
                batch.append(event)
                if halt[0]:
                    break
                if isinstance(event, ev.StepStarted):
                    if self.mode == STEP or (self.mode == CONTINUE and self.pauses_at_steps()):
                        break
                    post(False, batch)  # the step about to run is shown while it runs
                    batch = []
                elif isinstance(event, ev.StepFinished) and (self.mode == RESEND or self._pauses_after(event)):
                    break
                elif len(batch) >= self.yield_every:
                    post(False, batch)
                    batch = []
            else:
                batch.append(_END)
        except BaseException as error:  # raised on the loop, as if the stream were pulled there
            batch.append(error)
        post(True, batch)

    # ------------------------------------------------------------ records

    def _started(self, event: ev.StepStarted) -> StepRun:
        """The record of a step that starts: the current one from now on."""
        scenario = self.scenario
        assert scenario is not None
        run = StepRun(
            event.step,
            event.phase,
            event.via,
            event.index,
            scenario.scenario,
            scenario.feature,
            before=event.snapshot,
            read_response=self._last_response,
            read_request=self._last_request,
            read_from=self._last_index,
        )
        if 0 <= event.index < len(scenario.steps):
            run.parent = scenario.steps[event.index].parent
        self.current = run
        return run

    def _record(self, event: ev.Event) -> StepRun | None:
        """Fold any other event into the step records; the record it belongs to."""
        if isinstance(event, ev.ScenarioStarted):
            self.scenario = event
            self._last_response = self._last_request = self._last_index = None
            self._runs = {}
            self.current = None
            return None
        run: StepRun | None
        if isinstance(event, ev.StepFinished):
            run = self.current
            if run is None or run.step is not event.step or run.index != event.index:
                scenario = self.scenario
                assert scenario is not None
                run = StepRun(
                    event.step,
                    event.phase,
                    event.via,
                    event.index,
                    scenario.scenario,
                    scenario.feature,
                    before=event.snapshot,
                )
            run.status, run.message, run.elapsed, run.after = event.status, event.message, event.elapsed, event.snapshot
            self.current = None
            self._runs[run.index] = run
            return run
        run = self.current
        if run is None:
            return None
        fold = FOLD.get(type(event))
        if fold is not None:
            fold(run, event)
            if type(event) is ev.ResponseReceived:  # what a later then:/extract: reads
                self._last_response, self._last_request, self._last_index = run.response, run.request, run.index
        return run
