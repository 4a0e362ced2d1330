"""The plain-HTTP transport: HTTP/1.1 with a pool of kept-alive connections per (host, port) and
a connection dropped whenever its state is in doubt, over blocking sockets
(run.http.connections). Requests are the bytes
run.http.request builds; responses are framed by run.http.framing. No httpx objects: they cost
more than the exchange itself on a loopback API (https:// and proxies go through run.http.via_httpx).

`interrupt()`, from any thread, ends the exchange in flight at once: the socket it waits on is
shut down, and nothing more is sent (Interrupted).

`waiting` is called each time the pool is about to wait on the server: once a
request is written and before its response is read, and before a new connection is opened. The
headless run hands its batched events to their consumers then (consumers.Batched), in time the
run would otherwise spend idle. It must not raise.

The client imports this module when it first sends something."""

from __future__ import annotations

import socket
from typing import Callable, Iterator

from scenario_core.run.http.connections import SocketConnection, shut_down
from scenario_core.run.http.errors import Interrupted, ProtocolBroken, ReadFailed
from scenario_core.run.http.framing import ResponseMessage, decode_headers
from scenario_core.run.http.request import OutgoingRequest

_Key = tuple[str, int]  # (host, port): the connections that can carry a request


class _StaleConnection(Exception):
    """A kept-alive connection the server had closed before answering: retry on a new one."""


class Http11Pool:
    """A lean HTTP/1.1 keep-alive client for plain http://; responses are framed by httptools
    (llhttp, uvicorn's C parser). h11, pure Python, cost about 0.1 ms more a request, and
    httpcore's asyncio path (anyio streams, pool locks, sniffio lookups) several hundred."""

    def __init__(self, waiting: Callable[[], None]) -> None:
        self._waiting = waiting
        self._idle: dict[_Key, list[SocketConnection]] = {}
        self._active: socket.socket | None = None  # the socket the exchange in flight waits on
        self.interrupted = False

    def interrupt(self) -> None:
        """From any thread: end the exchange in flight at once, and refuse any further one.
        (The flag is set before the socket is looked at, and `_watch` sets the socket before it
        looks at the flag: whichever comes second sees the other.)"""
        self.interrupted = True
        sock = self._active
        if sock is not None:
            shut_down(sock)

    def _watch(self, sock: socket.socket) -> None:
        self._active = sock
        if self.interrupted:
            raise Interrupted()

    def send(self, request: OutgoingRequest, deadline: float | None = None) -> PlainResponse:
        """The response's head; its body is read through the response (`chunks`). `deadline`
        (time.monotonic() seconds) bounds every wait."""
        host, port = request.host, request.port
        payload = request.head_bytes() + request.content
        head_only = request.method == "HEAD"
        limit = request.max_size
        key = (host, port)
        idle = self._idle.get(key)
        while idle:
            connection = idle.pop()
            if connection.usable():
                try:
                    return self._exchange(connection, key, head_only, payload, deadline, limit)
                except _StaleConnection:
                    continue
            connection.close()
        self._waiting()
        fresh = SocketConnection.open(host, port, deadline, self._watch)
        try:
            return self._exchange(fresh, key, head_only, payload, deadline, limit)
        except _StaleConnection as stale:
            raise ProtocolBroken("the server closed the connection without a response") from stale.__cause__

    def _exchange(
        self,
        connection: SocketConnection,
        key: _Key,
        head_only: bool,
        payload: bytes,
        deadline: float | None,
        limit: int | None = None,
    ) -> PlainResponse:
        reused = connection.used
        connection.used = True
        message = ResponseMessage(head_only, limit)
        got_bytes = False
        try:
            self._watch(connection.sock)
            connection.write(payload, deadline)
            self._waiting()
            while not message.head_done:
                data = connection.read(deadline)
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
            connection.close()  # interrupted or broken mid-exchange: its state is unknown
            raise
        keep = message.keep_alive(message.parser.get_http_version())
        response = PlainResponse(self, connection, key, message, keep, deadline)
        if message.done:  # the usual case: the whole response came with its head
            response.finished = True
            self.release(connection, key, keep)
        return response

    def release(self, connection: SocketConnection, key: _Key, keep: bool) -> None:
        """A connection whose exchange is over: back to the pool, or closed."""
        if keep:
            self._idle.setdefault(key, []).append(connection)
        else:
            connection.close()

    def close(self) -> None:
        for connections in self._idle.values():
            for connection in connections:
                connection.close()
        self._idle.clear()


class PlainResponse:
    """A response whose head was read; `chunks` gives its body as it arrives. The connection goes
    back to the pool only once the body was read to its end; a body abandoned half-way (over the
    size cap, past the deadline) closes it: its next bytes would be taken for the next response."""

    __slots__ = ("status", "reason", "headers", "pool", "connection", "key", "message", "keep", "finished", "deadline")

    def __init__(
        self,
        pool: Http11Pool,
        connection: SocketConnection,
        key: _Key,
        message: ResponseMessage,
        keep: bool,
        deadline: float | None,
    ):
        self.status = message.status
        self.reason = message.reason.decode("latin-1")
        self.headers = decode_headers(message.headers)
        self.pool, self.connection, self.key, self.message, self.keep = pool, connection, key, message, keep
        self.finished = False
        self.deadline = deadline

    def chunks(self) -> Iterator[bytes]:
        message, connection, deadline = self.message, self.connection, self.deadline
        try:
            while True:
                if message.body:
                    pieces, message.body = message.body, []
                    for piece in pieces:
                        yield piece
                if message.done:
                    break
                data = connection.read(deadline)
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

    def close(self) -> None:
        if not self.finished:
            self.finished = True
            self.connection.close()
