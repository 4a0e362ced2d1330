"""Sending one request with an overall deadline, and turning every transport problem into a
one-line message (semantics.md §4). One client per run, so connections are kept alive.

httpx's own timeouts bound each phase (connect, each read, ...), not the request as a whole: a
server trickling one byte per second would never trip a 10 s read timeout. So httpx runs without
timeouts and the whole exchange (connect, send, wait, read the body) runs under one deadline.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import ssl
import sys
import time
from dataclasses import dataclass
from typing import Any, Sequence

from scenario_core.language.parameter_keys import MAX_RESPONSE_SIZE, SPECS
from scenario_core.parameters.resolution import Setting

USER_AGENT = "scenario-tui"
DEFAULT_MAX_SIZE: int = SPECS[MAX_RESPONSE_SIZE].default


class RequestFailed(Exception):
    """A request that produced no response; the message is one line, ready for the user.
    `retryable`: a timeout or a connection that failed (refused, reset, closed): what
    `retry.maxAttempts` tries again (berrycrush.md §2.3)."""

    def __init__(self, message: str, retryable: bool = False):
        super().__init__(message)
        self.retryable = retryable


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


_DIGITS = re.compile(r"value has (\d+) digits")


def parse_json(content: bytes) -> tuple[Any, str | None]:
    """(value, None) when the body is JSON, else (None, why not). Never raises: a server's body
    may be anything, including JSON that Python declines to read (see below)."""
    if not content.strip():
        return None, "the response body is empty"
    try:
        return json.loads(content), None
    except RecursionError:  # the C decoder gives up at the interpreter's recursion limit
        return None, f"the response JSON is nested too deeply to read (over {sys.getrecursionlimit()} levels)"
    except ValueError as error:
        if not isinstance(error, json.JSONDecodeError):
            # Integers over sys.get_int_max_str_digits() (4,300 digits) are refused because
            # converting them takes quadratic time; a server must not be able to stall a run so.
            found = _DIGITS.search(str(error))
            if "integer string conversion" in str(error):
                digits = f" of {found.group(1)} digits" if found else ""
                limit = getattr(sys, "get_int_max_str_digits", lambda: 4300)()
                return None, f"the response JSON has an integer{digits}, over Python's limit of {limit} digits"
            return None, f"the response body is not JSON ({_one_line(error)})"
        return None, f"the response body is not JSON ({error.msg} at line {error.lineno} column {error.colno})"
    except Exception as error:  # whatever else a decoder may raise: a failed step, never a crash
        return None, f"the response body is not JSON ({type(error).__name__}: {_one_line(error)})"


def _one_line(text: str, width: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _causes(error: BaseException):
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        yield error
        if isinstance(error, BaseExceptionGroup) if sys.version_info >= (3, 11) else False:  # noqa: F821 (3.11+)
            for inner in error.exceptions:
                yield from _causes(inner)
        error = error.__cause__ or error.__context__


def transport_retryable(error: BaseException) -> bool:
    """A connection that could not be made or broke (not DNS, TLS, a bad URL or a protocol
    violation: trying again would fail the same way)."""
    import httpx

    for cause in _causes(error):
        if isinstance(cause, (socket.gaierror, ssl.SSLError)):
            return False
        if isinstance(cause, (ConnectionRefusedError, ConnectionResetError, BrokenPipeError)):
            return True
    return isinstance(error, (httpx.ConnectError, httpx.ReadError, httpx.WriteError))


def transport_message(error: BaseException, url: str) -> str:
    """A one-line description of why a request got no response."""
    from urllib.parse import urlsplit

    import httpx

    try:
        host = urlsplit(url).netloc or url
    except ValueError:
        host = url
    for cause in _causes(error):
        if isinstance(cause, ConnectionRefusedError):
            return f"cannot connect to {host}: connection refused"
        if isinstance(cause, socket.gaierror):
            return f"cannot resolve host of {url}: {cause.strerror or cause}"
        if isinstance(cause, ssl.SSLError):
            detail = getattr(cause, "verify_message", None) or getattr(cause, "reason", None) or cause
            return f"TLS error talking to {host}: {_one_line(detail)}"
        if isinstance(cause, ConnectionResetError):
            return f"connection to {host} was reset"
    if isinstance(error, httpx.UnsupportedProtocol):
        return f"invalid URL '{url}': use an absolute http:// or https:// URL"
    if isinstance(error, (httpx.InvalidURL, httpx.LocalProtocolError)) or isinstance(error, ValueError):
        return f"invalid URL '{url}': {_one_line(error) or type(error).__name__}"
    if isinstance(error, httpx.RemoteProtocolError):
        return f"{host} broke the HTTP protocol: {_one_line(error)}"
    if isinstance(error, httpx.ReadError):
        return f"connection to {host} was closed while reading: {_one_line(error) or 'read error'}"
    if isinstance(error, httpx.WriteError):
        return f"connection to {host} was closed while sending: {_one_line(error) or 'write error'}"
    if isinstance(error, httpx.ConnectError):
        return f"cannot connect to {host}: {_one_line(error) or 'connection failed'}"
    if isinstance(error, OverflowError):
        return f"invalid URL '{url}': port out of range"
    return f"request to {url} failed: {type(error).__name__}: {_one_line(error)}"


if sys.version_info >= (3, 11):
    _deadline = asyncio.timeout
else:  # pragma: no cover - 3.10 has no asyncio.timeout; wait_for costs a task per request
    _deadline = None


class _Connection:
    __slots__ = ("reader", "writer", "used")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer, self.used = reader, writer, False

    def usable(self) -> bool:
        # Bytes that arrived while the connection sat idle answer no request of ours: reading
        # them as the next response would poison it. (StreamReader has no public peek.)
        return not self.reader.at_eof() and not self.writer.is_closing() and not getattr(self.reader, "_buffer", None)

    def close(self) -> None:
        try:
            self.writer.close()
        except Exception:  # closing a broken transport must not mask the real problem
            pass


class _StaleConnection(Exception):
    """A kept-alive connection the server had closed before answering: retry on a new one."""


class _Stop(Exception):
    """Raised from a parser callback to stop parsing (trailing bytes, or the end of a HEAD head)."""


_READ_SIZE = 1 << 16
_HEAD_LIMIT = 1 << 20  # largest status line + header block accepted


class _Message:
    """httptools callbacks for one response: its head, body pieces as they arrive, and whether it
    is complete. A second response starting on the same bytes (trailing junk after a complete
    one) stops the parse: such a connection is never reused."""

    __slots__ = (
        "parser",
        "head_only",
        "status",
        "reason",
        "headers",
        "head_done",
        "body",
        "done",
        "trailing",
        "head_size",
    )

    def __init__(self, head_only: bool):
        import httptools

        self.parser = httptools.HttpResponseParser(self)
        # Control characters in a header value break RFC 9110, yet the user debugging that server
        # must see them (shown as escapes), not lose the response. Framing stays strict.
        self.parser.set_dangerous_leniencies(lenient_headers=True)
        self.head_only = head_only  # a HEAD request: the head is the whole response
        self.status = 0
        self.reason = b""
        self.headers: list[tuple[bytes, bytes]] = []
        self.head_done = self.done = self.trailing = False
        self.body: list[bytes] = []
        self.head_size = 0

    def on_message_begin(self) -> None:
        if self.done:
            self.trailing = True
            raise _Stop()

    def on_status(self, reason: bytes) -> None:
        self.reason += reason

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name, value))

    def on_headers_complete(self) -> None:
        self.status = self.parser.get_status_code()
        if 100 <= self.status < 200 and self.status != 101:
            return  # an interim response: the real one follows
        self.head_done = True
        if self.head_only:
            self.done = True
            raise _Stop()

    def on_body(self, data: bytes) -> None:
        self.body.append(data)

    def on_message_complete(self) -> None:
        if self.head_done:
            self.done = True
        else:  # the end of an interim 1xx response
            self.reason, self.headers = b"", []

    def feed(self, data: bytes, request) -> None:
        import httptools

        if not self.head_done:
            self.head_size += len(data)
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserCallbackError as error:
            if not isinstance(error.__context__, _Stop):
                raise
            if self.head_only and not data.endswith(b"\r\n\r\n"):
                self.trailing = True  # bytes after the head of a HEAD response: do not reuse
        except httptools.HttpParserUpgrade:
            self.head_done = self.done = True
        except httptools.HttpParserError as error:
            raise _protocol_error(str(error), data, request) from None
        if not self.head_done and self.head_size > _HEAD_LIMIT:
            import httpx

            raise httpx.RemoteProtocolError("response headers too large", request=request)

    def ends_at_eof(self) -> bool:
        """No Content-Length and not chunked: the body is delimited by the end of the connection."""
        for name, value in self.headers:
            lowered = name.lower()
            if lowered == b"content-length" or (lowered == b"transfer-encoding" and b"chunked" in value.lower()):
                return False
        return True

    def keep_alive(self, version: str) -> bool:
        keep = version == "1.1"
        for name, value in self.headers:
            if name.lower() == b"connection":
                tokens = value.lower()
                if b"close" in tokens:
                    return False
                if b"keep-alive" in tokens:
                    keep = True
        return keep and self.status != 101 and not self.trailing


_LLHTTP_CONTENT_LENGTH = re.compile(rb"(?im)^content-length[ \t]*:[ \t]*([^\r\n]*)")


def _protocol_error(problem: str, data: bytes, request):
    """llhttp's message, made to name the problem: the offending values or the first line."""
    import httpx

    if "Content-Length" in problem:
        values = ", ".join(repr(v.strip().decode("latin-1")[:30]) for v in _LLHTTP_CONTENT_LENGTH.findall(data))
        if "Duplicate" in problem:
            problem = f"conflicting Content-Length headers: {values}"
        elif "Transfer-Encoding" in problem:
            problem = "both Content-Length and Transfer-Encoding: chunked"
        elif values:
            problem = f"invalid Content-Length {values}"
    elif problem.startswith("Expected HTTP/"):
        first = data.split(b"\n", 1)[0][:60]
        problem = f"not an HTTP response: {first!r}"
    elif "chunk size" in problem.lower():
        problem = f"invalid chunk size ({problem[0].lower() + problem[1:]})"
    else:
        problem = problem[0].lower() + problem[1:] if problem else "malformed response"
    return httpx.RemoteProtocolError(problem, request=request)


