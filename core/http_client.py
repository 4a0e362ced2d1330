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

from .resolution import Setting


USER_AGENT = "scenario-tui"


class RequestFailed(Exception):
    """A request that produced no response; the message is one line, ready for the user."""


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


def parse_json(content: bytes) -> tuple[Any, str | None]:
    """(value, None) when the body is JSON, else (None, why not)."""
    if not content.strip():
        return None, "the response body is empty"
    try:
        return json.loads(content), None
    except (ValueError, RecursionError) as error:
        detail = error.msg if isinstance(error, json.JSONDecodeError) else str(error).splitlines()[0]
        if isinstance(error, json.JSONDecodeError):
            detail += f" at line {error.lineno} column {error.colno}"
        return None, f"the response body is not JSON ({detail})"


def _one_line(text: str, width: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _causes(error: BaseException):
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        yield error
        if isinstance(error, BaseExceptionGroup) if sys.version_info >= (3, 11) else False:
            for inner in error.exceptions:
                yield from _causes(inner)
        error = error.__cause__ or error.__context__


def transport_message(error: BaseException, url: str) -> str:
    """A one-line description of why a request got no response."""
    import httpx

    from urllib.parse import urlsplit

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
        return not self.reader.at_eof() and not self.writer.is_closing()

    def close(self) -> None:
        try:
            self.writer.close()
        except Exception:  # closing a broken transport must not mask the real problem
            pass


class _StaleConnection(Exception):
    """A kept-alive connection the server had closed before answering: retry on a new one."""


_NO_BODY = (204, 304)
_READ_LIMIT = 1 << 20  # longest header block / chunk-size line accepted


class Http11Transport:
    """A lean HTTP/1.1 keep-alive transport for plain http:// on asyncio streams.

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
            reader, writer = await asyncio.open_connection(host, port, limit=_READ_LIMIT)
        except OSError as error:
            raise httpx.ConnectError(_connect_problem(error), request=request) from error
        try:
            return await self._exchange(_Connection(reader, writer), key, request, payload)
        except _StaleConnection as stale:
            raise httpx.RemoteProtocolError("the server closed the connection without a response",
                                            request=request) from stale.__cause__

    async def _exchange(self, connection: _Connection, key, request, payload: bytes):
        import httpx

        reused = connection.used
        connection.used = True
        reader, writer = connection.reader, connection.writer
        got_bytes = False
        try:
            writer.write(payload)
            await writer.drain()
            while True:  # skip interim 1xx responses
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except asyncio.IncompleteReadError as error:
                    if not error.partial and not got_bytes and reused:
                        raise _StaleConnection() from error
                    raise httpx.RemoteProtocolError(
                        "the server closed the connection without a complete response", request=request) from None
                except asyncio.LimitOverrunError:
                    raise httpx.RemoteProtocolError("response headers too large", request=request) from None
                got_bytes = True
                status, reason, headers, version = _parse_head(head, request)
                if not 100 <= status < 200 or status == 101:
                    break
            body, keep = await _read_body(reader, request, status, headers, version)
        except (ConnectionResetError, BrokenPipeError) as error:
            connection.close()
            if reused and not got_bytes:
                raise _StaleConnection() from error
            raise httpx.ReadError(f"connection reset: {error}", request=request) from error
        except BaseException:
            connection.close()  # cancelled or broken mid-exchange: its state is unknown
            raise
        if keep and status != 101:
            self._idle.setdefault(key, []).append(connection)
        else:
            connection.close()
        return httpx.Response(status, headers=headers, stream=httpx.ByteStream(body),
                              extensions={"http_version": version, "reason_phrase": reason}, request=request)

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


def _parse_head(head: bytes, request) -> tuple[int, bytes, list[tuple[bytes, bytes]], bytes]:
    import httpx

    lines = head[:-4].split(b"\r\n")
    parts = lines[0].split(b" ", 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/") or not parts[1].isdigit() or len(parts[1]) != 3:
        raise httpx.RemoteProtocolError(f"not an HTTP response: {lines[0][:60]!r}", request=request)
    headers: list[tuple[bytes, bytes]] = []
    for line in lines[1:]:
        name, sep, value = line.partition(b":")
        if not sep or not name or name != name.strip():
            raise httpx.RemoteProtocolError(f"malformed response header: {line[:60]!r}", request=request)
        headers.append((name, value.strip()))
    return int(parts[1]), parts[2] if len(parts) > 2 else b"", headers, parts[0]


async def _read_body(reader: asyncio.StreamReader, request, status: int,
                     headers: list[tuple[bytes, bytes]], version: bytes) -> tuple[bytes, bool]:
    """(body, connection reusable)."""
    import httpx

    length = None
    chunked = False
    keep = version == b"HTTP/1.1"
    for name, value in headers:
        lowered = name.lower()
        if lowered == b"content-length":
            try:
                length = int(value)
            except ValueError:
                raise httpx.RemoteProtocolError(f"invalid Content-Length {value[:30]!r}", request=request) from None
        elif lowered == b"transfer-encoding":
            chunked = value.lower().endswith(b"chunked")
        elif lowered == b"connection":
            tokens = value.lower()
            if b"close" in tokens:
                keep = False
            elif b"keep-alive" in tokens:
                keep = True
    if request.method == "HEAD" or status in _NO_BODY or 100 <= status < 200:
        return b"", keep
    try:
        if chunked:
            parts = []
            while True:
                line = await reader.readuntil(b"\n")
                try:
                    size = int(line.split(b";", 1)[0].strip(), 16)
                except ValueError:
                    raise httpx.RemoteProtocolError(f"invalid chunk size {line[:30]!r}", request=request) from None
                if size == 0:
                    while (await reader.readuntil(b"\n")).strip():  # trailers
                        pass
                    return b"".join(parts), keep
                parts.append(await reader.readexactly(size))
                await reader.readuntil(b"\n")
        if length is not None:
            return (await reader.readexactly(length)) if length else b"", keep
        return await reader.read(), False  # delimited by the end of the connection
    except asyncio.IncompleteReadError:
        raise httpx.RemoteProtocolError("the server closed the connection in the middle of the body",
                                        request=request) from None
    except asyncio.LimitOverrunError:
        raise httpx.RemoteProtocolError("chunk header too large", request=request) from None


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
            self._client = httpx.AsyncClient(timeout=None, follow_redirects=False, transport=transport,
                                             headers={"User-Agent": USER_AGENT})
        return self._client

    def reset_cookies(self) -> None:
        """Cookies live for one scenario: isolated scenarios must not share a session through them."""
        if self._client is not None and self._client.cookies:
            self._client.cookies.clear()

    def build(self, method: str, url: str, headers: Sequence[tuple[str, str]],
              query: Sequence[tuple[str, str]], body: bytes | None):
        """An httpx.Request, or RequestFailed for a URL that cannot be sent."""
        try:
            client = self._get()
            if query:  # merged into a query the path already has (httpx's params= would replace it)
                from httpx import URL

                url = URL(url).copy_merge_params(list(query))
            return client.build_request(method, url, headers=list(headers), content=body)
        except Exception as error:  # invalid URLs raise several kinds of error
            raise RequestFailed(transport_message(error, url)) from None

    async def send(self, request, timeout: float, timeout_setting: Setting | None = None,
                   url: str | None = None) -> HttpResult:
        """Send and read the whole body within `timeout` seconds.
        Raises RequestFailed (one-line message) or CancelledError (stop)."""
        started = time.perf_counter()
        try:
            if _deadline is not None:
                async with _deadline(timeout):
                    response = await self._get().send(request)
            else:  # pragma: no cover
                response = await asyncio.wait_for(self._get().send(request), timeout)
        except (TimeoutError, asyncio.TimeoutError):
            where = f" ({describe_timeout(timeout_setting)})" if timeout_setting is not None else ""
            raise RequestFailed(f"timed out after {_seconds(timeout)} s{where}") from None
        except asyncio.CancelledError:
            raise
        except Exception as error:
            raise RequestFailed(transport_message(error, url or str(request.url))) from None
        elapsed = time.perf_counter() - started
        content = response.content
        encoding = response.headers.encoding
        headers = tuple((k.decode(encoding), v.decode(encoding)) for k, v in response.headers.raw)
        return HttpResult(response.status_code, response.reason_phrase, headers, _decode(content, headers),
                          content, elapsed)

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


def _seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
