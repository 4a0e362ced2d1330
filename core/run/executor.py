"""Running scenario files against a real HTTP API, as a stream of events (see events.py).

The stream is pull-based: nothing happens until the consumer asks for the next event, so a
consumer pauses by not pulling and resumes by pulling. The TUI stepper and the headless runner
are both thin consumers of `Execution.events()`.

    execution = Execution([load_file("pets.scenario")], overrides, run_variables, tags)
    async for event in execution.events():
        ...                     # execution.stop() from another task ends the run early

Scopes follow semantics.md §3, steps §4. Nothing raised inside a step escapes: it fails the step
with a one-line message. Parameters are resolved once per file and feature (and for a scenario
with its own parameters: block), plans once per scenario; per step the work is rendering
templates that have references and sending.

Cookies a server sets live for one scenario (the client's jar is cleared when a scenario starts):
an isolated scenario must not inherit a session through them.
"""

from __future__ import annotations

import asyncio
import time
from contextlib import aclosing
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence

from scenario_core.language.nodes import (
    AssertStep,
    BodyAssertion,
    ConditionalStep,
    DescribedStep,
    ExtractStep,
    FailStep,
    FeatureNode,
    HeaderAssertion,
    IncludeStep,
    JsonPathAssertion,
    RequestStep,
    ScenarioFileNode,
    ScenarioNode,
    SchemaAssertion,
    StatusAssertion,
    Step,
    TimeAssertion,
    VariableAssertion,
    WebhookStep,
    leaf_conditions,
)
from scenario_core.language.parameter_keys import (
    AUTO_CONTENT_TYPE,
    AUTO_ENABLED,
    AUTO_SCHEMA,
    AUTO_STATUS,
    FOLLOW_REDIRECTS,
    MAX_RESPONSE_SIZE,
    OPENAPI,
    STRICT_SCHEMA,
    TIMEOUT,
)
from scenario_core.language.templates import render_json, render_json_text, render_text
from scenario_core.parameters.resolution import EffectiveParameters, ParameterError, RunOverrides, resolve_parameters
from scenario_core.parameters.sharing import store_for
from scenario_core.run.assertions import MISSING, assertion_refs, check, json_path_values
from scenario_core.run.events import (
    BACKGROUND_FEATURE,
    BACKGROUND_FILE,
    FAILED,
    PASSED,
    SCENARIO,
    SKIPPED,
    AssertionChecked,
    AutoTestRan,
    BranchTaken,
    Event,
    FeatureFinished,
    FeatureStarted,
    FileFinished,
    FileStarted,
    Origin,
    PlannedStep,
    RequestRetried,
    RequestSent,
    ResponseReceived,
    RunFinished,
    RunStarted,
    ScenarioFinished,
    ScenarioStarted,
    ScopeCleared,
    ScopeCreated,
    StepFinished,
    StepStarted,
)
from scenario_core.run.explain import Explainer, ScenarioRecord, undefined_refs
from scenario_core.run.http.client import HttpClient, RequestFailed, join_url, parse_json
from scenario_core.run.lookup import Variables
from scenario_core.run.retry import RetryPolicy, send_with_retry
from scenario_core.run.scopes import Scope, Store

__all__ = ["Execution", "plan_scenario", "run_to_completion", "INTERRUPTED"]

INTERRUPTED = "interrupted"

if TYPE_CHECKING:  # the descriptions module is imported only by runs that call operations
    from scenario_core.parameters.descriptions import DescriptionSet


def plan_scenario(
    file: ScenarioFileNode, feature: FeatureNode | None, scenario: ScenarioNode
) -> tuple[PlannedStep, ...]:
    """Every step a scenario runs, in order: the file background, the feature's background, then
    its own steps, with `include:` expanded in place (recursively) and a described step's
    directives in its place (each a step of the plan, its `parent` the described step). An include
    with arguments is a step of its own (it binds them); they are restored after its last step."""
    planned: list[PlannedStep] = []

    def add(steps: Sequence[Step], phase: str, via: tuple[IncludeStep, ...], parent: Step | None) -> None:
        for step in steps:
            if isinstance(step, IncludeStep):
                fragment = file.fragment(step.fragment)
                # check has refused cycles and anything past MAX_INCLUDE_DEPTH / MAX_PLANNED_STEPS
                # (builder.py), so the expansion is complete: nothing is ever dropped here.
                if step.arguments:
                    planned.append(PlannedStep(step, phase, via, len(planned), parent))
                first = len(planned)
                if fragment is not None:
                    add(fragment.steps, phase, via + (step,), None)
                if step.arguments:
                    last = planned[-1] if len(planned) > first else planned[first - 1]
                    planned[last.index] = replace(last, unbind=last.unbind + (step,))
            elif isinstance(step, DescribedStep) and step.steps:
                add(step.steps, phase, via, step)
            else:
                planned.append(PlannedStep(step, phase, via, len(planned), parent))

    if file.background is not None:
        add(file.background.steps, BACKGROUND_FILE, (), None)
    if feature is not None and feature.background is not None:
        add(feature.background.steps, BACKGROUND_FEATURE, (), None)
    add(scenario.steps, SCENARIO, (), None)
    return tuple(planned)


