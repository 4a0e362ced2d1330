"""Running an operation call's auto tests (`auto: [invalid security multi]`, docs/spec/berrycrush.md#auto-tests):
the requests openapi/auto_tests.py generates, each sent and followed by the unit's checks (the
`assert` / `if` directives after the call, up to the next call) with `test.*` (or `multiTest.*`)
set; the call fails when the checks fail for any of them. The call's own request is never sent.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Callable, Iterator, Literal, Mapping, TypedDict

from scenario_core.language import parameter_keys as params_keys
from scenario_core.language.nodes.steps import ExtractStep, IncludeStep, RequestStep, Step
from scenario_core.language.templates import child_name, render_json, render_text
from scenario_core.parameters.resolution import UnresolvedTemplate, render_template
from scenario_core.run.events import AutoTestRan, Event, Origin, PlannedStep, RequestSent, ResponseReceived
from scenario_core.run.http.client import join_url
from scenario_core.run.no_response import no_response_expected
from scenario_core.run.sending import Sender, received, with_defaults
from scenario_core.run.state import ScenarioState

if TYPE_CHECKING:
    from scenario_core.openapi.operations import Operation
    from scenario_core.openapi.request_builder import RequestPlan
    from scenario_core.support.json_types import JsonValue

    class _Tally(TypedDict):
        """A multi mode's repeats: how many, whether all passed their checks, their time (ms)."""

        count: int
        passed: bool
        duration: int

    class _GeneratedBody(TypedDict, total=False):
        """The call's body as openapi.auto_tests.generate and build_request take it."""

        structured_body: JsonValue
        json_body: JsonValue


# Runs one step of the scenario (the step runner's `execute`): how a unit's checks run.
Execute = Callable[[Step, ScenarioState], Iterator[Event]]

# One generated test: (kind, test type, description, its variables, the requests it sends).
_Run = tuple[str, str, str, "dict[str, JsonValue]", list["RequestPlan"]]


def run_auto_tests(
    step: RequestStep,
    state: ScenarioState,
    visible: Mapping[str, object],
    operation: Operation,
    base_url: str | None,
    sender: Sender,
    execute: Execute,
) -> Iterator[Event]:
    """Each generated test's requests, responses, checks and AutoTestRan; the call's failure, if
    any of them failed, is left in `state.message`."""
    from scenario_core.openapi.auto_tests import MULTI

    checks = _unit_checks(state)
    state.consumed.update(p.index for p in checks)
    try:
        runs = _generated(step, state, visible, operation)
    except UnresolvedTemplate as problem:  # a repeat count read from {{env.X}} / {{param.K}}
        state.message = str(problem)
        return
    failed: list[str] = []
    after: dict[str, _Tally] = {}  # multi mode -> its repeats' count, outcome and time
    for number, (kind, test_type, description, variables, plans) in enumerate(runs, 1):
        requests = []
        for plan in plans:
            url = join_url(base_url, plan.path)
            request = sender.client.build(plan.method, url, list(plan.headers), [], plan.body)
            requests.append((request, url))
            yield RequestSent(
                step=step,
                method=request.method,
                url=request.url,
                headers=tuple(request.headers),
                body=plan.body.decode("utf-8", "replace") if plan.body else None,
                operation=operation.label,
                placements=(),
                summary=description,
            )
        started = time.perf_counter()
        results = [sender.transmit(r, u, state) for r, u in requests]  # one after the other
        if state.interrupted:
            return
        message = state.message
        state.message = None
        if message is not None and None in results and no_response_expected(state):
            message = None  # `status -1` among the unit's checks expects no response
        responses: list[ResponseReceived | None] = []
        for result in results:
            if result is None:
                responses.append(None)
                continue
            response = received(step, result)
            responses.append(response)
            yield response
        duration = 0
        if kind == MULTI:
            ok = all(r is not None and r.status < 500 for r in results)
            duration = round((time.perf_counter() - started) * 1000)
            variables = {
                **variables,
                "multiTest.result": "success" if ok else "failure",
                "multiTest.duration": duration,
            }
        state.overlay = variables
        try:
            # Each request's response is checked, each of a concurrent repeat's too, as BerryCrush
            # checks every repeat; the first failure is the test's.
            for checked in responses if message is None else ():
                state.response = checked
                for unit_check in checks:
                    for event in execute(unit_check.step, state):
                        yield event
                    if state.message is not None:
                        message = state.message
                        break
                if message is not None:
                    break
        finally:
            state.overlay = None
            state.message = None
        yield AutoTestRan(
            step=step,
            number=number,
            total=len(runs),
            kind=kind,
            test_type=test_type,
            description=description,
            passed=message is None,
            message=message,
        )
        if message is not None:
            failed.append(f"{test_type} {description}: {message}")
        if kind == MULTI:
            mode = after.setdefault(test_type, {"count": 0, "passed": True, "duration": 0})
            mode["count"] += len(plans)
            mode["passed"] = mode["passed"] and message is None
            mode["duration"] += duration
    for event in _keep_multi_variables(step, state, after):
        yield event
    if failed:
        shown = "; ".join(failed[:3]) + (f"; and {len(failed) - 3} more" if len(failed) > 3 else "")
        state.message = f"auto tests: {len(failed)} of {len(runs)} failed: {shown}"