def _body_stream():
    """The class of a response body still being read; an httpx.AsyncByteStream (httpx checks),
    so it is made on first use: httpx is imported only when a run sends something."""
    global _Body
    if _Body is not None:
        return _Body
    import httpx

    class _Body(httpx.AsyncByteStream):
        """The rest of a response body, read as the client consumes it. The connection goes back
        to the pool only once the body was read to its end; a body abandoned half-way (over the
        size cap, past the deadline) closes it: its next bytes would be taken for the next response."""

        __slots__ = ("transport", "connection", "key", "message", "request", "keep", "finished")

        def __init__(
            self, transport: Http11Transport, connection: _Connection, key, message: _Message, request, keep: bool
        ):
            self.transport, self.connection, self.key = transport, connection, key
            self.message, self.request, self.keep = message, request, keep
            self.finished = False

        async def __aiter__(self):
            message, reader = self.message, self.connection.reader
            try:
                while True:
                    if message.body:
                        pieces, message.body = message.body, []
                        for piece in pieces:
                            yield piece
                    if message.done:
                        break
                    data = await reader.read(_READ_SIZE)
                    if not data:
                        if not message.ends_at_eof():
                            raise httpx.RemoteProtocolError(
                                "the server closed the connection in the middle of the body", request=self.request
                            )
                        self.keep = False
                        break
                    message.feed(data, self.request)
            except ConnectionResetError as error:
                raise httpx.ReadError(f"connection reset: {error}", request=self.request) from error
            self.finished = True
            self.transport._release(self.connection, self.key, self.keep and not message.trailing)

        async def aclose(self) -> None:
            if not self.finished:
                self.finished = True
                self.connection.close()

    return _Body


