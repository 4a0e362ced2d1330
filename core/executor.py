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
from dataclasses import dataclass
from typing import Any, AsyncIterator, Iterable, Iterator, Mapping, Sequence

from .assertions import MISSING, check, json_path_values
from .events import (
    BACKGROUND_FEATURE, BACKGROUND_FILE, FAILED, PASSED, SCENARIO, SKIPPED, AssertionChecked, Event,
    FeatureFinished, FeatureStarted, FileFinished, FileStarted, Origin, PlannedStep, RequestSent,
    RequestRetried, ResponseReceived, RunFinished, RunStarted, ScenarioFinished, ScenarioStarted, ScopeCleared,
    ScopeCreated, StepFinished, StepStarted,
)
from .explain import Explainer, ScenarioRecord, undefined_refs
from .http_client import HttpClient, RequestFailed, join_url, parse_json
from .nodes import (
    AssertStep, BodyAssertion, ExtractStep, FeatureNode, HeaderAssertion, IncludeStep,
    JsonPathAssertion, RequestStep, ScenarioFileNode, ScenarioNode, Step,
)
from .nodes import SchemaAssertion
from .parameters import (
    AUTO_CONTENT_TYPE, AUTO_ENABLED, AUTO_SCHEMA, AUTO_STATUS, FOLLOW_REDIRECTS, MAX_RESPONSE_SIZE, OPENAPI,
    STRICT_SCHEMA, TIMEOUT,
)
from .resolution import EffectiveParameters, ParameterError, RunOverrides, resolve_parameters
from .retry import RetryPolicy, send_with_retry
from .scopes import Scope, Store
from .sharing import store_for
from .templates import render_json, render_json_text, render_text

__all__ = ["Execution", "plan_scenario", "run_to_completion", "INTERRUPTED"]

INTERRUPTED = "interrupted"


