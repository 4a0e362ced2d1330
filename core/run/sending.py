"""Sending a run's requests: building a `when: METHOD path` request from its templates, and
sending any request under its scenario's timeout and size cap, retried by `retry.*`, following
redirects as `followRedirects` says, over the run's one HTTP client; `stop()` cancels the
request in flight at once.

An operation call is built by operation_calls.py; both end here to be sent.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from scenario_core.language.nodes.steps import RequestStep
from scenario_core.language.parameter_keys import FOLLOW_REDIRECTS, MAX_RESPONSE_SIZE, TIMEOUT
from scenario_core.language.templates import render_json_text, render_text
from scenario_core.parameters.resolution import EffectiveParameters
from scenario_core.run.body_forms import build_body
from scenario_core.run.events import INTERRUPTED, RequestRetried
from scenario_core.run.http.client import HttpClient, HttpResult, RequestFailed, join_url
from scenario_core.run.http.request import listed_secrets
from scenario_core.run.retry import RetriesExhausted, RetryPolicy, send_with_retry
from scenario_core.run.state import ScenarioState

if TYPE_CHECKING:
    import asyncio


class StopRequested(BaseException):
    """Raised into a blocking run's wait (run.blocking) by its Ctrl+C handler, through
    Execution.stop_now: the request in flight ends, interrupted, as a cancelled one does on an
    event loop. A BaseException, so no `except Exception` on the way takes it for a failure."""


def with_defaults(headers: list[tuple[str, str]], defaults: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """`header.NAME` parameters first, unless the step sends a header of that name itself."""
    own = {name.lower() for name, _ in headers}
    return [(n, v) for n, v in defaults if n.lower() not in own] + headers


def refuse_line_breaks(headers: Sequence[tuple[str, str]]) -> None:
    """A header name or value that cannot be sent (run.http.request.check_headers, the one check
    every request passes when built): RequestFailed, one line naming the header."""
    from scenario_core.run.http.errors import InvalidHeader
    from scenario_core.run.http.request import check_headers

    try:
        check_headers(headers)
    except InvalidHeader as error:
        raise RequestFailed(str(error)) from None


class Sender:
    """Sends over the run's HTTP client, with what sending needs across requests: the retry
    options of each set of effective parameters, and the task awaiting a response, for stop()."""

    def __init__(self, client: HttpClient) -> None:
        self.client = client
        self.stopped = False
        self._inflight: asyncio.Task | None = None  # the consuming task, while awaiting a response
        self.waiting = False  # a blocking client's request in flight (its wait may be interrupted)
        self._cancelled_by_stop = False
        self._options: dict[int, tuple[EffectiveParameters, RetryPolicy | None, bool]] = {}

    def stop(self) -> None:
        """Refuse further requests and cancel the one in flight (from the event loop's thread; a
        blocking run's wait is ended by its driver, raising StopRequested into it)."""
        self.stopped = True
        task = self._inflight
        if task is None or self._cancelled_by_stop:
            return
        import asyncio

        if task is not asyncio.current_task():
            self._cancelled_by_stop = True
            task.cancel()

    def build(
        self,
        step: RequestStep,
        visible: Mapping[str, Any],
        params: EffectiveParameters,
        scenario_file: str = "",
        resource_roots: Sequence[str] = (),
    ) -> tuple[Any, str | None, str]:
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

    async def transmit(
        self,
        request: Any,
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
        params = state.params
        try:
            if self.client.blocking:
                # While `waiting`, a stop raises StopRequested into this request: so `waiting`
                # is set before `stopped` is looked at (a stop in between would go unseen), and
                # cleared before any handler below runs (a stop in one would escape it).
                try:
                    self.waiting = True
                    if self.stopped:
                        raise StopRequested()
                    return await self._send(step, params, request, retried, url)
                finally:
                    self.waiting = False
            if self.stopped:
                state.message = INTERRUPTED
                return None
            # stop() may cancel this task only while it waits here, never while the consumer
            # holds an event (it would cancel the consumer's own code).
            self._inflight = _current_task()
            return await self._send(step, params, request, retried, url)
        except RetriesExhausted as failed:  # the step fails; its last response is still what came back
            state.message = str(failed)
            return failed.last
        except RequestFailed as failed:
            state.message = str(failed)
        except StopRequested:
            state.message = INTERRUPTED
        except BaseException as error:
            if not self._cancelled_by_stop or not _is_cancellation(error):
                raise
            self._cancelled_by_stop = False
            task = _current_task()
            if task is not None and hasattr(task, "uncancel"):
                task.uncancel()
            state.message = INTERRUPTED
        finally:
            self._inflight = None
        return None

    def _send(
        self,
        step: RequestStep | None,
        params: EffectiveParameters,
        request: Any,
        retried: list[RequestRetried] | None,
        url: str,
    ):
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
            lambda attempt, reason, delay: retried.append(RequestRetried(step, attempt, reason, delay)),
            timeout,
            timeout_setting,
            url,
            max_size.value,
            max_size,
            follow_redirects=follow,
        )


def _current_task() -> asyncio.Task | None:
    import asyncio

    return asyncio.current_task()


def _is_cancellation(error: BaseException) -> bool:
    asyncio = sys.modules.get("asyncio")  # a run on an event loop: loaded; else nothing was cancelled
    return asyncio is not None and isinstance(error, asyncio.CancelledError)
