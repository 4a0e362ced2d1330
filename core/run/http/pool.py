"""The plain-HTTP transport: HTTP/1.1 over asyncio streams, with a pool of kept-alive connections
per (host, port) and a connection dropped whenever its state is in doubt. Requests are the bytes
run.http.request builds; responses are framed by run.http.framing. No httpx objects: they cost
more than the exchange itself on a loopback API (https:// and proxies go through run.http.via_httpx).

The client imports this module when it first sends something."""

from __future__ import annotations

import asyncio
from typing import AsyncIterator

from scenario_core.run.http.errors import ConnectFailed, ProtocolBroken, ReadFailed, connect_problem
from scenario_core.run.http.framing import ResponseMessage, decode_headers
from scenario_core.run.http.request import OutgoingRequest

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


class Http11Pool:
    """A lean HTTP/1.1 keep-alive client for plain http://; responses are framed by httptools
    (llhttp, uvicorn's C parser). h11, pure Python, cost about 0.1 ms more a request, and
    httpcore's asyncio path (anyio streams, pool locks, sniffio lookups) several hundred."""

    def __init__(self) -> None:
        self._idle: dict[_Key, list[_Connection]] = {}

    async def send(self, request: OutgoingRequest) -> PlainResponse:
        """The response's head; its body is read through the response (`chunks`)."""
        host, port = request.host, request.port
        payload = request.head_bytes() + request.content
        head_only = request.method == "HEAD"
        key = (host, port)
        idle = self._idle.get(key)
        while idle:
            connection = idle.pop()
            if connection.usable():
                try:
                    return await self._exchange(connection, key, head_only, payload)
                except _StaleConnection:
                    continue
            connection.close()
        try:
            reader, writer = await asyncio.open_connection(host, port, limit=_READ_SIZE)
        except OSError as error:
            raise ConnectFailed(connect_problem(error)) from error
        try:
            return await self._exchange(_Connection(reader, writer), key, head_only, payload)
        except _StaleConnection as stale:
            raise ProtocolBroken("the server closed the connection without a response") from stale.__cause__

    async def _exchange(self, connection: _Connection, key: _Key, head_only: bool, payload: bytes) -> PlainResponse:
        reused = connection.used
        connection.used = True
        reader, writer = connection.reader, connection.writer
        message = ResponseMessage(head_only)
        got_bytes = False
        try:
            writer.write(payload)
            await writer.drain()
            while not message.head_done:
                data = await reader.read(_READ_SIZE)
                if not data:
                    if not got_bytes and reused:
                        raise _StaleConnection()
                    raise ProtocolBroken("the server closed the connection without a complete response")
                got_bytes = True
                message.feed(data)
        except (ConnectionResetError, BrokenPipeError) as error:
            connection.close()
            if reused and not got_bytes:
                raise _StaleConnection() from error
            raise ReadFailed(f"connection reset: {error}") from error
        except BaseException:
            connection.close()  # cancelled or broken mid-exchange: its state is unknown
            raise
        keep = message.keep_alive(message.parser.get_http_version())
        response = PlainResponse(self, connection, key, message, keep)
        if message.done:  # the usual case: the whole response came with its head
            response.finished = True
            self.release(connection, key, keep)
        return response

    def release(self, connection: _Connection, key: _Key, keep: bool) -> None:
        """A connection whose exchange is over: back to the pool, or closed."""
        if keep:
            self._idle.setdefault(key, []).append(connection)
        else:
            connection.close()

    async def aclose(self) -> None:
        for connections in self._idle.values():
            for connection in connections:
                connection.close()
        self._idle.clear()


class PlainResponse:
    """A response whose head was read; `chunks` gives its body as it arrives. The connection goes
    back to the pool only once the body was read to its end; a body abandoned half-way (over the
    size cap, past the deadline) closes it: its next bytes would be taken for the next response."""

    __slots__ = ("status", "reason", "headers", "pool", "connection", "key", "message", "keep", "finished")

    def __init__(self, pool: Http11Pool, connection: _Connection, key: _Key, message: ResponseMessage, keep: bool):
        self.status = message.status
        self.reason = message.reason.decode("latin-1")
        self.headers = decode_headers(message.headers)
        self.pool, self.connection, self.key, self.message, self.keep = pool, connection, key, message, keep
        self.finished = False

    async def chunks(self) -> AsyncIterator[bytes]:
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
                        raise ProtocolBroken("the server closed the connection in the middle of the body")
                    self.keep = False
                    break
                message.feed(data)
        except ConnectionResetError as error:
            raise ReadFailed(f"connection reset: {error}") from error
        if not self.finished:
            self.finished = True
            self.pool.release(self.connection, self.key, self.keep and not message.trailing)

    async def aclose(self) -> None:
        if not self.finished:
            self.finished = True
            self.connection.close()
