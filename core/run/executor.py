"""Running scenario files against a real HTTP API, as a stream of events (see events.py).

The stream is pull-based: nothing happens until the consumer asks for the next event, so a
consumer pauses by not pulling and resumes by pulling. The TUI stepper and the headless runner
are both thin consumers of `Execution.events()`.

    execution = Execution([load_file("pets.scenario")], RunOptions(overrides=overrides, run_variables=variables))
    for event in execution.events():
        ...                     # execution.stop(), from any thread, ends the run early

Scopes follow docs/spec/scopes.md, steps docs/spec/steps.md. Nothing raised inside a step escapes: it fails the step
with a one-line message. Parameters are resolved once per file and feature (and for a scenario
with its own parameters: block), plans once per scenario; per step the work is rendering
templates that have references and sending.

Cookies a server sets live for one scenario (the client's jar is cleared when a scenario starts):
an isolated scenario must not inherit a session through them.

This module walks the run's structure (files, features, scenarios, the steps of each plan) and
decides each scenario's outcome; steps.py runs each step; state.py holds what a file and a
scenario carry; plan.py lists what a scenario runs.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable, Generator, Iterable, Iterator, Mapping, Sequence

from scenario_core.language.nodes.blocks import FeatureNode, ScenarioFileNode, ScenarioNode
from scenario_core.language.nodes.steps import PLAIN_STEPS, IncludeStep, RequestStep
from scenario_core.parameters.local_errors import local_error_of
from scenario_core.parameters.resolution import EffectiveParameters, RunOverrides
from scenario_core.parameters.sharing import store_for
from scenario_core.run.events import (
    FAILED,
    INTERRUPTED,
    PASSED,
    SCENARIO,
    SKIPPED,
    Counts,
    Event,
    FeatureFinished,
    FeatureStarted,
    FileFinished,
    FileStarted,
    Origin,
    PlannedStep,
    RequestSent,
    RunFinished,
    RunStarted,
    ScenarioFinished,
    ScenarioStarted,
    ScopeCleared,
    ScopeCreated,
    Status,
    StepFinished,
    StepStarted,
)
from scenario_core.run.explain import ScenarioRecord
from scenario_core.run.http.client import HttpClient, not_waiting
from scenario_core.run.operation_calls import OperationCalls
from scenario_core.run.options import RunOptions, run_options
from scenario_core.run.scopes import Saved, Scope, Store
from scenario_core.run.sending import Sender
from scenario_core.run.state import Failure, FailureKind, FileRun, ScenarioState, internal_error
from scenario_core.run.steps import StepRunner
from scenario_core.support.records import dataclass

if TYPE_CHECKING:  # imported only by the runs that use them (operation calls, custom steps)
    from scenario_core.parameters.descriptions import DescriptionSet

__all__ = ["Execution", "run_to_completion"]

_STOPPED = (FailureKind.INTERRUPTED, FailureKind.STOPPED)  # a stop's doing, not the API's failure


@dataclass(frozen=True, slots=True)
class _Job:
    """A scenario ready to run: everything decided before its first event."""

    feature: FeatureNode | None
    scenario: ScenarioNode
    params: EffectiveParameters
    problem: str | None
    store: Store | None
    record: ScenarioRecord


class Execution:
    """One run over one or more parsed files. Iterate `events()` once; `stop()` ends it early."""

    def __init__(
        self,
        files: Sequence[ScenarioFileNode],
        options: RunOptions | None = None,
        *,
        descriptions: DescriptionSet | None = None,
        include: Callable[[ScenarioNode, FeatureNode | None], bool] | None = None,
        only: frozenset[int] | None = None,
        deliver: Callable[[], None] | None = None,
    ):
        """`options`: what runs and with what (RunOptions; its output fields are the front end's).
        `descriptions`: OpenAPI descriptions already read (a TUI session keeps them across runs);
        `include`: beside the tags, a caller's own choice of scenarios (--fail-fast, the pytest
        plugin's -k/-m): a scenario runs when both agree. `only`: the ids of the features and
        scenarios of one scope unit (units.py): the others give no event at all and are not
        counted. `deliver`: called, on the thread that pulls the stream, at each point where what
        the run has given so far should reach its consumers: a request written and its response
        not come yet (or a new connection, a pause between attempts, about to be waited on); a
        step other than a request, an assertion or an extraction about to run (it may take long);
        a scenario ended. A driver that keeps events until then (consumers.Batched) has them
        handled in time the run would otherwise spend idle. It must not raise."""
        options = options or RunOptions()
        self.options = options
        self.files = tuple(files)
        self._selected = options.selected  # a tag expression (tag_expressions.py); wins over tags
        self._chosen = include
        self._only = only
        self.resource_roots = options.resource_roots
        self.overrides = options.overrides
        self.run_variables: dict[str, object] = dict(options.run_variables)
        self.tags = options.tags
        registry = options.registry
        self._started = False
        self._stopped = False
        self._deliver = deliver or not_waiting
        self._client = HttpClient(self._deliver)  # one per run: connections are kept alive across scenarios
        self._sender = Sender(self._client)
        # OpenAPI descriptions are read once per run (a TUI session passes its own, kept across
        # runs); the OpenAPI layer is imported only by a run that calls an operation.
        calls = OperationCalls(self._client, descriptions, self.resource_roots)
        self._steps = StepRunner(self._sender, calls, registry)
        self.running: ScenarioState | None = None  # the scenario running now (edit and continue)

    # ------------------------------------------------------------ control

    @property
    def stopped(self) -> bool:
        return self._stopped

    def stop(self) -> None:
        """End the run early, from any thread (a signal handler in the thread that pulls too): a
        request in flight ends at once (its socket is shut down), as does a wait between
        attempts; the stream then winds down (interrupted step, its scenario, open stores) and
        ends with RunFinished(interrupted=True). It only sets flags and shuts sockets down."""
        self._stopped = True
        self._sender.stop()

    def rerun(self) -> Iterator[Event]:
        """Edit and continue: while the stream is paused right after a step's StepFinished, run
        that step again with the variables as they are now (run/rerun.py); its outcome is the
        step's when the stream is pulled again. ValueError (one line) when it cannot."""
        from scenario_core.run.rerun import cannot_rerun, rerun_step  # the TUI's edit and continue only

        state = self.running
        if state is None or self._stopped:
            raise ValueError("no step to run again: the run is not paused in a scenario")
        reason = cannot_rerun(state.planned)
        if reason is not None:
            raise ValueError(reason)
        yield from rerun_step(self._steps, state)

    def preview(self, step: RequestStep) -> RequestSent | str:
        """While the stream is paused before `step`: the request it would send now, never sent
        (run/previews.py), or why it cannot be built."""
        from scenario_core.run.previews import preview_request  # the TUI's inspector only

        if self.running is None or self._stopped:
            return "the run is not paused in a scenario"
        return preview_request(self._steps, step, self.running)

    def selected(self, scenario: ScenarioNode, feature: FeatureNode | None) -> bool:
        return self._by_tags(scenario, feature) and (self._chosen is None or self._chosen(scenario, feature))

    def _by_tags(self, scenario: ScenarioNode, feature: FeatureNode | None) -> bool:
        if self._selected is not None:
            return self._selected(scenario.tags | feature.tags if feature is not None else scenario.tags)
        if self.tags is None:
            return True
        if self.tags & scenario.tags:
            return True
        return feature is not None and bool(self.tags & feature.tags)

    def __iter__(self) -> Iterator[Event]:
        return self.events()

    # ------------------------------------------------------------ the stream

    def events(self) -> Generator[Event, None, None]:
        if self._started:
            raise RuntimeError("an Execution runs once; create a new one to run again")
        self._started = True
        started = time.perf_counter()
        totals = Counts()
        try:
            yield RunStarted(files=self.files, run_variables=self.run_variables, tags=self.tags)
            for file in self.files:
                if self._stopped:
                    break
                run = FileRun(file, self.overrides)
                for item in self._walk(run):
                    if isinstance(item, _Job):
                        yield from self._scenario(run, item)
                    else:
                        if isinstance(item, FeatureFinished):  # its feature-scoped webhooks
                            yield from self._steps.stop_webhooks(id(item.feature))
                        yield item
                totals.merge(run.counts)
            yield RunFinished(
                passed=totals.passed,
                failed=totals.failed,
                skipped=totals.skipped,
                duration=time.perf_counter() - started,
                interrupted=self._stopped,
            )
        finally:
            self._stopped = True
            self._client.close()
            self._steps.close()

    def _walk(self, run: FileRun) -> Iterator[Event | _Job]:
        """A file's events around its scenarios, in source order; a _Job where a scenario runs."""
        file = run.file
        file_params, _ = run.params(None)
        yield FileStarted(file=file, parameters=file_params, store=store_for(file_params))
        only = self._only
        for item in file.items:
            if self._stopped:
                break
            if only is not None and id(item) not in only:
                continue
            if isinstance(item, FeatureNode):
                params, _ = run.params(item)
                ref = store_for(params, item.line)
                yield FeatureStarted(file=file, feature=item, parameters=params, store=ref)
                own: list[Store] = []  # the feature's own store, once its first scenario starts
                for scenario in item.scenarios:
                    if self._stopped:
                        break
                    if only is None or id(scenario) in only:
                        yield from self._prepare(run, item, scenario, own)
                cleared: tuple[str, ...] = ()
                if own:
                    cleared = own[0].names()
                    yield ScopeCleared(store=own[0].ref, names=cleared)
                yield FeatureFinished(file=file, feature=item, store=ref, cleared=cleared)
            else:
                yield from self._prepare(run, None, item, None)
        cleared = ()
        if run.file_store is not None:
            cleared = run.file_store.names()
            yield ScopeCleared(store=run.file_store.ref, names=cleared)
            run.file_store = None
        passed, failed, skipped = run.counts.passed, run.counts.failed, run.counts.skipped
        yield FileFinished(file=file, passed=passed, failed=failed, skipped=skipped, cleared=cleared)

    def _prepare(
        self, run: FileRun, feature: FeatureNode | None, scenario: ScenarioNode, own: list[Store] | None
    ) -> Iterator[Event | _Job]:
        """Tag selection and the scenario's store (created lazily: right before its first scenario)."""
        record = run.records[id(scenario)] = ScenarioRecord()
        if not self.selected(scenario, feature):
            record.selected = False
            record.by_tags = not self._by_tags(scenario, feature)
            record.status = SKIPPED
            run.counts.skipped += 1
            wanted = (
                str(self._selected)
                if self._selected is not None
                else ", ".join("@" + t for t in sorted(self.tags or ()))
            )
            message = f"not selected by tags (wanted {wanted})" if record.by_tags else "not selected"
            yield ScenarioFinished(
                file=run.file,
                scenario=scenario,
                feature=feature,
                status=SKIPPED,
                message=message,
                elapsed=0.0,
                snapshot=Scope(None, self.run_variables).snapshot(),
            )
            return
        params, problem = run.params(feature, scenario)
        ref = store_for(params, feature.line if feature is not None else None)
        store: Store | None = None
        if ref is not None:
            if ref.feature is None:
                if run.file_store is None:
                    run.file_store = Store(ref)
                    yield ScopeCreated(store=ref)
                store = run.file_store
            else:
                assert own is not None  # a feature's own store only applies to its scenarios
                if not own:
                    own.append(Store(ref))
                    yield ScopeCreated(store=ref)
                store = own[0]
        yield _Job(feature, scenario, params, problem, store, record)

    def _scenario(self, run: FileRun, job: _Job) -> Iterator[Event]:
        feature, scenario, params, problem, store, record = (
            job.feature,
            job.scenario,
            job.params,
            job.problem,
            job.store,
            job.record,
        )
        started = time.perf_counter()
        plan = run.plan(feature, scenario)
        feature_name = feature.name if feature is not None else None
        row = scenario.outline
        if row is not None:  # an outline row's cells: variables of this scenario's layer only
            origin = Origin(scenario.location, scenario.name, feature_name, SCENARIO)
            scope = Scope(store, self.run_variables, dict(row.variables), {n: origin for n, _ in row.variables})
        else:
            scope = Scope(store, self.run_variables)
        self._client.reset_cookies()
        yield ScenarioStarted(
            file=run.file,
            scenario=scenario,
            feature=feature,
            parameters=params,
            store=store.ref if store is not None else None,
            carried=scope.carried(),
            steps=plan,
            snapshot=scope.snapshot(),
        )
        state = self.running = ScenarioState(run, scenario, feature, params, store, record, scope, plan)
        steps = self._steps
        failure: Failure | None = None  # why the scenario does not pass (the first failure)
        skip_message: str | None = None
        if problem is not None:
            failure = Failure(FailureKind.SETUP, problem, scenario.line)
            skip_message = problem
        elif (local := local_error_of(run.file, scenario)) is not None:  # an error local to the scenario
            failure = Failure(FailureKind.SETUP, local.message, local.location.line)
            skip_message = local.message
        bound: dict[int, Saved] = {}  # include -> what its arguments replaced
        # A `finally:` block runs after a failed step too, but not in a scenario that never
        # started (a parameter or local error), and a failure inside it ends the block.
        cleanup_may_run = failure is None
        cleanup_failed = False

        for planned in plan:
            step = planned.step
            runs_anyway = planned.cleanup and cleanup_may_run and not cleanup_failed
            if (failure is not None and not runs_anyway) or self._stopped:
                if failure is None:
                    failure = Failure(FailureKind.STOPPED, INTERRUPTED, step.line)
                    skip_message = INTERRUPTED
                yield _skipped(planned, skip_message, scope, failure.kind in _STOPPED)
                for include in planned.unbind:  # restored after a failed fragment too
                    scope.restore(bound.pop(id(include), {}))
                continue
            yield StepStarted(
                step=step, phase=planned.phase, via=planned.via, index=planned.index, snapshot=scope.snapshot()
            )
            if self._stopped:  # stopped while the consumer paused before it: the step never runs
                failure, skip_message = Failure(FailureKind.STOPPED, INTERRUPTED, step.line), INTERRUPTED
                yield _skipped(planned, INTERRUPTED, scope, True)
                for include in planned.unbind:
                    scope.restore(bound.pop(id(include), {}))
                continue
            if type(step) not in PLAIN_STEPS:  # one that may take long (a request delivers as it waits)
                self._deliver()
            step_started = time.perf_counter()
            state.planned = planned
            state.message = None
            state.failed_inside = None
            state.interrupted = state.internal = False
            try:
                if planned.index in state.consumed:
                    pass  # an auto-test unit's check: it ran for each generated request of its call
                elif isinstance(step, IncludeStep):  # binds its arguments (planned only when it has some)
                    for event in steps.include(step, state, bound):
                        yield event
                else:
                    yield from steps.execute(step, state)
            except Exception as error:  # a bug of ours: said so, and the run goes on (no traceback)
                state.message = internal_error(error)
                state.internal = True
            for include in planned.unbind:
                scope.restore(bound.pop(id(include), {}))
            message = state.message
            status: Status = PASSED if message is None else FAILED
            inside = state.failed_inside if message is not None else None
            yield StepFinished(
                step=step,
                phase=planned.phase,
                via=planned.via,
                index=planned.index,
                status=status,
                message=message,
                elapsed=time.perf_counter() - step_started,
                snapshot=scope.snapshot(),
                failed_inside=inside,
                interrupted=state.interrupted,
            )
            message = state.message  # a step run again while paused here (rerun) has the last word
            if message is not None and failure is not None:  # a clean-up step after the failure
                cleanup_failed = True
            elif message is not None:
                cleanup_failed = planned.cleanup
                line = (inside or step).line
                kind = (
                    FailureKind.INTERNAL
                    if state.internal
                    else FailureKind.INTERRUPTED
                    if state.interrupted
                    else FailureKind.STEP
                )
                failure = Failure(kind, message, line)
                skip_message = (
                    INTERRUPTED if kind is FailureKind.INTERRUPTED else f"skipped after the failure at line {line}"
                )

        if state.webhooks_started:
            yield from steps.stop_webhooks(id(scenario))
        if failure is None:
            status, summary = PASSED, None
            run.counts.passed += 1
        elif failure.kind is FailureKind.STOPPED:  # stopped between steps: nothing failed
            status, summary = SKIPPED, INTERRUPTED
            run.counts.skipped += 1
        else:
            status = FAILED
            summary = (
                failure.message
                if failure.kind is FailureKind.INTERRUPTED
                else f"line {failure.line}: {failure.message}"
            )
            record.failed_line, record.failed_message = failure.line, failure.message
            run.counts.failed += 1
        record.status = status
        self.running = None
        yield ScenarioFinished(
            file=run.file,
            scenario=scenario,
            feature=feature,
            status=status,
            message=summary,
            elapsed=time.perf_counter() - started,
            snapshot=scope.snapshot(),
            interrupted=failure is not None and failure.kind in _STOPPED,
        )
        self._deliver()  # the scenario's result is seen before the next one starts


def _skipped(planned: PlannedStep, message: str | None, scope: Scope, interrupted: bool) -> StepFinished:
    step = planned.step
    return StepFinished(
        step=step,
        phase=planned.phase,
        via=planned.via,
        index=planned.index,
        status=SKIPPED,
        message=message,
        elapsed=0.0,
        snapshot=scope.snapshot(),
        failed_inside=None,
        interrupted=interrupted,
    )


def run_to_completion(
    files: Sequence[ScenarioFileNode | str],
    overrides: RunOverrides | None = None,
    run_variables: Mapping[str, object] | None = None,
    tags: Iterable[str] | None = None,
) -> list[Event]:
    """Run to the end and return every event (for tests and simple callers). Paths are loaded."""
    from scenario_core.language.parser import load_file

    nodes = [f if isinstance(f, ScenarioFileNode) else load_file(f) for f in files]
    options = run_options(overrides=overrides or RunOverrides(), run_variables=run_variables, tags=tags)
    return list(Execution(nodes, options).events())