_Body = None


class Http11Transport:
    """A lean HTTP/1.1 keep-alive transport for plain http:// on asyncio streams; responses are
    framed by httptools (llhttp, uvicorn's C parser). h11, pure Python, cost about 0.1 ms more
    a request in bench/run_chain.py.

    httpcore's asyncio path (anyio streams, pool locks, sniffio lookups) costs several hundred
    microseconds per request; on a loopback API that dominates a run. This transport keeps
    httpx.AsyncClient's request/response model (it is an httpx transport by duck typing, so
    httpx is imported only when a run sends something) and sends https:// through httpx's own
    transport, created on first use."""

    def __init__(self, fallback_factory):
        self._idle: dict[tuple[str, int], list[_Connection]] = {}
        self._fallback_factory = fallback_factory
        self._fallback = None

    async def handle_async_request(self, request):
        import httpx

        url = request.url
        if url.scheme != "http":
            if self._fallback is None:
                self._fallback = self._fallback_factory()
            return await self._fallback.handle_async_request(request)
        host, port = url.host, url.port or 80
        content = request.content  # the executor always sends in-memory bodies
        target = url.raw_path or b"/"
        lines = [request.method.encode("ascii"), b" ", target, b" HTTP/1.1\r\n"]
        for name, value in request.headers.raw:
            lines += [name, b": ", value, b"\r\n"]
        lines.append(b"\r\n")
        payload = b"".join(lines) + content
        key = (host, port)
        idle = self._idle.get(key)
        while idle:
            connection = idle.pop()
            if connection.usable():
                try:
                    return await self._exchange(connection, key, request, payload)
                except _StaleConnection:
                    continue
            connection.close()
        try:
            reader, writer = await asyncio.open_connection(host, port, limit=_READ_SIZE)
        except OSError as error:
            raise httpx.ConnectError(_connect_problem(error), request=request) from error
        try:
            return await self._exchange(_Connection(reader, writer), key, request, payload)
        except _StaleConnection as stale:
            raise httpx.RemoteProtocolError(
                "the server closed the connection without a response", request=request
            ) from stale.__cause__

    async def _exchange(self, connection: _Connection, key, request, payload: bytes):
        import httpx

        reused = connection.used
        connection.used = True
        reader, writer = connection.reader, connection.writer
        message = _Message(request.method == "HEAD")
        got_bytes = False
        try:
            writer.write(payload)
            await writer.drain()
            while not message.head_done:
                data = await reader.read(_READ_SIZE)
                if not data:
                    if not got_bytes and reused:
                        raise _StaleConnection()
                    raise httpx.RemoteProtocolError(
                        "the server closed the connection without a complete response", request=request
                    )
                got_bytes = True
                message.feed(data, request)
        except (ConnectionResetError, BrokenPipeError) as error:
            connection.close()
            if reused and not got_bytes:
                raise _StaleConnection() from error
            raise httpx.ReadError(f"connection reset: {error}", request=request) from error
        except BaseException:
            connection.close()  # cancelled or broken mid-exchange: its state is unknown
            raise
        version = message.parser.get_http_version()
        keep = message.keep_alive(version)
        extensions = {"http_version": b"HTTP/" + version.encode(), "reason_phrase": message.reason}
        if message.done:  # the usual case: the whole response came with its head
            self._release(connection, key, keep)
            body = message.body[0] if len(message.body) == 1 else b"".join(message.body)
            stream = httpx.ByteStream(body)
        else:
            stream = _body_stream()(self, connection, key, message, request, keep)
        return httpx.Response(
            message.status, headers=message.headers, stream=stream, extensions=extensions, request=request
        )

    def _release(self, connection: _Connection, key, keep: bool) -> None:
        if keep:
            self._idle.setdefault(key, []).append(connection)
        else:
            connection.close()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        for connections in self._idle.values():
            for connection in connections:
                connection.close()
        self._idle.clear()
        if self._fallback is not None:
            await self._fallback.aclose()


