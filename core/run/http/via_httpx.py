"""https:// and proxied requests, sent through httpx.Client (TLS, certificate checks, proxies
from the environment are where it earns its place); plain http:// goes through run.http.pool
without it. Imported only when such a request is first sent: with click installed, `import httpx`
loads rich.

The response is given the shape of pool.PlainResponse (status, reason, text headers, `chunks`,
`close`), so the client reads both alike. Each wait is bounded by what is left of the request's
deadline, and the deadline is checked between the body's pieces. `interrupt()`, from any thread,
shuts down the socket of the request in flight (recorded by the network backend below when it
connects and when TLS starts): its blocked read returns at once."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from scenario_core.run.http.connections import shut_down, time_left
from scenario_core.run.http.errors import Interrupted
from scenario_core.run.http.request import OutgoingRequest

if TYPE_CHECKING:
    import socket
    import ssl

    import httpcore
    import httpx


def _no_sniffio() -> None:
    """httpcore tries `import sniffio` on every lock use; absent, each failed import searches
    sys.path again (~100 µs a request). Record the absence once, as the import system would."""
    import importlib.util

    if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
        # None is the import system's "cannot be imported" mark; typeshed types the values as modules only.
        sys.modules["sniffio"] = None  # type: ignore[assignment]


class HttpxSender:
    """One httpx.Client, made on first use; cookies are the client's business (its own jar is
    never sent from: requests arrive with their Cookie header)."""

    def __init__(self) -> None:
        import httpx

        _no_sniffio()
        self.deadline: float | None = None  # the request in flight's (time.monotonic() seconds)
        self.interrupted = False
        self.active: socket.socket | None = None  # the socket the request in flight waits on
        self.client = httpx.Client(timeout=None, follow_redirects=False)
        self._bounded = _bound_by_deadline(self.client, self)

    def interrupt(self) -> None:
        """From any thread: end the request in flight at once, and refuse any further one."""
        self.interrupted = True
        sock = self.active
        if sock is not None:
            shut_down(sock)

    def watch(self, sock: socket.socket) -> None:
        """The socket the request in flight now waits on (see Http11Pool.interrupt for the order)."""
        self.active = sock
        if self.interrupted:
            raise Interrupted()

    def send(self, request: OutgoingRequest, deadline: float | None = None) -> HttpxResponse:
        import httpx

        if self.interrupted:
            raise Interrupted()
        built = httpx.Request(request.method, request.url, headers=request.headers, content=request.content or None)
        self.deadline = deadline
        if not self._bounded:  # each of httpx's phases bounded by the whole timeout, at least
            built.extensions["timeout"] = httpx.Timeout(time_left(deadline)).as_dict()
        try:
            return HttpxResponse(self.client.send(built, stream=True), deadline)
        except httpx.TimeoutException:
            raise TimeoutError() from None

    def close(self) -> None:
        self.client.close()


class HttpxResponse:
    __slots__ = ("response", "status", "reason", "headers", "deadline")

    def __init__(self, response: httpx.Response, deadline: float | None):
        self.response = response
        self.status = response.status_code
        self.reason = response.reason_phrase
        encoding = response.headers.encoding
        self.headers = tuple((k.decode(encoding), v.decode(encoding)) for k, v in response.headers.raw)
        self.deadline = deadline

    def chunks(self) -> Iterator[bytes]:
        return _each_in_time(self.response.iter_raw(), self.deadline)

    def close(self) -> None:
        self.response.close()


def _each_in_time(pieces: Iterator[bytes], deadline: float | None) -> Iterator[bytes]:
    """The body's pieces, TimeoutError once the deadline has passed (between two of them, or
    while httpx waits for one: its ReadTimeout)."""
    import httpx

    try:
        for piece in pieces:
            time_left(deadline)
            yield piece
    except httpx.TimeoutException:
        raise TimeoutError() from None


# A request's one deadline. httpx takes the timeout of each of its phases (connect,
# write, the head, the body) once, at the phase's start, and gives it again to every read of
# the phase: a server trickling or stalling part-way would get the whole timeout again after
# each piece. So each transport's network backend is wrapped to give every connect, read and
# write only what is left of the request's deadline.


def _bound_by_deadline(client: httpx.Client, sender: HttpxSender) -> bool:
    """Wrap the network backend of each of `client`'s transports (its own and the proxies'
    mounts); False if this httpx keeps them elsewhere (then each phase is bounded instead)."""
    transports = [client._transport, *client._mounts.values()]
    pools: list[Any] = [getattr(transport, "_pool", None) for transport in transports if transport is not None]
    if not all(hasattr(pool, "_network_backend") for pool in pools):
        return False
    for pool in pools:
        pool._network_backend = _DeadlineBackend(pool._network_backend, sender)
    return True


class _DeadlineBackend:
    """An httpcore network backend whose connections wait no longer than the sender's deadline."""

    def __init__(self, backend: httpcore.NetworkBackend, sender: HttpxSender):
        self.backend, self.sender = backend, sender

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> _DeadlineStream:
        left = time_left(self.sender.deadline)
        stream = self.backend.connect_tcp(host, port, left, local_address, socket_options)
        return _watched(stream, self.sender)

    def __getattr__(self, name: str) -> Any:  # connect_unix_socket, sleep: as they are
        return getattr(self.backend, name)


def _watched(stream: httpcore.NetworkStream, sender: HttpxSender) -> _DeadlineStream:
    """`stream`, bounded and watched; closed if the sender was interrupted meanwhile (httpcore
    never sees it then, so would never close it)."""
    try:
        return _DeadlineStream(stream, sender)
    except Interrupted:
        stream.close()
        raise


class _DeadlineStream:
    """A connection's stream: each wait bounded by the deadline, and its socket watched by the
    sender before each (a kept-alive connection too), so interrupt() can shut it down."""

    def __init__(self, stream: httpcore.NetworkStream, sender: HttpxSender):
        self.stream, self.sender = stream, sender
        self.sock: socket.socket = stream.get_extra_info("socket")
        sender.watch(self.sock)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        self.sender.watch(self.sock)
        return self.stream.read(max_bytes, time_left(self.sender.deadline))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.sender.watch(self.sock)
        self.stream.write(buffer, time_left(self.sender.deadline))

    def close(self) -> None:
        self.stream.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> _DeadlineStream:
        left = time_left(self.sender.deadline)
        return _watched(self.stream.start_tls(ssl_context, server_hostname, left), self.sender)

    def get_extra_info(self, info: str) -> Any:
        return self.stream.get_extra_info(info)