def _step_refs(step: Step) -> tuple[tuple[str, str], ...]:
    """(name, where) for every `{{NAME}}` a step uses; `where` is how the message names the place."""
    refs: list[tuple[str, str]] = []
    if isinstance(step, RequestStep):
        text = step.text
        if step.url is not None:
            refs += [(r.name, text) for r in step.url.refs]
        for parameter in step.parameters:
            refs += [(r.name, f"{parameter.name} of {text}") for r in parameter.value.refs]
        if step.body_file is not None:
            refs += [(r.name, f"the bodyFile of {text}") for r in step.body_file.refs]
        for header in step.headers:
            refs += [(r.name, f"header {header.name} of {text}") for r in header.value.refs]
        for entry in step.query:
            refs += [(r.name, f"query {entry.name} of {text}") for r in entry.value.refs]
        if step.body is not None:
            refs += [(r.name, f"the body of {text}") for r in step.body.refs]
        if step.body_raw is not None:
            refs += [(r.name, f"the body of {text}") for r in step.body_raw.refs]
    elif isinstance(step, AssertStep):
        refs += [(r.name, step.text) for r in assertion_refs(step.assertion)]
    elif isinstance(step, FailStep):
        refs += [(r.name, f"fail {step.text}") for r in step.message.refs]
    elif isinstance(step, IncludeStep):
        for argument in step.arguments:
            refs += [(r.name, f"{argument.name} of include {step.fragment}") for r in argument.value.refs]
    elif isinstance(step, DescribedStep):  # a custom step matches its description as rendered
        refs += [(r.name, f"'{step.text}'") for r in step.description.refs]
    return tuple(refs)


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class _FileRun:
    """Per-file state: effective parameters (resolved once per level), plans, stores, records."""

    def __init__(self, execution: "Execution", file: ScenarioFileNode):
        self.execution = execution
        self.file = file
        self._params: dict[int, tuple[EffectiveParameters, str | None]] = {}
        self._plans: dict[int, tuple[PlannedStep, ...]] = {}
        self.records: dict[int, ScenarioRecord] = {}
        self.file_store: Store | None = None
        self.counts = [0, 0, 0]  # passed, failed, skipped
        self._explainer: Explainer | None = None

    def params(
        self, feature: FeatureNode | None, scenario: ScenarioNode | None = None
    ) -> tuple[EffectiveParameters, str | None]:
        """The effective parameters of a feature's scenarios (None: the file's) -- of `scenario`
        alone when it has its own parameters: block -- and a problem that stops them from running
        (an unreadable OpenAPI description, an unset {{env.NAME}})."""
        own = scenario if scenario is not None and scenario.parameters is not None else None
        key = id(own) if own is not None else id(feature)
        found = self._params.get(key)
        if found is None:
            overrides = self.execution.overrides
            try:
                found = (resolve_parameters(self.file, feature, overrides, own), None)
            except ParameterError as error:  # the value falls back to its next level; the scenarios fail
                found = (error.partial, error.message)
            except Exception as error:  # OpenApiError, or anything odd: the scenarios fail, the run goes on
                fallback = RunOverrides({**overrides.values, OPENAPI: None})
                try:
                    found = (resolve_parameters(self.file, feature, fallback, own), " ".join(str(error).split()))
                except ParameterError as also:
                    found = (also.partial, " ".join(str(error).split()))
            self._params[key] = found
        return found

    def plan(self, feature: FeatureNode | None, scenario: ScenarioNode) -> tuple[PlannedStep, ...]:
        found = self._plans.get(id(scenario))
        if found is None:
            found = self._plans[id(scenario)] = plan_scenario(self.file, feature, scenario)
        return found

    def explainer(self) -> Explainer:
        if self._explainer is None:
            self._explainer = Explainer(
                self.file, self.file.scenarios_in_order(), self.plan, lambda f: self.params(f)[0], self.records
            )
        return self._explainer


@dataclass(frozen=True, slots=True)
class _Job:
    """A scenario ready to run: everything decided before its first event."""

    feature: FeatureNode | None
    scenario: ScenarioNode
    params: EffectiveParameters
    problem: str | None
    store: Store | None
    record: ScenarioRecord


# Assertions check() evaluates on its own (no custom or schema hook inside).
_PLAIN_ASSERTIONS = frozenset((StatusAssertion, JsonPathAssertion, HeaderAssertion, BodyAssertion, TimeAssertion))


class _State:
    """What one running scenario carries from step to step."""

    __slots__ = (
        "run",
        "scenario",
        "feature",
        "feature_name",
        "params",
        "store",
        "record",
        "scope",
        "response",
        "operation",
        "planned",
        "message",
        "webhooks_started",
        "plan",
        "consumed",
        "overlay",
    )

    def __init__(
        self,
        run: _FileRun,
        scenario: ScenarioNode,
        feature: FeatureNode | None,
        params: EffectiveParameters,
        store: Store | None,
        record: ScenarioRecord,
        scope: Scope,
    ):
        self.run, self.scenario, self.feature, self.params = run, scenario, feature, params
        self.feature_name = feature.name if feature is not None else None
        self.store, self.record, self.scope = store, record, scope
        self.response: ResponseReceived | None = None
        self.operation = None  # of the last request: what `then: schema` checks against
        self.planned: PlannedStep | None = None
        self.message: str | None = None  # the running step's failure
        self.webhooks_started = False
        self.plan: tuple[PlannedStep, ...] = ()
        self.consumed: set[int] = set()  # plan indexes an auto-test call already ran for each request
        self.overlay: dict[str, Any] | None = None  # test.* variables while an auto test's checks run


def _reads_variables_only(assertion: Any) -> bool:
    """A condition on variables alone (`{{x}} equals 1`, also under not / and / or) needs no response."""
    return all(isinstance(node, VariableAssertion) for node in leaf_conditions(assertion))


