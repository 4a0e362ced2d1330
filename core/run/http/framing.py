"""HTTP/1.1 message framing: a request as the bytes sent, and a response read with httptools
(llhttp, uvicorn's C parser): its head, its body pieces as they arrive, where it ends, and
whether its connection may carry another exchange. Part of the transport (run.http.pool), so
imported only when a run first sends something. No httpx: a plain-HTTP run never loads it."""

from __future__ import annotations

import httptools

from scenario_core.run.http.body import TooLarge
from scenario_core.run.http.errors import ProtocolBroken
from scenario_core.support.patterns import on_first_use

_HEAD_LIMIT = 1 << 20  # largest status line + header block accepted; and a chunk or trailer line


class _Stop(Exception):
    """Raised from a parser callback to stop parsing (trailing bytes, or the end of a HEAD head)."""


class ResponseMessage:
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
        "limit",
        "body_size",
        "trailer_size",
        "pending",
    )

    def __init__(self, head_only: bool, limit: int | None = None):
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
        # Every byte after the head is bounded: the body and the trailers (kept by nobody, but
        # counted as they complete) together by `limit` (maxResponseSize); a line still arriving
        # after the head (a chunk size line, a trailer line) by _HEAD_LIMIT, as a header line is.
        self.limit = limit
        self.body_size = self.trailer_size = 0
        self.pending = 0  # bytes since the last body piece, chunk end or trailer line (at least)

    def on_message_begin(self) -> None:
        if self.done:
            self.trailing = True
            raise _Stop()

    def on_status(self, reason: bytes) -> None:
        self.reason += reason

    def on_header(self, name: bytes, value: bytes) -> None:
        if self.head_done:  # a trailer: counted, never kept (the head was already handed on)
            self.trailer_size += len(name) + len(value) + 4  # `name: value` and CRLF
            self.pending = 0
            if self.limit is not None and self.body_size + self.trailer_size > self.limit:
                raise TooLarge("the response (its body and trailers)")
            return
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
        self.body_size += len(data)
        self.pending = 0

    def on_chunk_complete(self) -> None:
        self.pending = 0

    def on_message_complete(self) -> None:
        if self.head_done:
            self.done = True
        else:  # the end of an interim 1xx response
            self.reason, self.headers = b"", []

    def feed(self, data: bytes) -> None:
        after_head = self.head_done
        if not after_head:
            self.head_size += len(data)
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserCallbackError as error:
            if isinstance(error.__context__, TooLarge):
                raise error.__context__ from None
            if not isinstance(error.__context__, _Stop):
                raise
            if self.head_only and not data.endswith(b"\r\n\r\n"):
                self.trailing = True  # bytes after the head of a HEAD response: do not reuse
        except httptools.HttpParserUpgrade:
            self.head_done = self.done = True
        except httptools.HttpParserError as error:
            raise _protocol_error(str(error), data) from None
        if not self.head_done and self.head_size > _HEAD_LIMIT:
            raise ProtocolBroken("response headers too large")
        if after_head and not self.done:
            self.pending += len(data)  # more than arrived since the last piece: a bound, never short
            if self.pending > _HEAD_LIMIT:
                raise ProtocolBroken(
                    f"a chunk or trailer line of the response is over {_HEAD_LIMIT} bytes (built-in limit)"
                )

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


_LLHTTP_CONTENT_LENGTH = on_first_use(rb"(?im)^content-length[ \t]*:[ \t]*([^\r\n]*)")


def _protocol_error(problem: str, data: bytes) -> ProtocolBroken:
    """llhttp's message, made to name the problem: the offending values or the first line."""
    if "Content-Length" in problem:
        values = ", ".join(repr(v.strip().decode("latin-1")[:30]) for v in _LLHTTP_CONTENT_LENGTH().findall(data))
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
    return ProtocolBroken(problem)


def decode_headers(raw: list[tuple[bytes, bytes]]) -> tuple[tuple[str, str], ...]:
    """Header names and values as text: ASCII, else UTF-8, else Latin-1 (as httpx decides, for
    the whole set at once)."""
    for encoding in ("ascii", "utf-8"):
        try:
            return tuple([(k.decode(encoding), v.decode(encoding)) for k, v in raw])
        except UnicodeDecodeError:
            continue
    return tuple([(k.decode("latin-1"), v.decode("latin-1")) for k, v in raw])
