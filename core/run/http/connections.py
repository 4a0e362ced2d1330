"""How the plain-HTTP transport (run.http.pool) talks to a server: a blocking socket.

Each wait is bounded by the request's deadline (`time.monotonic()` seconds), so the whole
exchange stays under one timeout. A stop from another thread (or a signal handler) shuts the
socket down (`shut_down`): a blocked connect, send or recv then returns at once."""

from __future__ import annotations

import select
import socket
import time
from typing import Callable, Sequence

from scenario_core.run.http.errors import ConnectFailed, connect_problem

READ_SIZE = 1 << 16
_poll = getattr(select, "poll", None)  # not on Windows: a peeking recv there
_READABLE = select.POLLIN | select.POLLPRI | select.POLLERR | select.POLLHUP if _poll is not None else 0
# One of getaddrinfo's answers: (family, type, protocol, canonical name, socket address).
_AddressInfo = tuple[socket.AddressFamily, socket.SocketKind, int, str, tuple[object, ...]]


# How late after its deadline a wait may end: the socket's timeout is set again only when the one
# it has would end the coming wait before the deadline or more than this after it (and never more
# than a tenth of the time left: a 20 ms timeout ends within 2 ms). A run's requests share one
# timeout, so a kept-alive connection is set once, not before every send and receive.
SLACK = 0.005
_UNSET = -1.0


class SocketConnection:
    """A blocking socket. TimeoutError once `deadline` has passed (within SLACK), whatever the
    call waits on."""

    __slots__ = ("sock", "used", "_poller", "_timeout")

    def __init__(self, sock: socket.socket):
        self.sock, self.used = sock, False
        self._poller: select.poll | None = None  # registered once: usable() polls it at each reuse
        self._timeout: float | None = _UNSET  # what the socket's timeout was last set to

    @classmethod
    def open(
        cls, host: str, port: int, deadline: float | None, watch: Callable[[socket.socket], None]
    ) -> SocketConnection:
        """`watch` is told of each socket before it connects (so a stop can shut it down)."""
        try:
            sock = _connected(host, port, deadline, watch)
        except TimeoutError:
            raise
        except OSError as error:
            raise ConnectFailed(connect_problem(error)) from error
        # as asyncio does for its streams: a request is written at once, not held back by Nagle
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return cls(sock)

    def usable(self) -> bool:
        """Still open, with nothing waiting to be read: bytes that arrived while the connection sat
        idle answer no request of ours, and reading them as the next response would poison it.
        (Readable at all means either: the server closed it, or stray bytes. One poll, where the
        platform has it, costs a fifth of a peeking recv that raises.)"""
        sock = self.sock
        if _poll is not None:
            if sock.fileno() < 0:
                return False
            poller = self._poller
            if poller is None:
                poller = self._poller = _poll()
                poller.register(sock, _READABLE)
            return not poller.poll(0)
        try:
            self._timeout = 0.0
            sock.settimeout(0.0)
            sock.recv(1, socket.MSG_PEEK)
        except (BlockingIOError, InterruptedError):
            return True  # nothing to read: the usual idle connection
        except OSError:
            return False
        return False  # b"" the server closed it, or stray bytes

    def write(self, payload: bytes, deadline: float | None) -> None:
        self._bound(deadline)
        self.sock.sendall(payload)

    def read(self, deadline: float | None) -> bytes:
        self._bound(deadline)
        return self.sock.recv(READ_SIZE)

    def _bound(self, deadline: float | None) -> None:
        """The socket's timeout made to end the coming wait at `deadline`, or a little after it
        (SLACK at most, a tenth of the time left at most; never before); TimeoutError when the
        deadline has passed."""
        if deadline is None:
            if self._timeout is not None:
                self._timeout = None
                self.sock.settimeout(None)
            return
        now = time.monotonic()
        left = deadline - now
        if left <= 0:
            raise TimeoutError()
        slack = SLACK if left >= 10 * SLACK else left / 10
        timeout = self._timeout
        if timeout is None or not 0.0 <= timeout - left <= slack:
            self._timeout = timeout = left + slack / 2
            self.sock.settimeout(timeout)

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


def shut_down(sock: socket.socket) -> None:
    """End every wait on `sock` at once, from any thread: its blocked calls return (recv: b"")."""
    try:
        socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the fd's: an SSLSocket's TLS state is left alone
    except OSError:
        pass


def _connected(host: str, port: int, deadline: float | None, watch: Callable[[socket.socket], None]) -> socket.socket:
    """A socket connected to the first of the host's addresses that answers, as
    socket.create_connection would, but each attempt waits only what is left of `deadline`
    (not the whole timeout again), and a socket is closed whatever ends its attempt."""
    last: OSError | None = None
    for family, kind, protocol, _, address in _addresses(host, port, deadline):
        sock = socket.socket(family, kind, protocol)
        try:
            watch(sock)
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


def _addresses(host: str, port: int, deadline: float | None) -> Sequence[_AddressInfo]:
    """The host's addresses (getaddrinfo), found within `deadline`: a numeric host at once; a
    name in a thread of its own, waited for no longer than the deadline (a resolver that hangs
    is left to finish alone), and Ctrl+C still heard."""
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

    found: list[Sequence[_AddressInfo] | BaseException] = []
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