class Execution:
    """One run over one or more parsed files. Iterate `events()` once; `stop()` ends it early."""

    def __init__(
        self,
        files: Sequence[ScenarioFileNode],
        overrides: RunOverrides | None = None,
        run_variables: Mapping[str, Any] | None = None,
        tags: Iterable[str] | None = None,
        descriptions: DescriptionSet | None = None,
        registry: Any = None,
        resource_roots: Sequence[str] = (),
        selected: Callable[[frozenset[str]], bool] | None = None,
        include: Callable[[ScenarioNode, FeatureNode | None], bool] | None = None,
    ):
        self.files = tuple(files)
        self._selected = selected  # a tag expression (tag_expressions.py) over scenario + feature tags; wins over tags
        # Beside tags, a caller's own choice (the pytest plugin's -k/-m): a scenario runs when both agree.
        self._chosen = include
        self.resource_roots = tuple(resource_roots)  # --resource-root: where bodyFile names are looked up first
        self._registry = registry  # custom steps and assertions (custom_steps.Registry), if any
        self._webhooks: Any = None  # webhooks.Webhooks, once a webhook: step starts one
        # OpenAPI descriptions are read once per run (a TUI session passes its own, kept across
        # runs); the OpenAPI layer is imported only by a run that calls an operation.
        self._descriptions = descriptions
        self.overrides = overrides or RunOverrides()
        self.run_variables: dict[str, Any] = dict(run_variables or {})
        self.tags = frozenset(t.lstrip("@") for t in tags) if tags is not None else None
        self._client = HttpClient()
        self._started = False
        self._stopped = False
        self._inflight: asyncio.Task | None = None  # the consuming task, while awaiting a response
        self._cancelled_by_stop = False
        self._refs: dict[int, tuple[tuple[tuple[str, str], ...], bool]] = {}  # refs, and whether any is dotted
        self._operations: dict[tuple[int, int], tuple[Any, str | None]] = {}  # see _build_call
        self._call_contexts: dict[int, tuple[Any, Any, dict[str, str | None]]] = {}
        self._send_options: dict[int, tuple[EffectiveParameters, RetryPolicy | None, bool]] = {}

    # ------------------------------------------------------------ control

    @property
    def stopped(self) -> bool:
        return self._stopped

    def stop(self) -> None:
        """End the run early: a request in flight is cancelled at once; the stream then winds down
        (interrupted step, its scenario, open stores) and ends with RunFinished(interrupted=True).
        Call it from the event loop's thread (e.g. another task, or the consumer between pulls)."""
        self._stopped = True
        task = self._inflight
        if task is not None and not self._cancelled_by_stop and task is not asyncio.current_task():
            self._cancelled_by_stop = True
            task.cancel()

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

    def __aiter__(self) -> AsyncIterator[Event]:
        return self.events()

    # ------------------------------------------------------------ the stream

    async def events(self) -> AsyncIterator[Event]:
        if self._started:
            raise RuntimeError("an Execution runs once; create a new one to run again")
        self._started = True
        started = time.perf_counter()
        totals = [0, 0, 0]
        try:
            yield RunStarted(self.files, self.run_variables, self.tags)
            for file in self.files:
                if self._stopped:
                    break
                run = _FileRun(self, file)
                # The file's structure is walked by a plain generator (cheap); only scenarios,
                # which await HTTP, are async generators.
                for item in self._walk(run):
                    if isinstance(item, _Job):
                        async with aclosing(self._scenario(run, item)) as stream:
                            async for event in stream:
                                yield event
                    else:
                        if isinstance(item, FeatureFinished) and self._webhooks is not None:
                            await self._webhooks.stop(id(item.feature))  # its feature-scoped webhooks
                        yield item
                for i in range(3):
                    totals[i] += run.counts[i]
            yield RunFinished(totals[0], totals[1], totals[2], time.perf_counter() - started, self._stopped)
        finally:
            self._stopped = True
            await self._client.aclose()
            if self._webhooks is not None:
                await self._webhooks.aclose()

    def _walk(self, run: _FileRun) -> Iterator[Event | _Job]:
        """A file's events around its scenarios, in source order; a _Job where a scenario runs."""
        file = run.file
        file_params, _ = run.params(None)
        yield FileStarted(file, file_params, store_for(file_params))
        for item in file.items:
            if self._stopped:
                break
            if isinstance(item, FeatureNode):
                params, _ = run.params(item)
                ref = store_for(params, item.line)
                yield FeatureStarted(file, item, params, ref)
                own: list[Store] = []  # the feature's own store, once its first scenario starts
                for scenario in item.scenarios:
                    if self._stopped:
                        break
                    yield from self._prepare(run, item, scenario, own)
                cleared: tuple[str, ...] = ()
                if own:
                    cleared = own[0].names()
                    yield ScopeCleared(own[0].ref, cleared)
                yield FeatureFinished(file, item, ref, cleared)
            else:
                yield from self._prepare(run, None, item, None)
        cleared = ()
        if run.file_store is not None:
            cleared = run.file_store.names()
            yield ScopeCleared(run.file_store.ref, cleared)
            run.file_store = None
        passed, failed, skipped = run.counts
        yield FileFinished(file, passed, failed, skipped, cleared)

    def _prepare(
        self, run: _FileRun, feature: FeatureNode | None, scenario: ScenarioNode, own: list[Store] | None
    ) -> Iterator[Event | _Job]:
        """Tag selection and the scenario's store (created lazily: right before its first scenario)."""
        record = run.records[id(scenario)] = ScenarioRecord()
        if not self.selected(scenario, feature):
            record.selected = False
            record.by_tags = not self._by_tags(scenario, feature)
            record.status = SKIPPED
            run.counts[2] += 1
            wanted = (
                str(self._selected)
                if self._selected is not None
                else ", ".join("@" + t for t in sorted(self.tags or ()))
            )
            message = f"not selected by tags (wanted {wanted})" if record.by_tags else "not selected"
            yield ScenarioFinished(
                run.file, scenario, feature, SKIPPED, message, 0.0, Scope(None, self.run_variables).snapshot()
            )
            return
        params, problem = run.params(feature, scenario)
        ref = store_for(params, feature.line if feature is not None else None)
        store: Store | None = None
        if ref is not None:
            if ref.feature is None:
                if run.file_store is None:
                    run.file_store = Store(ref)
                    yield ScopeCreated(ref)
                store = run.file_store
            else:
                assert own is not None  # a feature's own store only applies to its scenarios
                if not own:
                    own.append(Store(ref))
                    yield ScopeCreated(ref)
                store = own[0]
        yield _Job(feature, scenario, params, problem, store, record)

    async def _scenario(self, run: _FileRun, job: _Job) -> AsyncIterator[Event]:
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
            run.file,
            scenario,
            feature,
            params,
            store.ref if store is not None else None,
            scope.carried(),
            plan,
            scope.snapshot(),
        )
        state = _State(run, scenario, feature, params, store, record, scope)
        state.plan = plan
        failure: tuple[int, str] | None = None  # (line, message) of the failing step
        skip_message = None
        if problem is not None:
            failure = (scenario.line, problem)
            skip_message = problem
        bound: dict[int, dict[str, Any]] = {}  # include -> what its arguments replaced
        step_failed = False  # a step ran and failed (a request cut by stop() too)

        for planned in plan:
            step = planned.step
            if failure is not None or self._stopped:
                if failure is None:
                    failure = (step.line, INTERRUPTED)
                    skip_message = INTERRUPTED
                yield StepFinished(
                    step, planned.phase, planned.via, planned.index, SKIPPED, skip_message, 0.0, scope.snapshot()
                )
                for include in planned.unbind:  # restored after a failed fragment too
                    scope.restore(bound.pop(id(include), {}))
                continue
            yield StepStarted(step, planned.phase, planned.via, planned.index, scope.snapshot())
            if self._stopped:  # stopped while the consumer paused before it: the step never runs
                failure, skip_message = (step.line, INTERRUPTED), INTERRUPTED
                yield StepFinished(
                    step, planned.phase, planned.via, planned.index, SKIPPED, INTERRUPTED, 0.0, scope.snapshot()
                )
                for include in planned.unbind:
                    scope.restore(bound.pop(id(include), {}))
                continue
            step_started = time.perf_counter()
            state.planned = planned
            state.message = None
            try:
                if planned.index in state.consumed:
                    pass  # an auto-test unit's check: it ran for each generated request of its call
                elif isinstance(step, IncludeStep):  # binds its arguments (planned only when it has some)
                    async for event in self._include(step, state, bound):
                        yield event
                else:
                    async for event in self._execute(step, state):
                        yield event
            except Exception as error:  # a fault in a step is that step's failure, never the run's
                state.message = f"internal error: {_one_line(error)}"
            for include in planned.unbind:
                scope.restore(bound.pop(id(include), {}))
            message = state.message
            status = PASSED if message is None else FAILED
            yield StepFinished(
                step,
                planned.phase,
                planned.via,
                planned.index,
                status,
                message,
                time.perf_counter() - step_started,
                scope.snapshot(),
            )
            if message is not None:
                step_failed = True
                failure = (step.line, message)
                skip_message = (
                    INTERRUPTED if message == INTERRUPTED else f"skipped after the failure at line {step.line}"
                )

        if state.webhooks_started:
            await self._webhooks_stop(id(scenario))
        if failure is None:
            status, summary = PASSED, None
            run.counts[0] += 1
        elif failure[1] == INTERRUPTED and not step_failed:  # stopped between steps: nothing failed
            status, summary = SKIPPED, INTERRUPTED
            run.counts[2] += 1
        else:
            status = FAILED
            summary = failure[1] if failure[1] == INTERRUPTED else f"line {failure[0]}: {failure[1]}"
            record.failed_line, record.failed_message = failure
            run.counts[1] += 1
        record.status = status
        yield ScenarioFinished(
            run.file, scenario, feature, status, summary, time.perf_counter() - started, scope.snapshot()
        )

    def _visible(self, step: Step, state: "_State") -> tuple[Mapping[str, Any], tuple[str, str] | None, tuple]:
        """What the step reads its references from, and the first of them that is undefined."""
        found = self._refs.get(id(step))
        if found is None:
            refs = _step_refs(step)
            found = self._refs[id(step)] = (refs, any("." in name for name, _ in refs))
        refs, dotted = found
        visible = self._lookup(state, dotted)
        missing = undefined_refs(refs, visible) if refs else None
        return visible, missing, refs

    def _lookup(self, state: "_State", dotted: bool) -> Mapping[str, Any]:
        """What references read: the scope, an auto test's test.* / multiTest.* names, and (for a
        dotted name) env.X, param.KEY and a webhook's hooks."""
        visible: Mapping[str, Any] = state.scope.visible()
        if state.overlay:
            visible = {**visible, **state.overlay}
        if dotted:
            visible = Variables(visible, state.params, self._providers())
        return visible

    def _providers(self) -> tuple:
        return (self._webhooks.lookup,) if self._webhooks is not None else ()

    def _explain(self, state: "_State", missing: tuple[str, str], visible: Mapping[str, Any]) -> str:
        store_ref = state.store.ref if state.store is not None else None
        return state.run.explainer().explain(
            missing[0], missing[1], visible, state.scenario, state.feature, state.planned.index, store_ref
        )

    async def _execute(self, step: Step, state: "_State") -> AsyncIterator[Event]:
        """Run one step, yielding its events; its failure, if any, is left in `state.message`."""
        visible, missing, _ = self._visible(step, state)
        if missing is not None and not isinstance(step, (ConditionalStep, DescribedStep)):
            state.message = self._explain(state, missing, visible)
            return
        if isinstance(step, RequestStep):
            async for event in self._request(step, state, visible):
                yield event
        elif isinstance(step, AssertStep):
            response = state.response
            if isinstance(step.assertion, SchemaAssertion):
                if response is None:
                    state.message = f"no response to check: {step.keyword} needs a request before it"
                    return
                problems: list[str] = []
                operation = state.operation
                message = _schema_message(operation, response, state.params[STRICT_SCHEMA].value, problems)
                # `actual`: each offending value as `$.path: expected …, got …`, for the TUI.
                yield AssertionChecked(
                    step,
                    message is None,
                    "the response schema of " + (operation.label if operation else "an operation"),
                    problems or None,
                    message,
                )
                state.message = message
                return
            outcome = self._check(step.assertion, state, visible)
            actual = None if outcome.actual is MISSING else outcome.actual
            yield AssertionChecked(step, outcome.passed, outcome.expected, actual, outcome.message)
            if not outcome.passed:
                state.message = outcome.message or "assertion failed"
        elif isinstance(step, ExtractStep):
            value, message = self._extract(step, state.response)
            if message is not None:
                state.message = message
                return
            planned = state.planned
            origin = Origin(step.location, state.scenario.name, state.feature_name, planned.phase)
            for event in state.scope.extract(step, step.name, value, origin, planned.phase == SCENARIO):
                yield event
            state.record.extracted.add(step.name)
        elif isinstance(step, ConditionalStep):
            async for event in self._conditional(step, state):
                yield event
        elif isinstance(step, FailStep):
            state.message = render_text(step.message, visible)
        elif isinstance(step, WebhookStep):
            await self._start_webhook(step, state)
        elif isinstance(step, DescribedStep):  # no directives: a custom step
            if missing is not None:
                state.message = self._explain(state, missing, visible)
                return
            async for event in self._custom_step(step, state, visible):
                yield event
        else:
            state.message = f"cannot run a {type(step).__name__} step"

    def _check(self, assertion: Any, state: "_State", visible: Mapping[str, Any]):
        if state.response is None and not _reads_variables_only(assertion):
            from scenario_core.run.assertions import Outcome

            keyword = getattr(state.planned.step, "keyword", "then")
            need = "a when: step" if keyword == "then" else "a call"
            return Outcome(False, None, MISSING, f"no response to check: {keyword} needs {need} before it")
        if type(assertion) in _PLAIN_ASSERTIONS:  # nothing of the executor's is needed: no hooks to make
            return check(assertion, state.response, visible)
        custom = self._custom_assertion(state) if self._registry is not None else None
        return check(assertion, state.response, visible, custom=custom, schema=self._schema_check(state))

    @staticmethod
    def _schema_check(state: "_State"):
        """check()'s hook for `schema` inside not / and / or: the called operation's schema."""
        from scenario_core.run.assertions import Outcome

        def run(response: ResponseReceived):
            message = _schema_message(state.operation, response, state.params[STRICT_SCHEMA].value)
            return Outcome(message is None, "the response schema", None, message)

        return run

    async def _conditional(self, step: ConditionalStep, state: "_State") -> AsyncIterator[Event]:
        """The first branch whose condition holds runs its steps; each condition tried is shown."""
        tried: list[tuple[str, bool, str | None]] = []
        chosen = None
        for index, branch in enumerate(step.branches):
            if branch.condition is None:
                chosen = index
                break
            refs = assertion_refs(branch.condition)
            visible = self._lookup(state, any("." in r.name for r in refs))
            missing = next((r.name for r in refs if r.name not in visible), None)
            if missing is not None:
                state.message = self._explain(state, (missing, f"if {branch.text}"), visible)
            elif state.response is None and not _reads_variables_only(branch.condition):
                state.message = f"no response to check: if {branch.text} needs a call before it"
            if state.message is not None:
                yield BranchTaken(step, None, tuple(tried))
                return
            outcome = self._check(branch.condition, state, visible)
            tried.append((branch.text, outcome.passed, outcome.message))
            if outcome.passed:
                chosen = index
                break
        yield BranchTaken(step, chosen, tuple(tried))
        if chosen is None:
            return
        for inner in step.branches[chosen].steps:
            async for event in self._execute(inner, state):
                yield event
            if state.message is not None:
                return

    async def _include(
        self, step: IncludeStep, state: "_State", bound: dict[int, dict[str, Any]]
    ) -> AsyncIterator[Event]:
        visible, missing, _ = self._visible(step, state)
        if missing is not None:
            state.message = self._explain(state, missing, visible)
            return
        values = {a.name: render_json(a.value, visible) for a in step.arguments}
        origin = Origin(step.location, state.scenario.name, state.feature_name, state.planned.phase)
        events, saved = state.scope.bind(step, values, origin)
        bound[id(step)] = saved
        for event in events:
            yield event

    async def _request(self, step: RequestStep, state: "_State", visible: Mapping[str, Any]) -> AsyncIterator[Event]:
        params = state.params
        state.operation = operation = None
        try:
            if step.operation is not None:
                request, body_text, url, operation, placements = self._build_call(
                    step, visible, params, state.run.file.path
                )
            else:
                request, body_text, url = self._build_request(step, visible, params.base_url, params.headers)
                placements = ()
        except RequestFailed as failed:
            state.message = str(failed)
            return
        state.operation = operation
        if step.auto and operation is not None:  # the generated requests replace this one: it is never sent
            async for event in self._auto_tests(step, state, visible, operation):
                yield event
            return
        encoding = request.headers.encoding
        yield RequestSent(
            step,
            request.method,
            str(request.url),
            tuple((k.decode(encoding), v.decode(encoding)) for k, v in request.headers.raw),
            body_text,
            operation.label if operation is not None else None,
            placements,
            operation.summary if operation is not None else "",
        )
        retried: list[Event] = []  # RequestRetried, emitted once the attempts are over
        result = await self._transmit(request, url, state, step, retried)
        for event in retried:
            yield event
        if result is not None:
            data, json_error = parse_json(result.content)
            response = ResponseReceived(
                step, result.status, result.reason, result.headers, result.body, result.elapsed, data, json_error
            )
            state.response = response
            yield response
            if operation is not None and params[AUTO_ENABLED].value:
                state.message = _auto_assertions(operation, response, params)

    async def _transmit(
        self,
        request: Any,
        url: str,
        state: "_State",
        step: RequestStep | None = None,
        retried: list[Event] | None = None,
    ):
        """Send one request under the scenario's timeout and size cap, following redirects as
        followRedirects says: its result, or None with the failure in `state.message`. With
        `retried`, retry.* applies and each retry is appended to it (auto tests are not retried)."""
        if self._stopped:
            state.message = INTERRUPTED
            return None
        params = state.params
        max_size_setting = params[MAX_RESPONSE_SIZE].winner
        # stop() may cancel this task only while it waits here, never while the consumer holds an
        # event (it would cancel the consumer's own code).
        self._inflight = asyncio.current_task()
        try:
            return await self._send(
                step,
                params,
                request,
                retried,
                params.timeout,
                params[TIMEOUT].winner,
                url,
                max_size_setting.value,
                max_size_setting,
            )
        except RequestFailed as failed:
            state.message = str(failed)
        except asyncio.CancelledError:
            if not self._cancelled_by_stop:
                raise
            self._cancelled_by_stop = False
            task = asyncio.current_task()
            if task is not None and hasattr(task, "uncancel"):
                task.uncancel()
            state.message = INTERRUPTED
        finally:
            self._inflight = None
        return None

    async def _auto_tests(
        self, step: RequestStep, state: "_State", visible: Mapping[str, Any], operation: Any
    ) -> AsyncIterator[Event]:
        """`auto: [invalid security multi]`: the call's generated requests, each followed by the
        unit's checks (the assert / if directives after the call, up to the next call) with
        `test.*` (or `multiTest.*`) set; the call fails when the checks fail for any of them."""
        from scenario_core.openapi.auto_tests import MULTI, generate, multi_tests

        planned = state.planned
        checks: list[PlannedStep] = []
        for later in state.plan[planned.index + 1 :]:
            if (
                later.parent is not planned.parent
                or later.phase != planned.phase
                or later.via != planned.via
                or isinstance(later.step, (RequestStep, IncludeStep, ExtractStep))
            ):
                break
            checks.append(later)
        state.consumed.update(p.index for p in checks)
        children = [(p.name, render_json(p.value, visible)) for p in step.parameters]
        children += [(f"query_{q.name}", render_text(q.value, visible)) for q in step.query]
        headers = [(h.name, render_text(h.value, visible)) for h in step.headers]
        if state.params.headers:  # header.NAME goes with generated requests too
            headers = self._with_defaults(headers, state.params.headers)
        body: dict[str, Any] = {}
        if step.body is not None:
            body["structured_body" if step.body_structured else "json_body"] = render_json(step.body, visible)
        runs: list[tuple[str, str, str, dict[str, Any], list]] = []  # kind, type, description, variables, plans
        for test in generate(
            operation, [k for k in step.auto if k != MULTI], children, excludes=step.excludes, headers=headers, **body
        ):
            runs.append(
                (
                    test.type,
                    test.test_type,
                    test.description,
                    {f"test.{k}": v for k, v in test.variables().items()},
                    [test.request],
                )
            )
        if MULTI in step.auto:
            from scenario_core.openapi.request_builder import build_request

            base = build_request(operation, children, headers=headers, **body)
            params = state.params
            own = dict(step.repeats)  # the call's own counts win over the parameters
            sequential = own.get("multiTestSequentialCount", params["multiTestSequentialCount"].value)
            concurrent = own.get("multiTestConcurrentCount", params["multiTestConcurrentCount"].value)
            for test in multi_tests(sequential, concurrent, step.excludes):
                variables = {f"multiTest.{k}": v for k, v in test.variables().items()}
                if test.mode == "SEQUENTIAL":
                    runs += [
                        (MULTI, test.mode, f"sequential request {i + 1} of {test.count}", variables, [base])
                        for i in range(test.count)
                    ]
                else:
                    runs.append((MULTI, test.mode, f"{test.count} concurrent requests", variables, [base] * test.count))
        base_url = self._operations[(id(step), id(state.params))][1]
        failed: list[str] = []
        for number, (kind, test_type, description, variables, plans) in enumerate(runs, 1):
            requests = []
            for plan in plans:
                url = join_url(base_url, plan.path)
                request = self._client.build(plan.method, url, list(plan.headers), [], plan.body)
                requests.append((request, url))
                encoding = request.headers.encoding
                yield RequestSent(
                    step,
                    request.method,
                    str(request.url),
                    tuple((k.decode(encoding), v.decode(encoding)) for k, v in request.headers.raw),
                    plan.body.decode("utf-8", "replace") if plan.body else None,
                    operation.label,
                    (),
                    description,
                )
            started = time.perf_counter()
            results = await asyncio.gather(*(self._transmit(r, u, state) for r, u in requests))
            if state.message == INTERRUPTED:
                return
            message = state.message
            state.message = None
            for result in results:
                if result is None:
                    continue
                data, json_error = parse_json(result.content)
                state.response = ResponseReceived(
                    step, result.status, result.reason, result.headers, result.body, result.elapsed, data, json_error
                )
                yield state.response
            if kind == MULTI:
                ok = all(r is not None and r.status < 500 for r in results)
                variables = {
                    **variables,
                    "multiTest.result": "success" if ok else "failure",
                    "multiTest.duration": round((time.perf_counter() - started) * 1000),
                }
            state.overlay = variables
            try:
                for unit_check in checks if message is None else ():
                    async for event in self._execute(unit_check.step, state):
                        yield event
                    if state.message is not None:
                        message = state.message
                        break
            finally:
                state.overlay = None
                state.message = None
            yield AutoTestRan(step, number, len(runs), kind, test_type, description, message is None, message)
            if message is not None:
                failed.append(f"{test_type} {description}: {message}")
        if failed:
            shown = "; ".join(failed[:3]) + (f"; and {len(failed) - 3} more" if len(failed) > 3 else "")
            state.message = f"auto tests: {len(failed)} of {len(runs)} failed: {shown}"

    # ------------------------------------------------------------ webhooks and custom steps

    async def _start_webhook(self, step: WebhookStep, state: "_State") -> None:
        """Start the webhook's loopback server; it lives until its scope (scenario or feature) ends."""
        from scenario_core.run.webhooks import Webhooks

        if self._webhooks is None:
            self._webhooks = Webhooks()
        owner = id(state.feature) if step.scope == "feature" and state.feature is not None else id(state.scenario)
        try:
            await self._webhooks.start(step, owner)
        except Exception as error:  # a busy port: one line
            state.message = _one_line(error) if not isinstance(error, OSError) else f"webhook {step.name}: {error}"
            return
        if owner == id(state.scenario):
            state.webhooks_started = True

    async def _webhooks_stop(self, owner: int) -> None:
        if self._webhooks is not None:
            await self._webhooks.stop(owner)

    async def _custom_step(
        self, step: DescribedStep, state: "_State", visible: Mapping[str, Any]
    ) -> AsyncIterator[Event]:
        """A described step without directives runs the Python step registered for its description."""
        description = render_text(step.description, visible)
        match = self._registry.match_step(description) if self._registry is not None else None
        if match is None:
            state.message = (
                f'no step matches "{description}"; custom steps are Python functions (see README, Custom steps)'
            )
            return
        events: list[Event] = []
        state.message = await match.run(self._step_context(state, visible, events))
        for event in events:
            yield event

    def _step_context(self, state: "_State", visible: Mapping[str, Any], events: list[Event]):
        from scenario_core.custom_steps.context import StepContext

        planned = state.planned
        step = planned.step

        def set_variable(name: str, value: Any) -> None:
            origin = Origin(step.location, state.scenario.name, state.feature_name, planned.phase)
            events.extend(state.scope.extract(step, name, value, origin, planned.phase == SCENARIO))
            state.record.extracted.add(name)

        parameters = {key: value.value for key, value in state.params.items()}
        return StepContext(visible, set_variable, state.response, parameters)

    def _custom_assertion(self, state: "_State"):
        """check()'s hook for `assert <free text>`: the Python assertion registered for the text."""
        from scenario_core.run.assertions import Outcome

        def run(assertion: Any, variables: Mapping[str, Any]):
            text = render_text(assertion.text, variables)
            match = self._registry.match_assertion(text)
            if match is None:
                return Outcome(
                    False,
                    None,
                    MISSING,
                    f'no assertion matches "{text}"; custom assertions are Python functions (see README, Custom steps)',
                )
            message = _run_sync(match, self._step_context(state, variables, []))
            return Outcome(message is None, text, None, message)

        return run

    def _send(
        self, step: RequestStep | None, params: EffectiveParameters, request, retried: list[Event] | None, *send_args
    ):
        """The one send of a request: tried again by retry.* when `retried` is given (each retry
        appended to it as a RequestRetried), following redirects when followRedirects says so."""
        options = self._send_options.get(id(params))
        if options is None or options[0] is not params:
            options = self._send_options[id(params)] = (
                params,
                RetryPolicy.from_parameters(params),
                params[FOLLOW_REDIRECTS].value,
            )
        _, policy, follow = options
        if policy is None or retried is None:
            return self._client.send(request, *send_args, follow_redirects=follow)
        return send_with_retry(
            self._client,
            request,
            policy,
            lambda attempt, reason, delay: retried.append(RequestRetried(step, attempt, reason, delay)),
            *send_args,
            follow_redirects=follow,
        )

    @staticmethod
    def _with_defaults(headers: list[tuple[str, str]], defaults: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
        """`header.NAME` parameters first, unless the step sends a header of that name itself."""
        own = {name.lower() for name, _ in headers}
        return [(n, v) for n, v in defaults if n.lower() not in own] + headers

    def _build_request(
        self,
        step: RequestStep,
        visible: Mapping[str, Any],
        base_url: str | None,
        default_headers: Sequence[tuple[str, str]] = (),
    ):
        url = join_url(base_url, render_text(step.url, visible).strip())
        headers = [(h.name, render_text(h.value, visible)) for h in step.headers]
        if default_headers:
            headers = self._with_defaults(headers, default_headers)
        query = [(q.name, render_text(q.value, visible)) for q in step.query]
        body_text: str | None = None
        content: bytes | None = None
        if step.body is not None or step.body_raw is not None:
            if step.body is not None:
                body_text = render_json_text(step.body, visible) if step.body.refs else step.body.text
            else:
                body_text = render_text(step.body_raw, visible)
            content = body_text.encode("utf-8")
            if not any(name.lower() == "content-type" for name, _ in headers):
                headers.append(("Content-Type", "application/json"))
        for name, value in headers:
            if "\n" in value or "\r" in value:
                raise RequestFailed(f"header {name} has a line break in its value: {value!r}")
        return self._client.build(step.method, url, headers, query, content), body_text, url

    def _build_call(
        self, step: RequestStep, visible: Mapping[str, Any], params: EffectiveParameters, scenario_file: str
    ):
        """An operation call: the operation from the descriptions in force, each child placed where
        it declares it, the body over its schema's defaults. RequestFailed, one line, otherwise."""
        from scenario_core.openapi.documents import OpenApiError
        from scenario_core.openapi.request_builder import build_request
        from scenario_core.parameters.descriptions import SHARED, aliases, operation_base_url

        if self._descriptions is None:
            self._descriptions = SHARED

        ref = step.operation
        # Resolved once per step and parameters (a feature's, the file's): a chain of 600 calls
        # looks its operation and base URL up once.
        found = self._operations.get((id(step), id(params)))
        if found is None:
            context = self._call_contexts.get(id(params))
            try:
                if context is None:
                    descriptions = self._descriptions.for_parameters(params, scenario_file)
                    context = self._call_contexts[id(params)] = (descriptions, aliases(params), {})
                descriptions, known_aliases, base_urls = context
                operation = descriptions.find(ref.operation_id, ref.using, known_aliases)
            except OpenApiError as error:
                raise RequestFailed(" ".join(str(error).split())) from None
            base_url = base_urls.get(operation.description_name, _UNRESOLVED)
            if base_url is _UNRESOLVED:
                base_url = base_urls[operation.description_name] = operation_base_url(operation, params, descriptions)
            found = self._operations[(id(step), id(params))] = (operation, base_url)
        operation, base_url = found
        children = [(p.name, render_json(p.value, visible)) for p in step.parameters]
        children += [(f"query_{q.name}", render_text(q.value, visible)) for q in step.query]
        headers = [(h.name, render_text(h.value, visible)) for h in step.headers]
        if params.headers:  # a header_NAME child replaces a same-named one (build_request)
            headers = self._with_defaults(headers, params.headers)
        body: dict[str, Any] = {}
        if step.body is not None:
            if step.body_structured:
                body["structured_body"] = render_json(step.body, visible)
            else:
                body["body"] = render_json_text(step.body, visible) if step.body.refs else step.body.text
        elif step.body_raw is not None:
            body["body"] = render_text(step.body_raw, visible)
        elif step.body_file is not None:
            body["body"] = _read_body_file(
                render_text(step.body_file, visible), scenario_file, visible, self.resource_roots
            )
        try:
            plan = build_request(operation, children, headers=headers, **body)
        except OpenApiError as error:
            raise RequestFailed(f"{ref.text}: {' '.join(str(error).split())}") from None
        url = join_url(base_url, plan.path)
        for name, value in plan.headers:
            if "\n" in value or "\r" in value:
                raise RequestFailed(f"header {name} has a line break in its value: {value!r}")
        request = self._client.build(plan.method, url, list(plan.headers), [], plan.body)
        placements = tuple((p.child, p.location, p.sent) for p in plan.placements)
        return request, plan.body_text, url, operation, placements

    @staticmethod
    def _extract(step: ExtractStep, response: ResponseReceived | None) -> tuple[Any, str | None]:
        """(value, None) or (None, why not)."""
        if response is None:
            return None, "no response to extract from: extract needs a when: step before it"
        if step.source == "header":
            value = response.header(step.path)
            if value is None:
                return None, f"the response has no {step.path} header to extract {step.name} from"
            return value, None
        if not response.is_json:
            return None, f"cannot extract {step.name} from {step.path}: {response.json_error}"
        try:
            value = json_path_values(step.compiled, response.json)
        except Exception as error:
            return None, f"cannot evaluate {step.path}: {_one_line(error)}"
        if value is MISSING:
            return None, f"{step.path} matched nothing in the response body"
        return value, None


_UNRESOLVED = object()


def _run_sync(match: Any, context: Any) -> str | None:
    """A custom assertion inside check() (synchronous): run its coroutine to completion on a
    private loop when it is async (check runs between awaits, never inside one)."""
    import inspect

    outcome = match.run(context)
    if inspect.isawaitable(outcome):
        import concurrent.futures

        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, _awaited(outcome)).result()
    return outcome


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


