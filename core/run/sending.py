"""Sending a run's requests: building a `when: METHOD path` request from its templates, and
sending any request under its scenario's timeout and size cap, retried by `retry.*`, following
redirects as `followRedirects` says, over the run's one HTTP client; `stop()`, from any thread,
ends the request in flight (or the wait between attempts) at once.

An operation call is built by operation_calls.py; both end here to be sent.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from scenario_core.language.nodes.steps import RequestStep, Step
from scenario_core.language.parameter_keys import FOLLOW_REDIRECTS, MAX_RESPONSE_SIZE, TIMEOUT
from scenario_core.language.templates import render_json_text, render_text
from scenario_core.parameters.resolution import EffectiveParameters
from scenario_core.run.body_forms import build_body
from scenario_core.run.events import INTERRUPTED, RequestRetried, ResponseReceived
from scenario_core.run.http.body import parse_json
from scenario_core.run.http.client import HttpClient, HttpResult, Interrupted, RequestFailed, join_url
from scenario_core.run.http.errors import InvalidHeader
from scenario_core.run.http.request import OutgoingRequest, check_headers, listed_secrets
from scenario_core.run.retry import RetriesExhausted, RetryPolicy, send_with_retry
from scenario_core.run.state import ScenarioState


def with_defaults(headers: list[tuple[str, str]], defaults: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """`header.NAME` parameters first, unless the step sends a header of that name itself."""
    own = {name.lower() for name, _ in headers}
    return [(n, v) for n, v in defaults if n.lower() not in own] + headers


def refuse_line_breaks(headers: Sequence[tuple[str, str]]) -> None:
    """A header name or value that cannot be sent (run.http.request.check_headers, the one check
    every request passes when built): RequestFailed, one line naming the header."""
    if not headers:
        return
    try:
        check_headers(headers)
    except InvalidHeader as error:
        raise RequestFailed(str(error)) from None


class Sender:
    """Sends over the run's HTTP client, with what sending needs across requests: the retry
    options of each set of effective parameters."""

    def __init__(self, client: HttpClient) -> None:
        self.client = client
        self._options: dict[int, tuple[EffectiveParameters, RetryPolicy | None, bool]] = {}

    @property
    def stopped(self) -> bool:
        return self.client.interrupted

    def stop(self) -> None:
        """Refuse further requests and end the one in flight at once (from any thread)."""
        self.client.interrupt()

    def build(
        self,
        step: RequestStep,
        visible: Mapping[str, object],
        params: EffectiveParameters,
        scenario_file: str = "",
        resource_roots: Sequence[str] = (),
    ) -> tuple[OutgoingRequest, str | None, str]:
        """A `when: METHOD path` request: (the request, its body as text, its URL). A triple-quoted body
        goes as `text/plain; charset=utf-8` unless `headers:` gives a Content-Type."""
        assert step.method is not None and step.url is not None  # the path form has both
        url = join_url(params.base_url, render_text(step.url, visible).strip())
        headers = [(h.name, render_text(h.value, visible)) for h in step.headers]
        if params.headers:
            headers = with_defaults(headers, params.headers)
        query = [(q.name, render_text(q.value, visible)) for q in step.query]
        body_text: str | None = None
        content: bytes | None = None
        if step.body is not None:
            body_text = render_json_text(step.body, visible) if step.body.refs else step.body.text
        elif step.body_raw is not None:
            body_text = render_text(step.body_raw, visible)
        default_type = "application/json" if step.body is not None else "text/plain; charset=utf-8"
        if body_text is None:  # form:, multipart: or bodyFile: (run.body_forms)
            built = build_body(step, visible, scenario_file, resource_roots)
            if built is not None:
                body_text, content, default_type = built.text, built.content, built.content_type
        if body_text is not None:
            content = body_text.encode("utf-8") if content is None else content
            if not any(name.lower() == "content-type" for name, _ in headers):
                headers.append(("Content-Type", default_type))
        refuse_line_breaks(headers)
        return self.client.build(step.method, url, headers, query, content), body_text, url

    def transmit(
        self,
        request: OutgoingRequest,
        url: str,
        state: ScenarioState,
        step: RequestStep | None = None,
        retried: list[RequestRetried] | None = None,
    ) -> HttpResult | None:
        """Send one request under the scenario's timeout and size cap, following redirects as
        followRedirects says: its result, or None with the failure in `state.message`. With
        `step` and `retried`, retry.* applies and each retry is appended to `retried` (auto tests
        are not retried); when the attempts run out on a 503, both the failure and that last
        response."""
        try:
            return self._send(step, state.params, request, retried, url)
        except RetriesExhausted as failed:  # the step fails; its last response is still what came back
            state.message = str(failed)
            return failed.last
        except RequestFailed as failed:
            state.message = str(failed)
        except Interrupted:
            state.message = INTERRUPTED
            state.interrupted = True
        return None

    def _send(
        self,
        step: RequestStep | None,
        params: EffectiveParameters,
        request: OutgoingRequest,
        retried: list[RequestRetried] | None,
        url: str,
    ) -> HttpResult:
        """The one send of a request: tried again by retry.* when `retried` is given (each retry
        appended to it as a RequestRetried), following redirects when followRedirects says so."""
        options = self._options.get(id(params))
        if options is None or options[0] is not params:
            options = self._options[id(params)] = (
                params,
                RetryPolicy.from_parameters(params),
                params[FOLLOW_REDIRECTS].value,
            )
        _, policy, follow = options
        if follow:  # a redirect to another origin drops the headers `secrets:` names (run.http.request)
            request.listed_secrets = listed_secrets(params)
        max_size = params[MAX_RESPONSE_SIZE].winner
        timeout, timeout_setting = params.timeout, params[TIMEOUT].winner
        if policy is None or retried is None or step is None:
            return self.client.send(
                request, timeout, timeout_setting, url, max_size.value, max_size, follow_redirects=follow
            )
        return send_with_retry(
            self.client,
            request,
            policy,
            lambda attempt, reason, delay: retried.append(
                RequestRetried(step=step, attempt=attempt, reason=reason, delay_s=delay)
            ),
            timeout,
            timeout_setting,
            url,
            max_size.value,
            max_size,
            follow_redirects=follow,
        )


def received(step: Step, result: HttpResult) -> ResponseReceived:
    """The event for a response that came: its JSON parsed once, here, for every check after it."""
    data, json_error = parse_json(result.content)
    return ResponseReceived(
        step=step,
        status=result.status,
        reason=result.reason,
        headers=result.headers,
        body=result.body,
        elapsed=result.elapsed,
        json=data,
        json_error=json_error,
    )
