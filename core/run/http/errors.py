"""Why a request got no response, as one line for the user (docs/spec/requests.md#transport-problems): RequestFailed, and
the messages and retry verdicts drawn from whatever the transport raised (httpx's errors, the
socket's, TLS's, and the plain-HTTP transport's own).

The plain-HTTP transport raises its own errors (below); httpx's are looked at only when httpx was
loaded (an https:// or proxied request): no other code can have raised one."""

from __future__ import annotations

import socket
import sys
from types import ModuleType
from typing import Iterator


class RequestFailed(Exception):
    """A request that produced no response; the message is one line, ready for the user.
    `retryable`: a timeout or a connection that failed (refused, reset, closed): what
    `retry.maxAttempts` tries again (docs/parameters.md)."""

    def __init__(self, message: str, retryable: bool = False):
        super().__init__(message)
        self.retryable = retryable


class Interrupted(Exception):
    """A request cut short by a stop (Execution.stop): its step ends interrupted, not failed."""


class InvalidRequest(ValueError):
    """A URL or header that cannot be sent; `unsupported`: a scheme other than http(s)."""

    def __init__(self, message: str, unsupported: bool = False):
        super().__init__(message)
        self.unsupported = unsupported


class InvalidHeader(InvalidRequest):
    """A header whose name or value cannot be sent as it is (request.check_headers): the message
    names the header, one line, ready for the user."""


class TransportError(Exception):
    """A problem of the plain-HTTP transport (run.http.pool)."""


class ConnectFailed(TransportError):
    """No connection could be opened."""


class ReadFailed(TransportError):
    """The connection broke while reading the response."""


class ProtocolBroken(TransportError):
    """The server's response breaks HTTP/1.1."""


class _NoTls(Exception):
    """Stands for ssl.SSLError while ssl is not loaded: then no TLS error can have been raised."""


def _tls_error() -> type[BaseException]:
    ssl = sys.modules.get("ssl")
    return ssl.SSLError if ssl is not None else _NoTls


def _httpx() -> ModuleType | None:
    """httpx, when something loaded it (else none of its errors can exist)."""
    return sys.modules.get("httpx")


def one_line(text: object, width: int = 160) -> str:
    """`text` (an error, often) on one line of at most `width` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _causes(error: BaseException | None) -> Iterator[BaseException]:
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        yield error
        if sys.version_info >= (3, 11) and isinstance(error, BaseExceptionGroup):  # noqa: F821 (3.11+)
            for inner in error.exceptions:
                yield from _causes(inner)
        error = error.__cause__ or error.__context__


def transport_retryable(error: BaseException) -> bool:
    """A connection that could not be made or broke (not DNS, TLS, a bad URL or a protocol
    violation: trying again would fail the same way)."""
    tls_error = _tls_error()
    for cause in _causes(error):
        if isinstance(cause, (socket.gaierror, tls_error)):
            return False
        if isinstance(cause, (ConnectionRefusedError, ConnectionResetError, BrokenPipeError)):
            return True
    if isinstance(error, (ConnectFailed, ReadFailed)):
        return True
    httpx = _httpx()
    return httpx is not None and isinstance(error, (httpx.ConnectError, httpx.ReadError, httpx.WriteError))


def transport_message(error: BaseException, url: str) -> str:
    """A one-line description of why a request got no response."""
    from urllib.parse import urlsplit

    try:
        host = urlsplit(url).netloc or url
    except ValueError:
        host = url
    if isinstance(error, InvalidHeader):
        return str(error)
    tls_error = _tls_error()
    for cause in _causes(error):
        if isinstance(cause, ConnectionRefusedError):
            return f"cannot connect to {host}: connection refused"
        if isinstance(cause, socket.gaierror):
            return f"cannot resolve host of {url}: {cause.strerror or cause}"
        if isinstance(cause, tls_error):
            detail = getattr(cause, "verify_message", None) or getattr(cause, "reason", None) or cause
            return f"TLS error talking to {host}: {one_line(detail)}"
        if isinstance(cause, ConnectionResetError):
            return f"connection to {host} was reset"
    httpx = _httpx()
    if (
        isinstance(error, InvalidRequest)
        and error.unsupported
        or (httpx is not None and isinstance(error, httpx.UnsupportedProtocol))
    ):
        return f"invalid URL '{url}': use an absolute http:// or https:// URL"
    if isinstance(error, ValueError) or (
        httpx is not None and isinstance(error, (httpx.InvalidURL, httpx.LocalProtocolError))
    ):
        return f"invalid URL '{url}': {one_line(error) or type(error).__name__}"
    if isinstance(error, ProtocolBroken) or (httpx is not None and isinstance(error, httpx.RemoteProtocolError)):
        return f"{host} broke the HTTP protocol: {one_line(error)}"
    if isinstance(error, ReadFailed) or (httpx is not None and isinstance(error, httpx.ReadError)):
        return f"connection to {host} was closed while reading: {one_line(error) or 'read error'}"
    if httpx is not None and isinstance(error, httpx.WriteError):
        return f"connection to {host} was closed while sending: {one_line(error) or 'write error'}"
    if isinstance(error, ConnectFailed) or (httpx is not None and isinstance(error, httpx.ConnectError)):
        return f"cannot connect to {host}: {one_line(error) or 'connection failed'}"
    if isinstance(error, OverflowError):
        return f"invalid URL '{url}': port out of range"
    return f"request to {url} failed: {type(error).__name__}: {one_line(error)}"


def connect_problem(error: OSError) -> str:
    """Why a connection could not be opened, for the ConnectFailed the transport raises."""
    text = str(error)
    if isinstance(error, ConnectionRefusedError) or "refused" in text.lower() or "Connect call failed" in text:
        return "connection refused"
    if isinstance(error, socket.gaierror):
        return error.strerror or text
    return text or type(error).__name__
