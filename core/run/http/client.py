"""Sending one request with an overall deadline, and turning every transport problem into a
one-line message (semantics.md §4). One client per run, so connections are kept alive.

httpx's own timeouts bound each phase (connect, each read, ...), not the request as a whole: a
server trickling one byte per second would never trip a 10 s read timeout. So httpx runs without
timeouts and the whole exchange (connect, send, wait, read the body) runs under one deadline.

The client is a facade over httpx.AsyncClient (requests, cookies, redirects) with this package's
transport under it (run.http.pool); the body is read here, piece by piece, through the decoders
of run.http.body. httpx and the transport are imported when a run first sends something.
"""

from __future__ import annotations

import asyncio
import re
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence, cast

from scenario_core.language.parameter_keys import MAX_RESPONSE_SIZE, SPECS
from scenario_core.parameters.resolution import Setting
from scenario_core.run.http.body import CODINGS, BadEncoding, Inflater, TooLarge, decode_into, decode_text
from scenario_core.run.http.errors import RequestFailed, one_line, transport_message, transport_retryable

if TYPE_CHECKING:
    import httpx

    # (the response, its headers as text, its decoded body)
    _Received = tuple[httpx.Response, tuple[tuple[str, str], ...], bytes]

USER_AGENT = "scenario-tui"
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


if sys.version_info >= (3, 11):
    _deadline = asyncio.timeout
else:  # pragma: no cover - 3.10 has no asyncio.timeout; wait_for costs a task per request
    _deadline = None


def _no_sniffio() -> None:
    """httpcore tries `import sniffio` on every lock use; absent, each failed import searches
    sys.path again (~100 µs a request). Record the absence once, as the import system would."""
    import importlib.util

    if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
        # None is the import system's "cannot be imported" mark; typeshed types the values as modules only.
        sys.modules["sniffio"] = None  # type: ignore[assignment]


