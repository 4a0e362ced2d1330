"""Sending one request with an overall deadline, and turning every transport problem into a
one-line message (docs/spec/requests.md#transport-problems). One client per run, so connections are kept alive.

Timeouts per phase (connect, each read, ...) do not bound the request as a whole: a server
trickling one byte per second would never trip a 10 s read timeout. So the whole exchange
(connect, send, wait, read the body) runs under one deadline.

Requests are built by run.http.request; plain http:// is sent by this package's own transport
(run.http.pool), https:// and proxied requests by httpx (run.http.via_httpx), imported only then.
Cookies (run.http.cookies) and redirects are handled here, the same for both; the body is read
here, piece by piece, through the decoders of run.http.body.
"""

from __future__ import annotations

import os
import re
import time
from typing import TYPE_CHECKING, Callable, Iterator, Protocol, Sequence

from scenario_core.language.parameter_keys import MAX_RESPONSE_SIZE, SPECS
from scenario_core.parameters.resolution import Setting
from scenario_core.run.http.body import CODINGS, BadEncoding, Inflater, TooLarge, decode_into, decode_text
from scenario_core.run.http.cookies import Cookies
from scenario_core.run.http.errors import Interrupted, RequestFailed, one_line, transport_message, transport_retryable
from scenario_core.run.http.request import USER_AGENT, OutgoingRequest, build_request, redirected
from scenario_core.support.digits import is_ascii_digits
from scenario_core.support.records import dataclass

if TYPE_CHECKING:
    import threading

    from scenario_core.run.http.pool import Http11Pool
    from scenario_core.run.http.via_httpx import HttpxSender

__all__ = ["USER_AGENT", "HttpClient", "HttpResult", "Interrupted", "OutgoingRequest", "RequestFailed", "join_url"]
DEFAULT_MAX_SIZE: int = SPECS[MAX_RESPONSE_SIZE].default

REDIRECTS = frozenset({301, 302, 303, 307, 308})
MAX_REDIRECTS = 10


@dataclass(frozen=True, slots=True)
class HttpResult:
    status: int
    reason: str
    headers: tuple[tuple[str, str], ...]
    body: str
    content: bytes
    elapsed: float  # seconds, from sending to the whole body read


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def join_url(base_url: str | None, path: str) -> str:
    """Absolute URLs (any `scheme://`) as they are; others joined to baseUrl with exactly one
    slash. A scheme other than http(s) is then refused when the request is built."""
    if _SCHEME.match(path):
        return path
    if base_url is None:
        raise RequestFailed("no baseUrl: set baseUrl in parameters:, --base-url, or an OpenAPI description")
    if not path:
        return base_url
    if path[0] in "?#":
        return base_url + path
    return base_url.rstrip("/") + "/" + path.lstrip("/")


def describe_timeout(setting: Setting) -> str:
    """Where a timeout came from, as `timeout: feature 'Slow', line 14`."""
    return f"timeout: {setting.describe(before_line=', ')}"


class Response(Protocol):
    """What a transport answers with (pool.PlainResponse, via_httpx.HttpxResponse): the head,
    and the body as it arrives."""

    status: int
    reason: str
    headers: tuple[tuple[str, str], ...]

    def chunks(self) -> Iterator[bytes]: ...

    def close(self) -> None: ...


class Transport(Protocol):
    """One way to send: our HTTP/1.1 over blocking sockets for plain http:// (pool.Http11Pool),
    httpx.Client for https:// and proxies (via_httpx.HttpxSender). Every wait is bounded by
    `deadline` (time.monotonic() seconds); `interrupt()`, from any thread, ends the request in
    flight at once (its socket shut down) and refuses further ones (Interrupted)."""

    def send(self, request: OutgoingRequest, deadline: float | None) -> Response: ...

    def interrupt(self) -> None: ...

    def close(self) -> None: ...


# (the response, its decoded body)
_Received = tuple[Response, bytes]


_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy")


def proxies_configured() -> bool:
    """Whether the environment names a proxy: then httpx sends (run.http.via_httpx; it also
    reads NO_PROXY). Here, not there: a plain-HTTP run never imports that module."""
    return any(os.environ.get(name) or os.environ.get(name.upper()) for name in _PROXY_VARIABLES)


