"""The RunRecorder: fed every event of a run as it comes (nothing is re-run or re-decided here), it
keeps what the reports and the run summary need, as report.records.

Decisions:
- Scenarios appear in the order their ScenarioFinished came, which is source order; on an
  interrupted run, scenarios not reached are absent (the events say nothing about them), and
  every file given is still listed.
- The summary counts the recorded ScenarioFinished statuses, so it always matches the listing.
- Masking is applied when rendering, not when recording: by then the Masker knows every secret of
  the run, including one extracted after a message that mentioned it.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, ClassVar

from scenario_core.language.nodes.steps import step_label
from scenario_core.language.parameter_keys import BASE_URL, ENVIRONMENT
from scenario_core.parameters.local_errors import local_error_of
from scenario_core.report.records import (
    ErrorContext,
    Exchange,
    FileRecord,
    ScenarioRecord,
    ScopeEvent,
    StepRecord,
    parameter_value,
)
from scenario_core.run import events as ev
from scenario_core.run.consumers import EventConsumer, Receivers

if TYPE_CHECKING:
    from scenario_core.report.coverage import Coverage
    from scenario_core.report.json_shapes import AutoTestRecord


def step_text(step: object) -> str:
    return getattr(step, "text", "") or ""


def outline_row(scenario: object) -> tuple[str | None, int | None]:
    """The outline and examples row (1-based) an outline's scenario comes from; (None, None) for
    a plain scenario."""
    outline = getattr(scenario, "outline", None)
    return (outline.outline, outline.row) if outline is not None else (None, None)


class RunRecorder(EventConsumer):
    """Keeps what the reports and the run summary need, event by event.

    `every_step=False` (a run that writes no report): only what the printed results need -- each
    scenario's status and its failing step with the exchange it failed on -- not a record of
    every step, its scope events and a copy of its exchange: a third of a passing request's cost
    in a headless run, and memory that would grow with the run."""

    def __init__(self, every_step: bool = True) -> None:
        self.receivers = self.EVERY_STEP if every_step else self.FAILURES_ONLY
        self.files: list[FileRecord] = []
        self.requests = 0
        self.interrupted = False
        self.duration: float | None = None
        self.finished = False
        self.last: ScenarioRecord | None = None  # the scenario that finished last
        self._started = time.perf_counter()
        self.started_at = time.time()  # wall clock, for the reports' "when"
        self._by_path: dict[str, FileRecord] = {}
        self._current: ScenarioRecord | None = None
        self._current_node: object = None  # the node of the scenario running (compared by identity)
        self._step_index = -1
        self._last: Exchange | None = None
        # every_step=False: the last request's step index and events, until a step fails
        self._pending: tuple[int, ev.RequestSent, ev.ResponseReceived | None] | None = None
        self._file_path: str | None = None  # the file running now
        self._pending_scope: list[ScopeEvent] = []  # stores created before the next scenario starts
        self._phase: str | None = None
        self._branch: str | None = None  # the branch the running step's if chain took
        self._auto: list[AutoTestRecord] = []  # the running step's generated requests
        self.coverage: Coverage | None = None  # when the run collects it (--coverage): the reports add it

    # ---- feeding

    def _run_started(self, e: ev.RunStarted) -> None:
        for file in e.files:
            self._file(file.path)

    def _file(self, path: str) -> FileRecord:
        record = self._by_path.get(path)
        if record is None:
            record = self._by_path[path] = FileRecord(path)
            self.files.append(record)
        return record

    def _file_started(self, e: ev.FileStarted) -> None:
        record = self._file(e.file.path)
        record.environment = parameter_value(e.parameters, ENVIRONMENT)
        record.base_url = parameter_value(e.parameters, BASE_URL)
        self._file_path = e.file.path

    def _scenario_started(self, e: ev.ScenarioStarted) -> None:
        self._current = ScenarioRecord(
            e.file.path, e.scenario.name, e.feature.name if e.feature else None, e.scenario.location.line
        )
        self._current.environment = parameter_value(e.parameters, ENVIRONMENT)
        self._current.outline, self._current.row = outline_row(e.scenario)
        self._current.error_context = ErrorContext.from_parameters(e.parameters)
        self._current_node = e.scenario
        self._step_index, self._last, self._pending = -1, None, None
        self._branch, self._auto = None, []
        self._current.store = ev.store_label(e.store) if e.store is not None else None
        self._current.scope_events = self._pending_scope + [
            ScopeEvent("started", self._current.store, tuple(e.carried))
        ]
        self._pending_scope = []

    def _scope_created(self, e: ev.ScopeCreated) -> None:
        self._pending_scope.append(ScopeEvent("created", ev.store_label(e.store)))

    def _scope_cleared(self, e: ev.ScopeCleared) -> None:
        # After the feature's (or file's) last scenario finished: it goes with that scenario, which
        # is where a reader of the report meets the boundary.
        file = self._by_path.get(self._file_path) if self._file_path is not None else None
        if file is None or not file.scenarios:
            return
        at = "file end" if e.store.feature is None else "feature end"
        file.scenarios[-1].scope_events.append(ScopeEvent("cleared", ev.store_label(e.store), tuple(e.names), at=at))

    def _variable_extracted(self, e: ev.VariableExtracted) -> None:
        if self._current is not None:
            self._current.scope_events.append(
                ScopeEvent(
                    "extracted",
                    name=e.name,
                    value=e.value,
                    layers=tuple(e.layers),
                    line=e.step.location.line,
                    phase=self._phase,
                )
            )

    def _variable_overwritten(self, e: ev.VariableOverwritten) -> None:
        if self._current is not None:
            self._current.scope_events.append(
                ScopeEvent(
                    "overwritten",
                    e.layer,
                    name=e.name,
                    value=e.new,
                    old=e.old,
                    line=e.step.location.line,
                    phase=self._phase,
                )
            )

    def _step_started(self, e: ev.StepStarted) -> None:
        self._step_index = e.index
        self._phase = e.phase
        self._branch, self._auto = None, []

    def _branch_taken(self, e: ev.BranchTaken) -> None:
        branches = getattr(e.step, "branches", ())
        if e.branch is None:
            self._branch = "none"
        elif e.branch < len(branches):
            chosen = branches[e.branch]
            self._branch = f"{chosen.keyword} {chosen.text}".rstrip()

    def _auto_test_ran(self, e: ev.AutoTestRan) -> None:
        self._auto.append(
            {
                "kind": e.kind,
                "type": e.test_type,
                "description": e.description,
                "status": ev.PASSED if e.passed else ev.FAILED,
                "message": e.message,
            }
        )

    def _request_sent(self, e: ev.RequestSent) -> None:
        self.requests += 1
        self._last = Exchange(self._step_index, e.method, e.url, e.headers, e.body, operation=e.operation)

    def _response_received(self, e: ev.ResponseReceived) -> None:
        last = self._last
        if last is not None:
            last.status, last.reason, last.response_headers = e.status, e.reason, e.headers
            last.body, last.elapsed = e.body, e.elapsed

    # every_step=False: the last exchange is kept as its events, made a record only for a failure
    def _request_noted(self, e: ev.RequestSent) -> None:
        self.requests += 1
        self._pending = (self._step_index, e, None)
        self._last = None

    def _response_noted(self, e: ev.ResponseReceived) -> None:
        pending = self._pending
        if pending is not None:
            self._pending = (pending[0], pending[1], e)

    def _step_finished(self, e: ev.StepFinished) -> None:
        scenario = self._current
        if scenario is None:
            return
        last = self._last
        own = last if last is not None and last.index == e.index and e.status != ev.SKIPPED else None
        operation = own.operation if own is not None else None
        # An if chain that failed inside its branch is told by the step that failed (its line,
        # `fail "…"`), keeping the branch it took.
        shown = e.failed_inside or e.step
        ran = e.status != ev.SKIPPED  # a skipped step took no branch: the last one was an earlier step's
        step = StepRecord(
            shown.location.line,
            shown.keyword,
            step_text(shown),
            e.status,
            e.message,
            e.phase,
            e.elapsed,
            tuple(i.location.line for i in e.via),
            operation,
            step_label(shown),
            self._branch if ran else None,
            list(self._auto) if ran else [],
            own.kept(scenario.error_context.max_body_size) if own is not None else None,
        )
        scenario.steps.append(step)
        if e.status == ev.FAILED and scenario.failed_step is None:
            scenario.failed_step = step
            # A `then:`/`extract:` failure is about the last response; a `when:` failure only
            # about its own request (none when it failed before sending, e.g. undefined variable).
            if last is not None and (shown.keyword not in ("when", "call") or last.index == e.index):
                scenario.exchange = last

    def _step_failed(self, e: ev.StepFinished) -> None:
        """_step_finished for the first failing step of a scenario only (every_step=False)."""
        if e.status == ev.FAILED and self._current is not None and self._current.failed_step is None:
            pending, self._pending = self._pending, None
            if pending is not None:
                index, sent, answer = pending
                self._step_index = index
                self._request_sent(sent)
                self.requests -= 1  # counted as it was sent
                if answer is not None:
                    self._response_received(answer)
                self._step_index = e.index
            self._step_finished(e)

    def _scenario_finished(self, e: ev.ScenarioFinished) -> None:
        scenario = self._current
        if scenario is None or self._current_node is not e.scenario:
            # Not started (not selected by tags): no steps.
            scenario = ScenarioRecord(
                e.file.path, e.scenario.name, e.feature.name if e.feature else None, e.scenario.location.line
            )
            scenario.outline, scenario.row = outline_row(e.scenario)
        scenario.status, scenario.message, scenario.elapsed = e.status, e.message, e.elapsed
        scenario.local_error = e.status == ev.FAILED and local_error_of(e.file, e.scenario) is not None
        scenario.variables = e.snapshot.visible()
        scenario.finished = True
        self._file(e.file.path).scenarios.append(scenario)
        self.last = scenario
        self._current, self._current_node, self._last, self._pending = None, None, None, None

    def _run_finished(self, e: ev.RunFinished) -> None:
        self.finish(e.interrupted, e.duration)

    EVERY_STEP: ClassVar[Receivers] = {
        ev.RunStarted: _run_started,
        ev.FileStarted: _file_started,
        ev.ScenarioStarted: _scenario_started,
        ev.ScopeCreated: _scope_created,
        ev.ScopeCleared: _scope_cleared,
        ev.VariableExtracted: _variable_extracted,
        ev.VariableOverwritten: _variable_overwritten,
        ev.StepStarted: _step_started,
        ev.BranchTaken: _branch_taken,
        ev.AutoTestRan: _auto_test_ran,
        ev.RequestSent: _request_sent,
        ev.ResponseReceived: _response_received,
        ev.StepFinished: _step_finished,
        ev.ScenarioFinished: _scenario_finished,
        ev.RunFinished: _run_finished,
    }
    _FAILURES_ONLY_CHANGES: ClassVar[Receivers] = {
        ev.StepFinished: _step_failed,
        ev.RequestSent: _request_noted,
        ev.ResponseReceived: _response_noted,
    }
    FAILURES_ONLY: ClassVar[Receivers] = {
        kind: handler
        for kind, handler in {**EVERY_STEP, **_FAILURES_ONLY_CHANGES}.items()
        if kind not in (ev.ScopeCreated, ev.ScopeCleared, ev.VariableExtracted, ev.VariableOverwritten)
    }

    def finish(self, interrupted: bool, duration: float | None = None) -> None:
        """Close the record; also called by the runner when the stream ended without
        RunFinished (a second Ctrl+C), so the reports still say the run was interrupted."""
        if self.finished:
            self.interrupted = self.interrupted or interrupted
            return
        self.finished = True
        self.interrupted = interrupted
        self.duration = duration if duration is not None else time.perf_counter() - self._started

    # ---- reading

    @property
    def scenarios(self) -> list[ScenarioRecord]:
        return [s for f in self.files for s in f.scenarios]

    @property
    def running(self) -> ScenarioRecord | None:
        return self._current

    def counts(self) -> dict[str, int]:
        counts = {ev.PASSED: 0, ev.FAILED: 0, ev.SKIPPED: 0}
        for scenario in self.scenarios:
            counts[scenario.status] = counts.get(scenario.status, 0) + 1
        return counts

    @property
    def elapsed(self) -> float:
        return self.duration if self.duration is not None else time.perf_counter() - self._started