def _schema_message(
    operation, response: ResponseReceived, strict: bool, problems: list[str] | None = None
) -> str | None:
    """Why the response does not match its operation's schema; None when it does. The
    offending values, one `$.path: why` each, are appended to `problems` when given."""
    if operation is None:
        return (
            "then: schema needs an operation call before it (when: ^operationId): "
            "a request written as METHOD path has no schema to check against"
        )
    from scenario_core.openapi.schema_check import check_response

    parsed = {"parsed": response.json} if response.is_json else {}  # saves a second parse
    result = check_response(
        operation, response.status, response.header("Content-Type"), response.body, strict=strict, **parsed
    )
    if problems is not None:
        problems.extend(str(p) for p in result.problems)
    return None if result.ok else result.message


def _auto_assertions(operation, response: ResponseReceived, params: EffectiveParameters) -> str | None:
    """autoAssertions.enabled: what the description says of every response of an operation call."""
    from scenario_core.openapi.schema_check import check_content_type, check_status

    problems = []
    if params[AUTO_STATUS].value:
        problems.append(check_status(operation, response.status))
    if params[AUTO_CONTENT_TYPE].value:
        problems.append(
            check_content_type(
                operation, response.status, response.header("Content-Type"), has_body=bool(response.body)
            )
        )
    if params[AUTO_SCHEMA].value and not any(problems):
        problems.append(_schema_message(operation, response, params[STRICT_SCHEMA].value))
    found = [p for p in problems if p]
    return "autoAssertions: " + "; ".join(found) if found else None