def _connect_problem(error: OSError) -> str:
    text = str(error)
    if isinstance(error, ConnectionRefusedError) or "refused" in text.lower() or "Connect call failed" in text:
        return "connection refused"
    if isinstance(error, socket.gaierror):
        return error.strerror or text
    return text or type(error).__name__


def _no_sniffio() -> None:
    """httpcore tries `import sniffio` on every lock use; absent, each failed import searches
    sys.path again (~100 µs a request). Record the absence once, as the import system would."""
    import importlib.util

    if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
        sys.modules["sniffio"] = None  # type: ignore[assignment]


class HttpClient:
    """One httpx.AsyncClient for a run (created on first use, always closed by `aclose`)."""

    def __init__(self) -> None:
        self._client: Any = None

    def _get(self):
        if self._client is None:
            import httpx  # lazily: a run that sends nothing never pays for it

            _no_sniffio()
            transport = Http11Transport(lambda: httpx.AsyncHTTPTransport())
            self._client = httpx.AsyncClient(
                timeout=None,
                follow_redirects=False,
                transport=transport,
                headers={
                    "User-Agent": USER_AGENT,
                    # only what _Inflater decodes under the cap
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
    ):
        """An httpx.Request, or RequestFailed for a URL that cannot be sent."""
        try:
            client = self._get()
            if query:  # merged into a query the path already has (httpx's params= would replace it)
                from httpx import URL

                url = URL(url).copy_merge_params(list(query))
            return client.build_request(method, url, headers=list(headers), content=body)
        except Exception as error:  # invalid URLs raise several kinds of error
            raise RequestFailed(transport_message(error, url)) from None

    async def send(
        self,
        request,
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
        except _TooLarge as error:
            where = (
                f" ({MAX_RESPONSE_SIZE}: {max_size_setting.describe(before_line=', ')})"
                if max_size_setting is not None
                else ""
            )
            raise RequestFailed(f"{error} is over the limit of {max_size} bytes{where}") from None
        except (_BadEncoding, _TooManyRedirects) as error:
            raise RequestFailed(str(error)) from None
        except Exception as error:
            raise RequestFailed(transport_message(error, url or str(request.url)), transport_retryable(error)) from None
        elapsed = time.perf_counter() - started
        return HttpResult(
            response.status_code, response.reason_phrase, headers, _decode(content, headers), content, elapsed
        )

    async def _follow(self, request, max_size: int):
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
                    f"the last went to {_one_line(location, 120)}"
                )
            request = self._redirect(request, response.status_code, location)
            response, headers, content = await self._exchange(request, max_size)
        return response, headers, content

    def _redirect(self, request, status: int, location: str):
        url = request.url.join(location.strip())
        method = request.method
        if (status == 303 and method != "HEAD") or (status in (301, 302) and method == "POST"):
            method = "GET"
        headers = [
            (k, v) for k, v in request.headers.multi_items() if k.lower() not in ("host", "cookie", "content-length")
        ]  # recomputed for the new request
        content = request.content
        if method != request.method:
            content = None
            headers = [(k, v) for k, v in headers if k.lower() not in ("content-type", "transfer-encoding")]
        if (url.scheme, url.host, url.port) != (request.url.scheme, request.url.host, request.url.port):
            headers = [(k, v) for k, v in headers if k.lower() != "authorization"]
        return self._get().build_request(method, url, headers=headers, content=content or None)

    async def _exchange(self, request, max_size: int):
        """(response, its headers as text, its decoded body). The body is read piece by piece, so
        the deadline can end it between pieces and a body over the cap stops being read (and its
        connection is dropped)."""
        response = await self._get().send(request, stream=True)
        try:
            encoding = response.headers.encoding
            headers = tuple((k.decode(encoding), v.decode(encoding)) for k, v in response.headers.raw)
            length, codings = None, []
            for name, value in headers:  # (one scan: httpx's Headers.get costs microseconds a call)
                lowered = name.lower()
                if lowered == "content-length":
                    length = value.strip()
                elif lowered == "content-encoding":
                    codings += [c.strip().lower() for c in value.split(",")]
            decoders = [_Inflater(c) for c in reversed(codings) if c in _CODINGS]  # the last applied first
            label = ", ".join(c for c in codings if c in _CODINGS)
            # (A HEAD, 204 or 304 response states the length of a body it does not send.)
            if (
                length is not None
                and length.isdigit()
                and int(length) > max_size
                and request.method != "HEAD"
                and response.status_code not in (204, 304)
            ):
                raise _TooLarge(f"the response body ({length} bytes, its Content-Length)")
            pieces: list[bytes] = []
            received = size = 0
            async for piece in response.aiter_raw():
                received += len(piece)
                if received > max_size:
                    raise _TooLarge("the response body")
                if not decoders:
                    size += len(piece)
                    pieces.append(piece)
                    continue
                size = _decode_into(pieces, size, [piece], decoders, max_size, label)
            for index, decoder in enumerate(decoders):  # what the decoders still hold
                size = _decode_into(
                    pieces, size, decoder.flush(max_size - size), decoders[index + 1 :], max_size, label
                )
        finally:
            await response.aclose()
        return response, headers, pieces[0] if len(pieces) == 1 else b"".join(pieces)

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()


_CHARSET = re.compile(r"charset\s*=\s*[\"']?([\w.:-]+)", re.IGNORECASE)


def _decode(content: bytes, headers: tuple[tuple[str, str], ...]) -> str:
    """The body as text: the charset the Content-Type names, else UTF-8; undecodable bytes replaced.
    (httpx's `.text` parses the header with the email package on every response: slow.)"""
    charset = "utf-8"
    for name, value in headers:
        if name.lower() == "content-type":
            found = _CHARSET.search(value)
            if found:
                charset = found.group(1)
            break
    try:
        return content.decode(charset, errors="replace")
    except LookupError:  # an unknown charset
        return content.decode("utf-8", errors="replace")


def _decode_into(pieces: list[bytes], size: int, parts: list[bytes], decoders, max_size: int, label: str) -> int:
    """Run parts through the decoders (the last coding applied first), append them to pieces;
    the new decoded size."""
    for decoder in decoders:
        parts = [out for part in parts for out in decoder.inflate(part, max_size - size)]
    for part in parts:
        size += len(part)
        if size > max_size:
            raise _TooLarge(f"the response body, decoded ({label}),")
        pieces.append(part)
    return size


class _TooManyRedirects(Exception):
    """A chain of redirects longer than MAX_REDIRECTS."""


class _TooLarge(Exception):
    """A body over maxResponseSize; the message names what was over."""


class _BadEncoding(Exception):
    """A body its Content-Encoding cannot decode."""


_CODINGS = ("gzip", "x-gzip", "deflate")


class _Inflater:
    """One content coding, decoded with a bound on its output. zlib's max_length stops a small
    gzip bomb from inflating past the cap in one call, and steps of at most 1 MiB keep zlib's
    own output buffer (joined at the end of each call) from doubling a large piece in memory."""

    __slots__ = ("coding", "zlib", "started")

    def __init__(self, coding: str):
        import zlib

        self.coding = coding
        self.zlib = zlib.decompressobj(zlib.MAX_WBITS | 16 if coding != "deflate" else zlib.MAX_WBITS)
        self.started = False

    def inflate(self, data: bytes, room: int) -> list[bytes]:
        """The decoded pieces of `data`; _TooLarge past `room` bytes."""
        import zlib

        out = []
        while True:
            step = min(room, _INFLATE_STEP) + 1
            try:
                try:
                    piece = self.zlib.decompress(data, step)
                except zlib.error:
                    if self.coding != "deflate" or self.started:
                        raise
                    self.zlib = zlib.decompressobj(-zlib.MAX_WBITS)  # "deflate" sent raw, without zlib's header
                    piece = self.zlib.decompress(data, step)
            except zlib.error as error:
                raise _BadEncoding(f"the response body is not valid {self.coding}: {_one_line(error)}") from None
            self.started = True
            room -= len(piece)
            if room < 0:
                raise _TooLarge(f"the response body, decoded ({self.coding}),")
            if piece:
                out.append(piece)
            data = self.zlib.unconsumed_tail
            if not data and len(piece) < step:  # all input used, no output held back
                return out

    def flush(self, room: int) -> list[bytes]:
        out = self.zlib.flush()  # empty or small: inflate() drained what its input held
        if len(out) > room:
            raise _TooLarge(f"the response body, decoded ({self.coding}),")
        return [out] if out else []


_INFLATE_STEP = 1 << 20


def _seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
