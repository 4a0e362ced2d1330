"""The transport under httpx.AsyncClient: HTTP/1.1 over asyncio streams, with a pool of kept-alive
connections per (host, port), a connection dropped whenever its state is in doubt, and https://
handed to httpx's own transport. Messages are framed by run.http.framing.

The client imports this module when it first sends something. httpx is still imported only
where it is used: importing every module of core must load neither textual nor rich, and where
click is installed, `import httpx` loads rich (for httpx's command line)."""

from __future__ import annotations

import asyncio
import functools
from typing import TYPE_CHECKING, AsyncIterator, Callable

from scenario_core.run.http.errors import connect_problem
from scenario_core.run.http.framing import ResponseMessage, request_bytes

if TYPE_CHECKING:
    import httpx

_READ_SIZE = 1 << 16

_Key = tuple[str, int]  # (host, port): the connections that can carry a request


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


class Http11Transport:
    """A lean HTTP/1.1 keep-alive transport for plain http:// on asyncio streams; responses are
    framed by httptools (llhttp, uvicorn's C parser). h11, pure Python, cost about 0.1 ms more
    a request in bench/run_chain.py.

    httpcore's asyncio path (anyio streams, pool locks, sniffio lookups) costs several hundred
    microseconds per request; on a loopback API that dominates a run. This transport keeps
    httpx.AsyncClient's request/response model (it is an httpx transport by duck typing: the
    methods httpx calls, no subclass) and sends https:// through httpx's own transport
    (`fallback_factory`), created on first use."""

    def __init__(self, fallback_factory: Callable[[], httpx.AsyncBaseTransport]):
        self._idle: dict[_Key, list[_Connection]] = {}
        self._fallback_factory = fallback_factory
        self._fallback: httpx.AsyncBaseTransport | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        import httpx

        url = request.url
        if url.scheme != "http":
            if self._fallback is None:
                self._fallback = self._fallback_factory()
            return await self._fallback.handle_async_request(request)
        host, port = url.host, url.port or 80
        payload = request_bytes(request)
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
            raise httpx.ConnectError(connect_problem(error), request=request) from error
        try:
            return await self._exchange(_Connection(reader, writer), key, request, payload)
        except _StaleConnection as stale:
            raise httpx.RemoteProtocolError(
                "the server closed the connection without a response", request=request
            ) from stale.__cause__

    async def _exchange(
        self, connection: _Connection, key: _Key, request: httpx.Request, payload: bytes
    ) -> httpx.Response:
        import httpx

        reused = connection.used
        connection.used = True
        reader, writer = connection.reader, connection.writer
        message = ResponseMessage(request.method == "HEAD")
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
        stream: httpx.AsyncByteStream
        if message.done:  # the usual case: the whole response came with its head
            self.release(connection, key, keep)
            body = message.body[0] if len(message.body) == 1 else b"".join(message.body)
            stream = httpx.ByteStream(body)
        else:
            stream = _body_stream()(self, connection, key, message, request, keep)
        return httpx.Response(
            message.status, headers=message.headers, stream=stream, extensions=extensions, request=request
        )

    def release(self, connection: _Connection, key: _Key, keep: bool) -> None:
        """A connection whose exchange is over: back to the pool, or closed."""
        if keep:
            self._idle.setdefault(key, []).append(connection)
        else:
            connection.close()

    async def __aenter__(self) -> Http11Transport:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        for connections in self._idle.values():
            for connection in connections:
                connection.close()
        self._idle.clear()
        if self._fallback is not None:
            await self._fallback.aclose()


@functools.cache
def _body_stream() -> Callable[
    [Http11Transport, _Connection, _Key, ResponseMessage, httpx.Request, bool], httpx.AsyncByteStream
]:
    """The class of a response body still being read; an httpx.AsyncByteStream (httpx checks),
    so it is made on first use, with httpx imported."""
    import httpx

    class _Body(httpx.AsyncByteStream):
        """The rest of a response body, read as the client consumes it. The connection goes back
        to the pool only once the body was read to its end; a body abandoned half-way (over the
        size cap, past the deadline) closes it: its next bytes would be taken for the next response."""

        __slots__ = ("transport", "connection", "key", "message", "request", "keep", "finished")

        def __init__(
            self,
            transport: Http11Transport,
            connection: _Connection,
            key: _Key,
            message: ResponseMessage,
            request: httpx.Request,
            keep: bool,
        ):
            self.transport, self.connection, self.key = transport, connection, key
            self.message, self.request, self.keep = message, request, keep
            self.finished = False

        async def __aiter__(self) -> AsyncIterator[bytes]:
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
            self.transport.release(self.connection, self.key, self.keep and not message.trailing)

        async def aclose(self) -> None:
            if not self.finished:
                self.finished = True
                self.connection.close()

    return _Body