def _read_body_file(
    name: str, scenario_file: str, visible: Mapping[str, Any], resource_roots: Sequence[str] = ()
) -> str:
    """`bodyFile: "x.json"`, BerryCrush's `"classpath:templates/x.json"` or `"file:x.json"`: the
    file's text with its {{NAME}} references rendered (berrycrush.md §3.2). `file:` is relative to
    the working directory; any other relative name is looked up in each --resource-root, then the
    scenario file's folder and each folder above it."""
    from pathlib import Path

    from scenario_core.language.nodes import SourceLocation
    from scenario_core.language.parser import MAX_FILE_BYTES
    from scenario_core.language.templates import TemplateError, text_template
    from scenario_core.support.input_files import InputFileError, read_regular_file

    folder = Path(scenario_file).resolve().parent
    if name.startswith("file:"):
        candidates = [Path(name[len("file:") :])]
        where = "the working directory"
    else:
        relative = name[len("classpath:") :].lstrip("/") if name.startswith("classpath:") else name
        roots = [Path(r) for r in resource_roots] + [folder, *folder.parents]
        candidates = [Path(relative)] if Path(relative).is_absolute() else [d / relative for d in roots]
        where = f"{', '.join(resource_roots) + ', ' if resource_roots else ''}{folder} or a folder above it"
    for candidate in candidates:
        if candidate.exists():
            try:
                data = read_regular_file(candidate, MAX_FILE_BYTES)
                text = data.decode("utf-8")
            except InputFileError as problem:
                raise RequestFailed(f"bodyFile {candidate} {problem}") from None
            except UnicodeDecodeError:
                raise RequestFailed(f"bodyFile {candidate} is not UTF-8 text") from None
            if "{{" not in text:
                return text
            try:
                template = text_template(
                    text, lambda o, n, file=str(candidate): SourceLocation(file, 1, o + 1, 1, o + 1 + n)
                )
            except TemplateError as problem:
                raise RequestFailed(f"bodyFile {candidate}: {problem}") from None
            missing = [r.name for r in template.refs if r.name not in visible]
            if missing:
                raise RequestFailed(
                    f"undefined variable '{missing[0]}' in bodyFile {candidate}; "
                    f"visible here: {', '.join(sorted(visible)) or 'nothing'}"
                )
            return render_text(template, visible)
    raise RequestFailed(f"bodyFile '{name}' not found in {where}")


# ---------------------------------------------------------------- synchronous helper


def run_to_completion(
    files: Sequence[ScenarioFileNode | str],
    overrides: RunOverrides | None = None,
    run_variables: Mapping[str, Any] | None = None,
    tags: Iterable[str] | None = None,
) -> list[Event]:
    """Run to the end and return every event (for tests and simple callers). Paths are loaded."""
    from scenario_core.language.parser import load_file

    nodes = [f if isinstance(f, ScenarioFileNode) else load_file(f) for f in files]

    events: list[Event] = []

    async def collect() -> None:  # returns None: asyncio would repr a returned list on completion
        async for event in Execution(nodes, overrides, run_variables, tags).events():
            events.append(event)

    asyncio.run(collect())
    return events
