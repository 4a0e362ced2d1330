"""The two ways the plain-HTTP transport (run.http.pool) talks to a server: asyncio streams, for
runs that share an event loop (the TUI, `--jobs`, webhooks), and a blocking socket, for the
headless sequential run driven without one (run.blocking). Both have the same coroutine methods;
the blocking ones never suspend, so a run driven without an event loop can await them.

A blocking connection bounds each wait by the request's deadline (`time.monotonic()` seconds),
so the whole exchange stays under one timeout, as `asyncio.timeout` bounds the streams."""

from __future__ import annotations

import socket
import time
from typing import TYPE_CHECKING

from scenario_core.run.http.errors import ConnectFailed, connect_problem

if TYPE_CHECKING:
    import asyncio

READ_SIZE = 1 << 16


class StreamConnection:
    """A connection over asyncio streams (`deadline` is the event loop's business: unused)."""

    __slots__ = ("reader", "writer", "used")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer, self.used = reader, writer, False

    @classmethod
    async def open(cls, host: str, port: int, deadline: float | None) -> StreamConnection:
        import asyncio

        try:
            reader, writer = await asyncio.open_connection(host, port, limit=READ_SIZE)
        except OSError as error:
            raise ConnectFailed(connect_problem(error)) from error
        return cls(reader, writer)

    def usable(self) -> bool:
        # Bytes that arrived while the connection sat idle answer no request of ours: reading
        # them as the next response would poison it. (StreamReader has no public peek.)
        return not self.reader.at_eof() and not self.writer.is_closing() and not getattr(self.reader, "_buffer", None)

    async def write(self, payload: bytes, deadline: float | None) -> None:
        self.writer.write(payload)
        await self.writer.drain()

    async def read(self, deadline: float | None) -> bytes:
        return await self.reader.read(READ_SIZE)

    def close(self) -> None:
        try:
            self.writer.close()
        except Exception:  # closing a broken transport must not mask the real problem
            pass


class SocketConnection:
    """A blocking socket. TimeoutError once `deadline` has passed, whatever the call waits on."""

    __slots__ = ("sock", "used")

    def __init__(self, sock: socket.socket):
        self.sock, self.used = sock, False

    @classmethod
    async def open(cls, host: str, port: int, deadline: float | None) -> SocketConnection:
        try:
            sock = _connected(host, port, deadline)
        except TimeoutError:
            raise
        except OSError as error:
            raise ConnectFailed(connect_problem(error)) from error
        # as asyncio does for its streams: a request is written at once, not held back by Nagle
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return cls(sock)

    def usable(self) -> bool:
        """Still open, with nothing waiting to be read (see StreamConnection.usable)."""
        sock = self.sock
        try:
            sock.settimeout(0.0)
            sock.recv(1, socket.MSG_PEEK)
        except (BlockingIOError, InterruptedError):
            return True  # nothing to read: the usual idle connection
        except OSError:
            return False
        return False  # b"" the server closed it, or stray bytes

    async def write(self, payload: bytes, deadline: float | None) -> None:
        self.sock.settimeout(time_left(deadline))
        self.sock.sendall(payload)

    async def read(self, deadline: float | None) -> bytes:
        self.sock.settimeout(time_left(deadline))
        return self.sock.recv(READ_SIZE)

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


def _connected(host: str, port: int, deadline: float | None) -> socket.socket:
    """A socket connected to the first of the host's addresses that answers, as
    socket.create_connection would, but each attempt waits only what is left of `deadline`
    (not the whole timeout again), and a socket is closed whatever ends its attempt (Ctrl+C's
    StopRequested too)."""
    last: OSError | None = None
    for family, kind, protocol, _, address in _addresses(host, port, deadline):
        sock = socket.socket(family, kind, protocol)
        try:
            sock.settimeout(time_left(deadline))
            sock.connect(address)
            return sock
        except TimeoutError:
            sock.close()
            raise  # the deadline has passed: no time for the next address
        except OSError as error:
            sock.close()
            last = error
        except BaseException:
            sock.close()
            raise
    raise last if last is not None else OSError(f"no address for {host}")


def _addresses(host: str, port: int, deadline: float | None) -> list[tuple]:
    """The host's addresses (getaddrinfo), found within `deadline`: a numeric host at once; a
    name in a thread of its own, waited for no longer than the deadline (a resolver that hangs
    is left to finish alone, as asyncio leaves it in its executor), and Ctrl+C still heard."""
    # As bytes: a str host is encoded by the idna codec, whose import costs a run ~3 ms (the
    # request's host is ASCII already: run.http.request made it so).
    host_name: str | bytes = host.encode("ascii") if host.isascii() else host
    try:
        return socket.getaddrinfo(host_name, port, 0, socket.SOCK_STREAM, 0, socket.AI_NUMERICHOST)
    except socket.gaierror:
        pass  # a name
    if deadline is None:
        return socket.getaddrinfo(host_name, port, 0, socket.SOCK_STREAM)
    import threading

    found: list[list[tuple] | BaseException] = []
    done = threading.Event()

    def resolve() -> None:
        try:
            found.append(socket.getaddrinfo(host_name, port, 0, socket.SOCK_STREAM))
        except BaseException as error:  # handed to the waiting thread, raised there
            found.append(error)
        finally:
            done.set()

    threading.Thread(target=resolve, name=f"resolving {host}", daemon=True).start()
    if not done.wait(time_left(deadline)):
        raise TimeoutError()
    result = found[0]
    if isinstance(result, BaseException):
        raise result
    return result


def time_left(deadline: float | None) -> float | None:
    """Seconds left before `deadline`; TimeoutError when none are."""
    if deadline is None:
        return None
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError()
    return left