def not_waiting() -> None:
    """What a send or a pause does before it waits when nobody asked (Execution's `deliver`)."""


class HttpClient:
    """A run's client: connections kept alive across requests, cookies for one scenario, made
    on first use and always closed by `close`. Every wait blocks the thread, bounded by the
    request's deadline; `interrupt()` (from any thread, a signal handler too) ends the request in
    flight, or the pause between attempts, at once: Interrupted."""

    def __init__(self, waiting: Callable[[], None] | None = None) -> None:
        self._waiting = waiting or not_waiting  # called whenever a send or a pause is about to wait
        self._client: Http11Pool | None = None
        self._httpx: HttpxSender | None = None
        self.cookies = Cookies()
        self._proxied: bool | None = None
        self._deadline: float | None = None  # the send in flight's, in time.monotonic() seconds
        self.interrupted = False
        self._pausing: threading.Event | None = None  # made once a pause between attempts waited

    def interrupt(self) -> None:
        """End the request in flight and any pause at once; refuse further requests. The flag
        first, then what waits (each waiter sets itself up before it looks at the flag)."""
        self.interrupted = True
        for transport in (self._client, self._httpx):
            if transport is not None:
                transport.interrupt()
        pausing = self._pausing
        if pausing is not None:
            pausing.set()

    def reset_cookies(self) -> None:
        """Cookies live for one scenario: isolated scenarios must not share a session through them."""
        self.cookies.clear()

    def build(
        self,
        method: str,
        url: str,
        headers: Sequence[tuple[str, str]],
        query: Sequence[tuple[str, str]],
        body: bytes | None,
    ) -> OutgoingRequest:
        """The request as it will be sent (cookies included), or RequestFailed for a URL that cannot be sent."""
        try:
            request = build_request(method, url, headers, query, body)
        except Exception as error:  # invalid URLs raise several kinds of error
            raise RequestFailed(transport_message(error, url)) from None
        self.cookies.add_to(request)
        return request

    def send(
        self,
        request: OutgoingRequest,
        timeout: float,
        timeout_setting: Setting | None = None,
        url: str | None = None,
        max_size: int = DEFAULT_MAX_SIZE,
        max_size_setting: Setting | None = None,
        follow_redirects: bool = False,
    ) -> HttpResult:
        """Send and read the whole body within `timeout` seconds, and at most `max_size` bytes of
        it, as received and as decoded (gzip, deflate). With `follow_redirects`, a 3xx with a
        Location is followed (at most MAX_REDIRECTS), all within the one deadline, and the final
        response is the result. Raises RequestFailed (one-line message) or Interrupted (stop)."""
        started = time.perf_counter()
        request.max_size = max_size  # trailers count with the body (run.http.framing)
        self._deadline = time.monotonic() + timeout
        try:
            try:
                if self.interrupted:
                    raise Interrupted()
                response, content = (self._follow if follow_redirects else self._exchange)(request, max_size)
            except BaseException:
                if self.interrupted:  # whatever the shut-down socket made of it
                    raise Interrupted() from None
                raise
        except TimeoutError:
            where = f" ({describe_timeout(timeout_setting)})" if timeout_setting is not None else ""
            raise RequestFailed(f"timed out after {_seconds(timeout)} s{where}", retryable=True) from None
        except TooLarge as error:
            where = (
                f" ({MAX_RESPONSE_SIZE}: {max_size_setting.describe(before_line=', ')})"
                if max_size_setting is not None
                else ""
            )
            raise RequestFailed(f"{error} is over the limit of {max_size} bytes{where}") from None
        except (BadEncoding, _TooManyRedirects) as error:
            raise RequestFailed(str(error)) from None
        except (RequestFailed, Interrupted):
            raise
        except Exception as error:
            raise RequestFailed(transport_message(error, url or request.url), transport_retryable(error)) from None
        elapsed = time.perf_counter() - started
        headers = response.headers
        return HttpResult(response.status, response.reason, headers, decode_text(content, headers), content, elapsed)

    def pause(self, seconds: float) -> None:
        """Wait between attempts (retry.*); Interrupted at once when interrupt() comes."""
        if self._pausing is None:
            import threading

            self._pausing = threading.Event()
        self._waiting()
        if self.interrupted or self._pausing.wait(seconds):
            raise Interrupted()

    def _follow(self, request: OutgoingRequest, max_size: int) -> _Received:
        """_exchange, then each redirect it answers with (request.redirected says how)."""
        response, content = self._exchange(request, max_size)
        for hop in range(MAX_REDIRECTS + 1):
            location = next((v for k, v in response.headers if k.lower() == "location"), None)
            if response.status not in REDIRECTS or location is None:
                break
            if hop == MAX_REDIRECTS:
                raise _TooManyRedirects(
                    f"stopped after {MAX_REDIRECTS} redirects (followRedirects: true); "
                    f"the last went to {one_line(location, 120)}"
                )
            try:
                request = redirected(request, response.status, location)
            except Exception as error:
                raise RequestFailed(transport_message(error, location)) from None
            self.cookies.add_to(request)
            response, content = self._exchange(request, max_size)
        return response, content

    def _open(self, request: OutgoingRequest) -> Response:
        if self._proxied is None:
            self._proxied = proxies_configured()
        if request.scheme == "http" and not self._proxied:
            if self._client is None:
                from scenario_core.run.http.pool import Http11Pool

                self._client = Http11Pool(self._waiting)
                if self.interrupted:  # interrupt() may have looked before the pool was there
                    self._client.interrupt()
            return self._client.send(request, self._deadline)
        if self._httpx is None:
            from scenario_core.run.http.via_httpx import HttpxSender

            self._httpx = HttpxSender()
            if self.interrupted:
                self._httpx.interrupt()
        self._waiting()  # (httpx writes and reads in one call: before it)
        return self._httpx.send(request, self._deadline)

    def _exchange(self, request: OutgoingRequest, max_size: int) -> _Received:
        """(response, its decoded body). The body is read piece by piece, so the deadline can
        end it between pieces and a body over the cap stops being read (and its connection is
        dropped)."""
        response = self._open(request)
        try:
            headers = response.headers
            length: str | None = None
            codings: list[str] = []
            sets_cookies = False
            for name, value in headers:  # one scan for the three
                lowered = name.lower()
                if lowered == "content-length":
                    length = value.strip()
                elif lowered == "content-encoding":
                    codings += [c.strip().lower() for c in value.split(",")]
                elif lowered == "set-cookie":
                    sets_cookies = True
            if sets_cookies:
                self.cookies.take_from(request, headers)
            decoders: list[Inflater] = []
            label = ""
            if codings:
                decoders = [Inflater(c) for c in reversed(codings) if c in CODINGS]  # the last applied first
                label = ", ".join(c for c in codings if c in CODINGS)
            # (A HEAD, 204 or 304 response states the length of a body it does not send.)
            if (
                length is not None
                and is_ascii_digits(length)
                and (len(length) > 18 or int(length) > max_size)
                and request.method != "HEAD"
                and response.status not in (204, 304)
            ):
                raise TooLarge(f"the response body ({length} bytes, its Content-Length)")
            pieces: list[bytes] = []
            received = size = 0
            for piece in response.chunks():
                received += len(piece)
                if received > max_size:
                    raise TooLarge("the response body")
                if not decoders:
                    size += len(piece)
                    pieces.append(piece)
                    continue
                size = decode_into(pieces, size, [piece], decoders, max_size, label)
            for index, decoder in enumerate(decoders):  # what the decoders still hold
                size = decode_into(pieces, size, decoder.flush(max_size - size), decoders[index + 1 :], max_size, label)
        finally:
            response.close()
        return response, pieces[0] if len(pieces) == 1 else b"".join(pieces)

    def close(self) -> None:
        pool, self._client = self._client, None
        sender, self._httpx = self._httpx, None
        if pool is not None:
            pool.close()
        if sender is not None:
            sender.close()


class _TooManyRedirects(Exception):
    """A chain of redirects longer than MAX_REDIRECTS."""


def _seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