def plan_scenario(file: ScenarioFileNode, feature: FeatureNode | None, scenario: ScenarioNode) -> tuple[PlannedStep, ...]:
    """Every step a scenario runs, in order: the file background, the feature's background, then
    its own steps, with `include:` expanded in place (recursively)."""
    planned: list[PlannedStep] = []

    def add(steps: Sequence[Step], phase: str, via: tuple[IncludeStep, ...]) -> None:
        for step in steps:
            if isinstance(step, IncludeStep):
                fragment = file.fragment(step.fragment)
                # check has refused cycles and anything past MAX_INCLUDE_DEPTH / MAX_PLANNED_STEPS
                # (builder.py), so the expansion is complete: nothing is ever dropped here.
                if fragment is not None:
                    add(fragment.steps, phase, via + (step,))
            else:
                planned.append(PlannedStep(step, phase, via, len(planned)))

    if file.background is not None:
        add(file.background.steps, BACKGROUND_FILE, ())
    if feature is not None and feature.background is not None:
        add(feature.background.steps, BACKGROUND_FEATURE, ())
    add(scenario.steps, SCENARIO, ())
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
    elif isinstance(step, AssertStep):
        assertion = step.assertion
        if isinstance(assertion, (JsonPathAssertion, HeaderAssertion, BodyAssertion)) and assertion.expected is not None:
            refs += [(r.name, step.text) for r in assertion.expected.refs]
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

    def params(self, feature: FeatureNode | None, scenario: ScenarioNode | None = None
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
            scenarios: list[tuple[ScenarioNode, FeatureNode | None]] = []
            for item in self.file.items:
                if isinstance(item, FeatureNode):
                    scenarios += [(s, item) for s in item.scenarios]
                else:
                    scenarios.append((item, None))
            self._explainer = Explainer(self.file, scenarios, self.plan, lambda f: self.params(f)[0], self.records)
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


class Execution:
    """One run over one or more parsed files. Iterate `events()` once; `stop()` ends it early."""

    def __init__(
        self,
        files: Sequence[ScenarioFileNode],
        overrides: RunOverrides | None = None,
        run_variables: Mapping[str, Any] | None = None,
        tags: Iterable[str] | None = None,
        descriptions: DescriptionSet | None = None,
    ):
        self.files = tuple(files)
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
        self._refs: dict[int, tuple[tuple[str, str], ...]] = {}
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
                        yield item
                for i in range(3):
                    totals[i] += run.counts[i]
            yield RunFinished(totals[0], totals[1], totals[2], time.perf_counter() - started, self._stopped)
        finally:
            self._stopped = True
            await self._client.aclose()

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

    def _prepare(self, run: _FileRun, feature: FeatureNode | None, scenario: ScenarioNode,
                 own: list[Store] | None) -> Iterator[Event | _Job]:
        """Tag selection and the scenario's store (created lazily: right before its first scenario)."""
        record = run.records[id(scenario)] = ScenarioRecord()
        if not self.selected(scenario, feature):
            record.selected = False
            record.status = SKIPPED
            run.counts[2] += 1
            wanted = ", ".join("@" + t for t in sorted(self.tags or ()))
            yield ScenarioFinished(run.file, scenario, feature, SKIPPED, f"not selected by tags (wanted {wanted})",
                                   0.0, Scope(None, self.run_variables).snapshot())
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
            job.feature, job.scenario, job.params, job.problem, job.store, job.record)
        started = time.perf_counter()
        plan = run.plan(feature, scenario)
        scope = Scope(store, self.run_variables)
        self._client.reset_cookies()
        yield ScenarioStarted(run.file, scenario, feature, params, store.ref if store is not None else None,
                              scope.carried(), plan, scope.snapshot())
        feature_name = feature.name if feature is not None else None
        response: ResponseReceived | None = None
        failure: tuple[int, str] | None = None  # (line, message) of the failing step
        skip_message = None
        if problem is not None:
            failure = (scenario.line, problem)
            skip_message = problem
        base_url = params.base_url
        timeout = params.timeout
        timeout_setting = params[TIMEOUT].winner
        max_size_setting = params[MAX_RESPONSE_SIZE].winner
        max_size = max_size_setting.value
        refs_cache = self._refs
        operation = None  # the operation of the last request: what `then: schema` checks against

        for planned in plan:
            step = planned.step
            if failure is not None or self._stopped:
                if failure is None:
                    failure = (step.line, INTERRUPTED)
                    skip_message = INTERRUPTED
                yield StepFinished(step, planned.phase, planned.via, planned.index, SKIPPED,
                                   skip_message, 0.0, scope.snapshot())
                continue
            yield StepStarted(step, planned.phase, planned.via, planned.index, scope.snapshot())
            step_started = time.perf_counter()
            message: str | None = None
            try:
                refs = refs_cache.get(id(step))
                if refs is None:
                    refs = refs_cache[id(step)] = _step_refs(step)
                visible = scope.visible()
                missing = undefined_refs(refs, visible) if refs else None
                if missing is not None:
                    store_ref = store.ref if store is not None else None
                    message = run.explainer().explain(missing[0], missing[1], visible, scenario, feature,
                                                      planned.index, store_ref)
                elif isinstance(step, RequestStep):
                    operation = None
                    try:
                        if step.operation is not None:
                            request, body_text, url, operation, placements = self._build_call(
                                step, visible, params, run.file.path)
                        else:
                            request, body_text, url = self._build_request(step, visible, base_url, params.headers)
                            placements = ()
                    except RequestFailed as failed:
                        message = str(failed)
                    else:
                        encoding = request.headers.encoding
                        yield RequestSent(step, request.method, str(request.url),
                                          tuple((k.decode(encoding), v.decode(encoding)) for k, v in request.headers.raw),
                                          body_text, operation.label if operation is not None else None, placements,
                                          operation.summary if operation is not None else "")
                        result = None
                        retried: list[Event] = []  # RequestRetried, emitted once the attempts are over
                        if self._stopped:
                            message = INTERRUPTED
                        else:
                            # stop() may cancel this task only while it waits here, never while
                            # the consumer holds an event (it would cancel the consumer's own code).
                            self._inflight = asyncio.current_task()
                            try:
                                result = await self._send(step, params, request, retried, timeout,
                                                          timeout_setting, url, max_size, max_size_setting)
                            except RequestFailed as failed:
                                message = str(failed)
                            except asyncio.CancelledError:
                                if not self._cancelled_by_stop:
                                    raise
                                self._cancelled_by_stop = False
                                task = asyncio.current_task()
                                if task is not None and hasattr(task, "uncancel"):
                                    task.uncancel()
                                message = INTERRUPTED
                            finally:
                                self._inflight = None
                        for event in retried:
                            yield event
                        if result is not None:
                            data, json_error = parse_json(result.content)
                            response = ResponseReceived(step, result.status, result.reason, result.headers,
                                                        result.body, result.elapsed, data, json_error)
                            yield response
                            if operation is not None and params[AUTO_ENABLED].value:
                                message = _auto_assertions(operation, response, params)
                elif isinstance(step, AssertStep):
                    if response is None:
                        message = "no response to check: then needs a when: step before it"
                    elif isinstance(step.assertion, SchemaAssertion):
                        problems: list[str] = []
                        message = _schema_message(operation, response, params[STRICT_SCHEMA].value, problems)
                        # `actual`: each offending value as `$.path: expected …, got …`, for the TUI.
                        yield AssertionChecked(step, message is None, "the response schema of "
                                               + (operation.label if operation else "an operation"),
                                               problems or None, message)
                    else:
                        outcome = check(step.assertion, response, visible)
                        actual = None if outcome.actual is MISSING else outcome.actual
                        yield AssertionChecked(step, outcome.passed, outcome.expected, actual, outcome.message)
                        if not outcome.passed:
                            message = outcome.message or "assertion failed"
                elif isinstance(step, ExtractStep):
                    value, message = self._extract(step, response)
                    if message is None:
                        origin = Origin(step.location, scenario.name, feature_name, planned.phase)
                        for event in scope.extract(step, step.name, value, origin, planned.phase == SCENARIO):
                            yield event
                        record.extracted.add(step.name)
                else:
                    message = f"cannot run a {type(step).__name__} step"
            except Exception as error:  # a fault in a step is that step's failure, never the run's
                message = f"internal error: {_one_line(error)}"
            status = PASSED if message is None else FAILED
            yield StepFinished(step, planned.phase, planned.via, planned.index, status, message,
                               time.perf_counter() - step_started, scope.snapshot())
            if message is not None:
                failure = (step.line, message)
                skip_message = INTERRUPTED if message == INTERRUPTED else f"skipped after the failure at line {step.line}"

        if failure is None:
            status, summary = PASSED, None
            run.counts[0] += 1
        else:
            status = FAILED
            summary = failure[1] if failure[1] == INTERRUPTED else f"line {failure[0]}: {failure[1]}"
            record.failed_line, record.failed_message = failure
            run.counts[1] += 1
        record.status = status
        yield ScenarioFinished(run.file, scenario, feature, status, summary, time.perf_counter() - started,
                               scope.snapshot())

    # ------------------------------------------------------------ steps

    def _send(self, step: RequestStep, params: EffectiveParameters, request, retried: list[Event], *send_args):
        """The one send of a request step: tried again by retry.* (each retry appended to
        `retried` as a RequestRetried), following redirects when followRedirects says so."""
        options = self._send_options.get(id(params))
        if options is None or options[0] is not params:
            options = self._send_options[id(params)] = (
                params, RetryPolicy.from_parameters(params), params[FOLLOW_REDIRECTS].value)
        _, policy, follow = options
        if policy is None:
            return self._client.send(request, *send_args, follow_redirects=follow)
        return send_with_retry(self._client, request, policy,
                               lambda attempt, reason, delay: retried.append(RequestRetried(step, attempt, reason, delay)),
                               *send_args, follow_redirects=follow)

    @staticmethod
    def _with_defaults(headers: list[tuple[str, str]], defaults: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
        """`header.NAME` parameters first, unless the step sends a header of that name itself."""
        own = {name.lower() for name, _ in headers}
        return [(n, v) for n, v in defaults if n.lower() not in own] + headers

    def _build_request(self, step: RequestStep, visible: Mapping[str, Any], base_url: str | None,
                       default_headers: Sequence[tuple[str, str]] = ()):
        url = join_url(base_url, render_text(step.url, visible).strip())
        headers = [(h.name, render_text(h.value, visible)) for h in step.headers]
        if default_headers:
            headers = self._with_defaults(headers, default_headers)
        query = [(q.name, render_text(q.value, visible)) for q in step.query]
        body_text: str | None = None
        content: bytes | None = None
        if step.body is not None:
            body_text = render_json_text(step.body, visible) if step.body.refs else step.body.text
            content = body_text.encode("utf-8")
            if not any(name.lower() == "content-type" for name, _ in headers):
                headers.append(("Content-Type", "application/json"))
        for name, value in headers:
            if "\n" in value or "\r" in value:
                raise RequestFailed(f"header {name} has a line break in its value: {value!r}")
        return self._client.build(step.method, url, headers, query, content), body_text, url

    def _build_call(self, step: RequestStep, visible: Mapping[str, Any], params: EffectiveParameters,
                    scenario_file: str):
        """An operation call: the operation from the descriptions in force, each child placed where
        it declares it, the body over its schema's defaults. RequestFailed, one line, otherwise."""
        from .descriptions import SHARED, aliases, operation_base_url
        from .openapi import OpenApiError
        from .request_builder import build_request

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
        elif step.body_file is not None:
            body["body"] = _read_body_file(render_text(step.body_file, visible), scenario_file)
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


def _schema_message(operation, response: ResponseReceived, strict: bool,
                    problems: list[str] | None = None) -> str | None:
    """Why the response does not match its operation's schema; None when it does. The
    offending values, one `$.path: why` each, are appended to `problems` when given."""
    if operation is None:
        return ("then: schema needs an operation call before it (when: ^operationId): "
                "a request written as METHOD path has no schema to check against")
    from .schema_check import check_response

    parsed = {"parsed": response.json} if response.is_json else {}  # saves a second parse
    result = check_response(operation, response.status, response.header("Content-Type"), response.body,
                            strict=strict, **parsed)
    if problems is not None:
        problems.extend(str(p) for p in result.problems)
    return None if result.ok else result.message


def _auto_assertions(operation, response: ResponseReceived, params: EffectiveParameters) -> str | None:
    """autoAssertions.enabled: what the description says of every response of an operation call."""
    from .schema_check import check_content_type, check_status

    problems = []
    if params[AUTO_STATUS].value:
        problems.append(check_status(operation, response.status))
    if params[AUTO_CONTENT_TYPE].value:
        problems.append(check_content_type(operation, response.status, response.header("Content-Type"),
                                           has_body=bool(response.body)))
    if params[AUTO_SCHEMA].value and not any(problems):
        problems.append(_schema_message(operation, response, params[STRICT_SCHEMA].value))
    found = [p for p in problems if p]
    return "autoAssertions: " + "; ".join(found) if found else None


def _read_body_file(name: str, scenario_file: str) -> bytes:
    """`bodyFile: "x.json"` (or `classpath:x.json`, BerryCrush's form): the scenario file's folder,
    then each parent folder, is searched for it."""
    from pathlib import Path

    from .input_files import InputFileError, read_regular_file
    from .parser import MAX_FILE_BYTES

    relative = name[len("classpath:"):].lstrip("/") if name.startswith("classpath:") else name
    folder = Path(scenario_file).resolve().parent
    candidates = [Path(relative)] if Path(relative).is_absolute() else [d / relative for d in (folder, *folder.parents)]
    for candidate in candidates:
        if candidate.exists():
            try:
                return read_regular_file(candidate, MAX_FILE_BYTES)
            except InputFileError as problem:
                raise RequestFailed(f"bodyFile {candidate} {problem}") from None
    raise RequestFailed(f"bodyFile '{name}' not found in {folder} or a folder above it")


# ---------------------------------------------------------------- synchronous helper


def run_to_completion(
    files: Sequence[ScenarioFileNode | str],
    overrides: RunOverrides | None = None,
    run_variables: Mapping[str, Any] | None = None,
    tags: Iterable[str] | None = None,
) -> list[Event]:
    """Run to the end and return every event (for tests and simple callers). Paths are loaded."""
    from .parser import load_file

    nodes = [f if isinstance(f, ScenarioFileNode) else load_file(f) for f in files]

    events: list[Event] = []

    async def collect() -> None:  # returns None: asyncio would repr a returned list on completion
        async for event in Execution(nodes, overrides, run_variables, tags).events():
            events.append(event)

    asyncio.run(collect())
    return events
