"""Running one step of a scenario, yielding its events; its failure, if any, is left in the
scenario's state. First the step's `{{NAME}}` references (an undefined one fails the step with
the reason it is out of reach, explain.py), then by kind: a request (either form; sending.py,
operation_calls.py, auto_tests.py), `then:` / `assert` and `extract:` (step_checks.py), `if` /
`else` (a condition per branch, the chosen branch's directives), `fail`, `webhook:`, an include's
arguments, and a custom step (custom_step_runs.py).

Per step the work is looking references up and rendering templates that have them; the
references of each step are listed once per run. Three kinds skip that listing: an `extract:`
and a `then: status` read no variable, and a `when: METHOD path` request is built first, its
references listed only when building fails (an undefined or dotted name, a bad URL). The step
then runs the checked way from the start, as does each later run of it, so it fails exactly as
it would have: building sends nothing and changes nothing. Listing a request's references cost
about a tenth of the engine's time a request (docs/performance.md, "Round eight"). What only
some steps need (auto tests, raw calls, custom steps) is imported by the first step that does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Mapping

from scenario_core.language.fragment_files import unusable_fragment
from scenario_core.language.nodes.assertions import StatusAssertion
from scenario_core.language.nodes.steps import (
    AssertStep,
    ConditionalStep,
    DescribedStep,
    ExtractStep,
    FailStep,
    IncludeStep,
    RequestStep,
    Step,
    WebhookStep,
)
from scenario_core.language.parameter_keys import AUTO_ENABLED
from scenario_core.language.templates import child_name, render_json, render_text
from scenario_core.run.assertions import assertion_refs
from scenario_core.run.events import (
    SCENARIO,
    BranchTaken,
    Event,
    Origin,
    RequestRetried,
    RequestSent,
    WebhookCallsDropped,
)
from scenario_core.run.explain import undefined_refs
from scenario_core.run.http.client import RequestFailed
from scenario_core.run.lookup import Provider, Variables
from scenario_core.run.no_response import no_response_expected
from scenario_core.run.operation_calls import OperationCalls, auto_assertions
from scenario_core.run.plan import StepRefs, step_refs
from scenario_core.run.sending import Sender, received
from scenario_core.run.state import ScenarioState, one_line
from scenario_core.run.step_checks import assertion_checked, check_in_run, checks_without_response, extracted

if TYPE_CHECKING:
    from scenario_core.custom_steps.registry import Registry
    from scenario_core.openapi.operations import Operation
    from scenario_core.run.http.request import OutgoingRequest
    from scenario_core.run.operation_calls import Placements
    from scenario_core.run.scopes import Saved
    from scenario_core.run.webhooks import Webhooks

    # A request as built: (the request, its body as text, its URL, the operation it calls, where
    # each of its children went).
    _Built = tuple[OutgoingRequest, str | None, str, Operation | None, Placements]


class StepRunner:
    """Runs the steps of one run: what they share across scenarios (the sender, the operation
    calls, the Python steps, the webhooks started so far, each step's references)."""

    def __init__(self, sender: Sender, calls: OperationCalls, registry: Registry | None):
        self.sender = sender
        self.calls = calls
        self.registry = registry  # custom steps and assertions, if any
        self.webhooks: Webhooks | None = None  # once a webhook: step starts one
        self._refs: dict[int, tuple[StepRefs, bool]] = {}  # a step's refs, and whether any is dotted
        self._checked_first: set[int] = set()  # requests (by id) whose references are looked at first

    # ------------------------------------------------------------ references

    def references(self, step: Step, state: ScenarioState) -> tuple[Mapping[str, object], tuple[str, str] | None]:
        """What the step reads its references from, and the first of them that is undefined."""
        if isinstance(step, ExtractStep) or (isinstance(step, AssertStep) and type(step.assertion) is StatusAssertion):
            return self.lookup(state, False), None  # it reads no variable: none to list
        found = self._refs.get(id(step))
        if found is None:
            refs = step_refs(step)
            found = self._refs[id(step)] = (refs, any("." in name for name, _ in refs) if refs else False)
        refs, dotted = found
        if not refs:
            return self.lookup(state, False), None
        visible = self.lookup(state, dotted)
        return visible, undefined_refs(refs, visible)

    def lookup(self, state: ScenarioState, dotted: bool) -> Mapping[str, object]:
        """What references read: the scope, an auto test's test.* / multiTest.* names, and (for a
        dotted name) env.X, param.KEY and a webhook's hooks."""
        visible: Mapping[str, object] = state.scope.visible()
        if state.overlay:
            visible = {**visible, **state.overlay}
        if dotted:
            providers: tuple[Provider, ...] = (self.webhooks.lookup,) if self.webhooks is not None else ()
            visible = Variables(visible, state.params, providers)
        return visible

    @staticmethod
    def explain(state: ScenarioState, missing: tuple[str, str], visible: Mapping[str, object]) -> str:
        store_ref = state.store.ref if state.store is not None else None
        return state.run.explainer().explain(
            missing[0], missing[1], visible, state.scenario, state.feature, state.planned.index, store_ref
        )

    # ------------------------------------------------------------ one step

    def execute(self, step: Step, state: ScenarioState) -> Iterator[Event]:
        """Run one step, yielding its events; its failure, if any, is left in `state.message`."""
        if isinstance(step, RequestStep) and id(step) not in self._checked_first:
            built = self._built_unchecked(step, state)
            if built is not None:
                yield from self._send(step, state, *built)
                return
        visible, missing = self.references(step, state)
        if missing is not None and not isinstance(step, (ConditionalStep, DescribedStep)):
            state.message = self.explain(state, missing, visible)
            return
        if isinstance(step, RequestStep):
            yield from self._request(step, state, visible)
        elif isinstance(step, AssertStep):
            checked = assertion_checked(step, state, visible, self.registry)
            if checked is not None:
                yield checked
        elif isinstance(step, ExtractStep):
            value, message = extracted(step, state.response)
            if message is not None:
                state.message = message
                return
            planned = state.planned
            origin = Origin(step.location, state.scenario.name, state.feature_name, planned.phase)
            yield from state.scope.extract(step, step.name, value, origin, planned.phase == SCENARIO)
            state.record.extracted.add(step.name)
        elif isinstance(step, ConditionalStep):
            yield from self._conditional(step, state)
        elif isinstance(step, FailStep):
            state.message = render_text(step.message, visible)
        elif isinstance(step, WebhookStep):
            self._start_webhook(step, state)
        elif isinstance(step, DescribedStep):  # no directives: a custom step
            if missing is not None:
                state.message = self.explain(state, missing, visible)
                return
            from scenario_core.run.custom_step_runs import run_custom_step

            # A Python step reads param.KEY, env.X and hooks whatever its text references.
            yield from run_custom_step(self.registry, step, state, self.lookup(state, True))
        else:
            state.message = f"cannot run a {type(step).__name__} step"

    def include(self, step: IncludeStep, state: ScenarioState, bound: dict[int, Saved]) -> list[Event]:
        """Bind an include's arguments (what they replaced goes to `bound`): the events. An include
        of a fragment whose .fragment file does not parse fails (`check` reports it too)."""
        fragment = state.run.file.fragment(step.fragment)
        if fragment is not None and fragment.problem is not None:
            state.message = unusable_fragment(step.fragment, fragment.problem)
            return []
        visible, missing = self.references(step, state)
        if missing is not None:
            state.message = self.explain(state, missing, visible)
            return []
        values = {child_name(a.name, a.name_template, visible): render_json(a.value, visible) for a in step.arguments}
        origin = Origin(step.location, state.scenario.name, state.feature_name, state.planned.phase)
        events, saved = state.scope.bind(step, values, origin)
        bound[id(step)] = saved
        return events

    def _conditional(self, step: ConditionalStep, state: ScenarioState) -> Iterator[Event]:
        """The first branch whose condition holds runs its steps; each condition tried is shown."""
        tried: list[tuple[str, bool, str | None]] = []
        chosen = None
        for index, branch in enumerate(step.branches):
            if branch.condition is None:
                chosen = index
                break
            refs = assertion_refs(branch.condition)
            visible = self.lookup(state, any("." in r.name for r in refs))
            missing = next((r.name for r in refs if r.name not in visible), None)
            if missing is not None:
                state.message = self.explain(state, (missing, f"if {branch.text}"), visible)
            elif state.response is None and not checks_without_response(branch.condition):
                state.message = f"no response to check: if {branch.text} needs a call before it"
            if state.message is not None:
                yield BranchTaken(step=step, branch=None, tried=tuple(tried))
                return
            outcome = check_in_run(branch.condition, state, visible, self.registry)
            tried.append((branch.text, outcome.passed, outcome.message))
            if outcome.passed:
                chosen = index
                break
        yield BranchTaken(step=step, branch=chosen, tried=tuple(tried))
        if chosen is None:
            return
        for inner in step.branches[chosen].steps:
            yield from self.execute(inner, state)
            if state.message is not None:
                if state.failed_inside is None:  # the innermost step that failed, in nested ifs too
                    state.failed_inside = inner
                return

    # ------------------------------------------------------------ requests

    def _built_unchecked(self, step: RequestStep, state: ScenarioState) -> _Built | None:
        """A `when: METHOD path` request built before its references are looked at, as most
        requests build: (request, body text, URL, no operation, no placements). None when
        anything in the building fails (an undefined or dotted name, a bad URL): the step is then
        run the checked way, references first, exactly as if this had not been tried (building is
        pure: nothing was sent), and so is each later run of it."""
        if step.operation is not None or step.raw is not None:
            self._checked_first.add(id(step))
            return None
        state.operation = None
        try:
            request, body_text, url = self.sender.build(
                step, self.lookup(state, False), state.params, state.run.file.path, self.calls.resource_roots
            )
        except Exception:
            self._checked_first.add(id(step))
            return None
        return request, body_text, url, None, ()

    def _request(self, step: RequestStep, state: ScenarioState, visible: Mapping[str, object]) -> Iterator[Event]:
        params = state.params
        state.operation = operation = None
        try:
            if step.operation is not None:
                request, body_text, url, operation, placements = self.calls.build(
                    step, visible, params, state.run.file.path
                )
            elif step.raw is not None:
                from scenario_core.run.raw_calls import build_raw_call

                request, body_text, url, operation, placements = build_raw_call(
                    self.calls, step, visible, params, state.run.file.path
                )
            else:
                request, body_text, url = self.sender.build(
                    step, visible, params, state.run.file.path, self.calls.resource_roots
                )
                placements = ()
        except RequestFailed as failed:
            state.message = str(failed)
            return
        state.operation = operation
        if step.auto and operation is not None and step.operation is not None:  # the generated requests replace it
            base_url = self.calls.operation(step, params, state.run.file.path, visible)[1]
            from scenario_core.run.auto_tests import run_auto_tests

            yield from run_auto_tests(step, state, visible, operation, base_url, self.sender, self.execute)
            return
        yield from self._send(step, state, request, body_text, url, operation, placements)

    def _send(
        self,
        step: RequestStep,
        state: ScenarioState,
        request: OutgoingRequest,
        body_text: str | None,
        url: str,
        operation: Operation | None,
        placements: Placements,
    ) -> Iterator[Event]:
        yield RequestSent(
            step=step,
            method=request.method,
            url=request.url,
            headers=tuple(request.headers),
            body=body_text,
            operation=operation.label if operation is not None else None,
            placements=placements,
            summary=operation.summary if operation is not None else "",
        )
        retried: list[RequestRetried] = []  # emitted once the attempts are over
        result = self.sender.transmit(request, url, state, step, retried)
        yield from retried
        if result is None and not state.interrupted and no_response_expected(state):
            # `status -1` below checks that no response came (docs/spec/steps.md#expecting-no-response)
            state.message = None
            state.response = None
            return
        if result is not None:
            response = received(step, result)
            if state.message is not None:  # retries ran out: shown with the failure, never checked
                yield response
                return
            state.response = response
            yield response
            if operation is not None and state.params[AUTO_ENABLED].value:
                state.message = auto_assertions(operation, response, state.params)

    # ------------------------------------------------------------ webhooks

    def _start_webhook(self, step: WebhookStep, state: ScenarioState) -> None:
        """Start the webhook's loopback server; it lives until its scope (scenario or feature) ends."""
        from scenario_core.run.webhooks import WebhookError, Webhooks

        if self.webhooks is None:
            self.webhooks = Webhooks()
        owner = id(state.feature) if step.scope == "feature" and state.feature is not None else id(state.scenario)
        try:
            self.webhooks.start(step, owner)
        except (WebhookError, OSError) as error:  # a busy port: one line (anything else is a bug of ours)
            state.message = one_line(error) if not isinstance(error, OSError) else f"webhook {step.name}: {error}"
            return
        if owner == id(state.scenario):
            state.webhooks_started = True

    def stop_webhooks(self, owner: int) -> list[WebhookCallsDropped]:
        """Stop the webhooks a scenario or feature (by id) started: an event for each hook that
        dropped calls past its webhook's cap."""
        if self.webhooks is None:
            return []
        return [
            WebhookCallsDropped(name=name, hook=hook, dropped=dropped, received=received, message=message)
            for name, hook, dropped, received, message in self.webhooks.stop(owner)
        ]

    def close(self) -> None:
        if self.webhooks is not None:
            self.webhooks.close()
