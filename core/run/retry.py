"""Trying a request again (the `retry.*` parameters, docs/parameters.md).

What is retried: a response of 429, 502, 503 or 504, and a request that got no response because
its connection failed (refused, reset, closed) or it timed out -- each attempt under the whole
`timeout`. Not retried: anything that would fail the same way again (DNS, TLS, a bad URL, a body
over maxResponseSize, a broken HTTP response). When the attempts run out the step fails with one
line naming them; a response that is still 503 is shown with that failure, not kept as if it were
the answer.

The wait before retry n (n = 0 for the first): `fixed` delay, `linear` delay×(n+1), `exponential`
delay×2ⁿ, varied by ±20 % with `retry.jitter`, never over maxDelay.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from scenario_core.language import parameter_keys as params
from scenario_core.parameters.resolution import EffectiveValue, Setting
from scenario_core.run.http.client import HttpClient, HttpResult
from scenario_core.run.http.errors import RequestFailed
from scenario_core.run.http.request import OutgoingRequest
from scenario_core.support.plural import counted
from scenario_core.support.records import dataclass

RETRY_STATUSES = frozenset({429, 502, 503, 504})
JITTER = 0.2


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    retries: int  # attempts after the first
    delay: float  # seconds
    max_delay: float
    backoff: str  # fixed, linear or exponential
    jitter: bool
    setting: Setting | None = None  # where retry.maxAttempts was set, for the give-up message

    @classmethod
    def from_parameters(cls, parameters: Mapping[str, EffectiveValue]) -> "RetryPolicy | None":
        """The policy of these effective parameters; None when retry.maxAttempts is 0 (off)."""
        attempts = parameters[params.RETRY_MAX_ATTEMPTS]
        if not attempts.value:
            return None
        return cls(
            attempts.value,
            parameters[params.RETRY_DELAY].value / 1000,
            parameters[params.RETRY_MAX_DELAY].value / 1000,
            parameters[params.RETRY_BACKOFF].value,
            parameters[params.RETRY_JITTER].value,
            attempts.winner,
        )

    def wait(self, retry: int, rand: Callable[[], float] | None = None) -> float:
        """Seconds to wait before retry number `retry` (0: the first retry); `rand` in [0, 1)
        for the jitter (random.random, imported only by a run that retries: ~0.7 ms)."""
        if self.backoff == "fixed":
            base = self.delay
        elif self.backoff == "linear":
            base = self.delay * (retry + 1)
        else:
            base = self.delay * 2 ** min(retry, 62)  # past 2^62 the cap applies anyway
        if self.jitter:
            if rand is None:
                import random

                rand = random.random
            base *= 1 + JITTER * (2 * rand() - 1)
        return max(0.0, min(base, self.max_delay))

    def describe(self) -> str:
        where = f", {self.setting.describe(before_line=' ')}" if self.setting is not None else ""
        return f"retry.maxAttempts: {self.retries}{where}"


class RetriesExhausted(RequestFailed):
    """The attempts ran out on a status worth retrying (`503 … after 3 attempts`): the step fails,
    and `last`, the last response, is shown with the failure (never checked as the answer)."""

    def __init__(self, message: str, last: HttpResult):
        super().__init__(message)
        self.last = last


def send_with_retry(
    client: HttpClient,
    request: OutgoingRequest,
    policy: RetryPolicy | None,
    on_retry: Callable[[int, str, float], None],
    *send_args: Any,
    sleep: Callable[[float], object] | None = None,
    **send_options: Any,
) -> HttpResult:
    """`client.send(request, *send_args, **send_options)`, tried again by `policy`;
    `on_retry(attempt, reason, delay_s)` is called before each wait (attempt 1 = the first
    retry; `sleep` waits between attempts, the client's own pause by default, which a stop
    ends at once: Interrupted). Raises
    RequestFailed once the attempts are used up."""
    if policy is None:
        return client.send(request, *send_args, **send_options)
    retry = 0
    while True:
        try:
            result = client.send(request, *send_args, **send_options)
        except RequestFailed as failed:
            if not failed.retryable:
                raise
            if retry >= policy.retries:
                raise RequestFailed(
                    f"{failed}; gave up after {counted(retry + 1, 'attempt')} ({policy.describe()})"
                ) from None
            reason = str(failed)
        else:
            if result.status not in RETRY_STATUSES:
                return result
            reason = f"{result.status} {result.reason}".rstrip()
            if retry >= policy.retries:
                raise RetriesExhausted(f"{reason} after {counted(retry + 1, 'attempt')} ({policy.describe()})", result)
        delay = policy.wait(retry)
        on_retry(retry + 1, reason, delay)
        (sleep or client.pause)(delay)
        retry += 1