def _keep_multi_variables(step: RequestStep, state: ScenarioState, after: dict[str, _Tally]) -> list[Event]:
    """After a call's multi repeats, `multiTest.mode`, `.count`, `.result` (true when every repeat
    of the mode passed its checks) and `.duration` (ms) stay set in the scenario for the steps
    after it, the last mode's winning, as BerryCrush keeps them (docs/spec/berrycrush.md#auto-tests).
    They are scenario variables: like include arguments, they never reach a sharing store."""
    events: list[Event] = []
    planned = state.planned
    origin = Origin(step.location, state.scenario.name, state.feature_name, planned.phase)
    for mode, outcome in after.items():
        values = {
            "multiTest.mode": mode,
            "multiTest.count": outcome["count"],
            "multiTest.result": outcome["passed"],
            "multiTest.duration": outcome["duration"],
        }
        for name, value in values.items():
            events += state.scope.extract(step, name, value, origin, write_store=False)
    return events


def _unit_checks(state: ScenarioState) -> list[PlannedStep]:
    """The directives after the call that check each generated request: up to the next request,
    include or extract, within the same described step, phase and fragment."""
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
    return checks


def _generated(
    step: RequestStep, state: ScenarioState, visible: Mapping[str, object], operation: Operation
) -> list[_Run]:
    """The call's generated tests, in order: invalid and security ones, then multi's repeats."""
    from scenario_core.openapi.auto_tests import MULTI, generate, multi_tests

    children = [(child_name(p.name, p.name_template, visible), render_json(p.value, visible)) for p in step.parameters]
    children += [(f"query_{q.name}", render_text(q.value, visible)) for q in step.query]
    headers = [(h.name, render_text(h.value, visible)) for h in step.headers]
    if state.params.headers:  # header.NAME goes with generated requests too
        headers = with_defaults(headers, state.params.headers)
    body: _GeneratedBody = {}
    if step.body is not None:
        key: Literal["structured_body", "json_body"] = "structured_body" if step.body_structured else "json_body"
        body[key] = render_json(step.body, visible)
    runs: list[_Run] = []
    for test in generate(
        operation, [k for k in step.auto if k != MULTI], children, excludes=step.excludes, headers=headers, **body
    ):
        assert test.request is not None  # generate() builds every test's request
        variables = {f"test.{k}": v for k, v in test.variables().items()}
        runs.append((test.type, test.test_type, test.description, variables, [test.request]))
    if MULTI in step.auto:
        from scenario_core.openapi.request_builder import build_request

        base = build_request(operation, children, headers=headers, **body)
        params = state.params
        own = {key: _count(key, value, state) for key, value in step.repeats}  # the call's own win
        sequential = own.get("multiTestSequentialCount", params["multiTestSequentialCount"].value)
        concurrent = own.get("multiTestConcurrentCount", params["multiTestConcurrentCount"].value)
        for multi in multi_tests(sequential, concurrent, step.excludes):
            variables = {f"multiTest.{k}": v for k, v in multi.variables().items()}
            if multi.mode == "SEQUENTIAL":
                for i in range(multi.count):
                    description = f"sequential request {i + 1} of {multi.count}"
                    runs.append(
                        (MULTI, multi.mode, description, _with_test(variables, multi.mode, description), [base])
                    )
            else:
                description = f"{multi.count} concurrent requests"
                runs.append(
                    (
                        MULTI,
                        multi.mode,
                        description,
                        _with_test(variables, multi.mode, description),
                        [base] * multi.count,
                    )
                )
    return runs


def _with_test(variables: Mapping[str, JsonValue], mode: str, description: str) -> dict[str, JsonValue]:
    """A multi repeat's variables with `test.*` set as for the other kinds (test.type `multi`), so
    one if chain serves a call's invalid, security and multi requests alike (docs/spec/berrycrush.md#auto-tests)."""
    from scenario_core.openapi.auto_tests import MULTI

    test: dict[str, JsonValue] = {
        "type": MULTI,
        "testType": mode,
        "field": None,
        "description": description,
        "value": None,
        "location": None,
    }
    return {**variables, **{f"test.{k}": v for k, v in test.items()}}


def _count(key: str, value: int | params_keys.ValueTemplate, state: ScenarioState) -> int:
    """A call's own repeat count (`multiTestSequentialCount: 3`); one written `{{env.N}}` or
    `{{param.K}}` is read now, against the environment and the scenario's parameters, as a
    parameter's value is (docs/spec/parameters.md). Raises UnresolvedTemplate, one line."""
    if not isinstance(value, params_keys.ValueTemplate):
        return value
    counted = render_template(key, value, os.environ, state.params.get)
    assert isinstance(counted, int)  # the key's spec parses a whole number
    return counted