class HttpClient:
    """One httpx.AsyncClient for a run (created on first use, always closed by `aclose`)."""

    def __init__(self) -> None:
        self._client: httpx.AsyncClient | None = None

    def _get(self) -> httpx.AsyncClient:
        if self._client is None:
            import httpx  # lazily: a run that sends nothing never pays for it

            from scenario_core.run.http.pool import Http11Transport

            _no_sniffio()
            transport = Http11Transport(lambda: httpx.AsyncHTTPTransport())
            self._client = httpx.AsyncClient(
                timeout=None,
                follow_redirects=False,
                # an httpx transport by duck typing (see pool.Http11Transport)
                transport=cast("httpx.AsyncBaseTransport", transport),
                headers={
                    "User-Agent": USER_AGENT,
                    # only what body.Inflater decodes under the cap (body.CODINGS)
                    "Accept-Encoding": "gzip, deflate",
                },
            )
        return self._client

    def reset_cookies(self) -> None:
        """Cookies live for one scenario: isolated scenarios must not share a session through them."""
        if self._client is not None and self._client.cookies:
            self._client.cookies.clear()

    def build(
        self,
        method: str,
        url: str,
        headers: Sequence[tuple[str, str]],
        query: Sequence[tuple[str, str]],
        body: bytes | None,
    ) -> httpx.Request:
        """An httpx.Request, or RequestFailed for a URL that cannot be sent."""
        try:
            client = self._get()
            target: str | httpx.URL = url
            if query:  # merged into a query the path already has (httpx's params= would replace it)
                from httpx import URL

                target = URL(url).copy_merge_params(list(query))
            return client.build_request(method, target, headers=list(headers), content=body)
        except Exception as error:  # invalid URLs raise several kinds of error
            raise RequestFailed(transport_message(error, url)) from None

    async def send(
        self,
        request: httpx.Request,
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
        response is the result. Raises RequestFailed (one-line message) or CancelledError (stop)."""
        started = time.perf_counter()
        exchange = self._follow(request, max_size) if follow_redirects else self._exchange(request, max_size)
        try:
            if _deadline is not None:
                async with _deadline(timeout):
                    response, headers, content = await exchange
            else:  # pragma: no cover
                response, headers, content = await asyncio.wait_for(exchange, timeout)
        except (TimeoutError, asyncio.TimeoutError):
            where = f" ({describe_timeout(timeout_setting)})" if timeout_setting is not None else ""
            raise RequestFailed(f"timed out after {_seconds(timeout)} s{where}", retryable=True) from None
        except asyncio.CancelledError:
            raise
        except TooLarge as error:
            where = (
                f" ({MAX_RESPONSE_SIZE}: {max_size_setting.describe(before_line=', ')})"
                if max_size_setting is not None
                else ""
            )
            raise RequestFailed(f"{error} is over the limit of {max_size} bytes{where}") from None
        except (BadEncoding, _TooManyRedirects) as error:
            raise RequestFailed(str(error)) from None
        except Exception as error:
            raise RequestFailed(transport_message(error, url or str(request.url)), transport_retryable(error)) from None
        elapsed = time.perf_counter() - started
        return HttpResult(
            response.status_code, response.reason_phrase, headers, decode_text(content, headers), content, elapsed
        )

    async def _follow(self, request: httpx.Request, max_size: int) -> _Received:
        """_exchange, then each redirect it answers with, as a browser follows them: 303 (and
        301/302 after a POST) become a GET without a body, 307/308 keep method and body; the
        Authorization header is not sent to another origin."""
        response, headers, content = await self._exchange(request, max_size)
        for hop in range(MAX_REDIRECTS + 1):
            location = next((v for k, v in headers if k.lower() == "location"), None)
            if response.status_code not in REDIRECTS or location is None:
                break
            if hop == MAX_REDIRECTS:
                raise _TooManyRedirects(
                    f"stopped after {MAX_REDIRECTS} redirects (followRedirects: true); "
                    f"the last went to {one_line(location, 120)}"
                )
            request = self._redirect(request, response.status_code, location)
            response, headers, content = await self._exchange(request, max_size)
        return response, headers, content

    def _redirect(self, request: httpx.Request, status: int, location: str) -> httpx.Request:
        url = request.url.join(location.strip())
        method = request.method
        if (status == 303 and method != "HEAD") or (status in (301, 302) and method == "POST"):
            method = "GET"
        headers = [
            (k, v) for k, v in request.headers.multi_items() if k.lower() not in ("host", "cookie", "content-length")
        ]  # recomputed for the new request
        content: bytes | None = request.content
        if method != request.method:
            content = None
            headers = [(k, v) for k, v in headers if k.lower() not in ("content-type", "transfer-encoding")]
        if (url.scheme, url.host, url.port) != (request.url.scheme, request.url.host, request.url.port):
            headers = [(k, v) for k, v in headers if k.lower() != "authorization"]
        return self._get().build_request(method, url, headers=headers, content=content or None)

    async def _exchange(self, request: httpx.Request, max_size: int) -> _Received:
        """(response, its headers as text, its decoded body). The body is read piece by piece, so
        the deadline can end it between pieces and a body over the cap stops being read (and its
        connection is dropped)."""
        response = await self._get().send(request, stream=True)
        try:
            encoding = response.headers.encoding
            headers = tuple((k.decode(encoding), v.decode(encoding)) for k, v in response.headers.raw)
            length: str | None = None
            codings: list[str] = []
            for name, value in headers:  # (one scan: httpx's Headers.get costs microseconds a call)
                lowered = name.lower()
                if lowered == "content-length":
                    length = value.strip()
                elif lowered == "content-encoding":
                    codings += [c.strip().lower() for c in value.split(",")]
            decoders = [Inflater(c) for c in reversed(codings) if c in CODINGS]  # the last applied first
            label = ", ".join(c for c in codings if c in CODINGS)
            # (A HEAD, 204 or 304 response states the length of a body it does not send.)
            if (
                length is not None
                and length.isdigit()
                and int(length) > max_size
                and request.method != "HEAD"
                and response.status_code not in (204, 304)
            ):
                raise TooLarge(f"the response body ({length} bytes, its Content-Length)")
            pieces: list[bytes] = []
            received = size = 0
            async for piece in response.aiter_raw():
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
            await response.aclose()
        return response, headers, pieces[0] if len(pieces) == 1 else b"".join(pieces)

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()


class _TooManyRedirects(Exception):
    """A chain of redirects longer than MAX_REDIRECTS."""


def _seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
