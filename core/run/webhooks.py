"""Webhook servers (docs/spec/berrycrush.md#webhooks): `webhook: NAME` with `hook: h` / `hooks: [a, b]`,
`port: 0` (any free port) and `scope: scenario|feature` starts a loopback HTTP server that
records what it receives, so a scenario can hand `{{NAME.h}}` (the hook's URL) to the API under
test and then check `{{NAME.h.length}}` (calls so far) and `{{NAME.h[0].body.f}}`.

A webhook keeps at most MAX_CALLS_KEPT calls and MAX_BYTES_KEPT bytes of them (bodies, paths and
headers as received), across its hooks: past either, its oldest calls are dropped, and counted.
Calls keep their numbers (`[0]` is the first call ever, `.length` counts every call received): a
reference to a dropped call fails saying so, and `{{NAME.h.dropped}}` is how many a hook dropped.

Each webhook listens on a daemon thread of its own and answers each connection on another
(httptools frames the requests: no dependency beyond what the HTTP client already uses). What a
hook keeps is shared between those threads and the run's: one lock per run guards it.
"""

from __future__ import annotations

import errno
import json
import re
import socket
import threading
from collections import deque
from typing import Hashable, Iterator, Mapping, Protocol
from urllib.parse import parse_qsl, urlsplit

from scenario_core.language.nodes.steps import WebhookStep
from scenario_core.run.http.connections import shut_down
from scenario_core.run.webhook_calls import Received, body_value, walk
from scenario_core.support.records import dataclass, field


class _Parser(Protocol):
    """What is asked of httptools' request parser once a request is complete (it has no types)."""

    def get_method(self) -> bytes: ...

    def should_keep_alive(self) -> bool: ...


HOST = "127.0.0.1"
MAX_BODY = 16 * 1024 * 1024  # a webhook receives notifications, not uploads
MAX_HEAD = 64 * 1024
# What one webhook keeps (see docs/limits.md): a scenario checks a handful of notifications, and
# an API that floods its hook must not take the run's memory (600 x 1 MiB kept 691 MiB). Four
# calls of the largest body still fit; parsed JSON can take a few times its bytes in memory.
MAX_CALLS_KEPT = 1000
MAX_BYTES_KEPT = 64 * 1024 * 1024
ACCEPTED_METHODS = ("POST", "PUT", "GET")
_PART = re.compile(r"\.([^.\[\]]+)|\[([0-9]+)\]")


class WebhookError(Exception):
    """A webhook that cannot start (busy port, bad port): its step fails with this one line."""


@dataclass(eq=False)
class _Hook:
    """The calls one hook keeps: the newest, in order; `dropped` older ones came before them."""

    kept: deque[Received] = field(default_factory=deque)
    dropped: int = 0

    @property
    def received(self) -> int:
        return self.dropped + len(self.kept)


@dataclass(eq=False)
class _Server:
    name: str
    owner: Hashable
    hooks: tuple[str, ...]
    port: int
    listener: socket.socket | None = None
    accepting: threading.Thread | None = None
    calls: dict[str, _Hook] = field(default_factory=dict)
    connections: set[socket.socket] = field(default_factory=set)
    threads: set[threading.Thread] = field(default_factory=set)
    arrivals: deque[tuple[str, int]] = field(default_factory=deque)  # (hook, size) of each kept call, oldest first
    kept_bytes: int = 0

    def url(self, hook: str) -> str:
        return f"http://{HOST}:{self.port}/{hook}"

    def keep(self, hook: str, call: Received, size: int) -> None:
        """Records a call; drops the oldest of this webhook's calls while over either budget."""
        self.calls[hook].kept.append(call)
        self.arrivals.append((hook, size))
        self.kept_bytes += size
        while len(self.arrivals) > 1 and (len(self.arrivals) > MAX_CALLS_KEPT or self.kept_bytes > MAX_BYTES_KEPT):
            oldest, oldest_size = self.arrivals.popleft()
            dropping = self.calls[oldest]
            dropping.kept.popleft()
            dropping.dropped += 1
            self.kept_bytes -= oldest_size


class _Request:
    """httptools callbacks collecting complete requests (several when pipelined)."""

    def __init__(self) -> None:
        self.parser: _Parser | None = None
        self.done: list[tuple[str, str, list[tuple[str, str]], bytes, bool]] = []
        self.too_large = False
        self._reset()

    def _reset(self) -> None:
        self.url = bytearray()
        self.headers: list[tuple[str, str]] = []
        self.body = bytearray()
        self.head_size = 0

    def on_message_begin(self) -> None:
        self._reset()

    def on_url(self, url: bytes) -> None:
        self.url += url
        self.head_size += len(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self.head_size += len(name) + len(value)
        if self.head_size > MAX_HEAD:
            self.too_large = True
            return
        self.headers.append((name.decode("latin-1"), value.decode("latin-1")))

    def on_body(self, body: bytes) -> None:
        if len(self.body) + len(body) > MAX_BODY:
            self.too_large = True
            return
        self.body += body

    def on_message_complete(self) -> None:
        parser = self.parser
        assert parser is not None  # set before any data is fed
        method = parser.get_method().decode("latin-1")
        self.done.append(
            (method, self.url.decode("latin-1"), self.headers, bytes(self.body), parser.should_keep_alive())
        )


def _response(status: int, reason: str, payload: dict[str, object], keep_alive: bool) -> bytes:
    body = json.dumps(payload).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: {'keep-alive' if keep_alive else 'close'}\r\n\r\n"
    )
    return head.encode("latin-1") + body


class Webhooks:
    """The webhook servers of one run, each owned by a scope key (a scenario's or a feature's):
    `stop(owner)` when that scope ends, `close()` when the run ends."""

    def __init__(self) -> None:
        self._servers: list[_Server] = []  # live, in start order; lookups take the newest of a name
        self._lock = threading.Lock()  # the servers' threads record calls while the run reads them

    # ------------------------------------------------------------ life cycle

    def start(self, step: WebhookStep, owner: Hashable) -> list[str]:
        """Start the server `step` declares for `owner` and return the URLs of its hooks.
        Starting the same NAME again in the same owner does nothing (returns its URLs)."""
        for existing in self._servers:
            if existing.name == step.name and existing.owner == owner:
                return [existing.url(h) for h in existing.hooks]
        if not isinstance(step.port, int) or not 0 <= step.port <= 65535:
            raise WebhookError(f"webhook {step.name}: port {step.port} is not a port number (0-65535; 0: a free one)")
        hooks = tuple(dict.fromkeys(step.hooks))
        entry = _Server(step.name, owner, hooks, step.port, calls={h: _Hook() for h in hooks})
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as asyncio's servers do
            listener.bind((HOST, step.port))
            listener.listen(100)
        except OSError as error:
            listener.close()
            if error.errno == errno.EADDRINUSE:
                raise WebhookError(f"webhook {step.name}: port {step.port} on {HOST} is already in use") from None
            reason = " ".join((error.strerror or str(error)).split())
            raise WebhookError(f"webhook {step.name}: cannot listen on {HOST}:{step.port}: {reason}") from None
        entry.listener = listener
        entry.port = listener.getsockname()[1]
        entry.accepting = threading.Thread(
            target=self._accept, args=(entry, listener), name=f"webhook {step.name}", daemon=True
        )
        entry.accepting.start()
        with self._lock:
            self._servers.append(entry)
        return [entry.url(h) for h in hooks]

    def stop(self, owner: Hashable) -> list[tuple[str, str, int, int, str]]:
        """Stop the servers `owner` started; their ports are free when this returns. Returns
        (name, hook, dropped, received, one line saying so) for each of their hooks that dropped calls."""
        with self._lock:
            ending = [s for s in self._servers if s.owner == owner]
            self._servers = [s for s in self._servers if s.owner != owner]
        for entry in ending:
            self._close(entry)
        with self._lock:
            return [
                (entry.name, hook, calls.dropped, calls.received, _dropped_note(entry.name, hook, calls))
                for entry in ending
                for hook, calls in entry.calls.items()
                if calls.dropped
            ]

    def close(self) -> None:
        with self._lock:
            ending, self._servers = self._servers, []
        for entry in ending:
            self._close(entry)

    def _close(self, entry: _Server) -> None:
        """No more connections, and each open one ended (keep-alive clients, one stuck writing
        to a client that does not read): its socket is shut down, so its thread's wait ends."""
        if entry.listener is not None:
            shut_down(entry.listener)  # the accept() waiting on it returns
            entry.listener.close()
        if entry.accepting is not None:
            entry.accepting.join(1.0)
        with self._lock:
            connections, threads = list(entry.connections), list(entry.threads)
        for connection in connections:
            shut_down(connection)
        for thread in threads:
            thread.join(1.0)

    # ------------------------------------------------------------ serving

    def _accept(self, entry: _Server, listener: socket.socket) -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:  # closed by _close
                return
            thread = threading.Thread(target=self._connection, args=(entry, connection), daemon=True)
            with self._lock:
                entry.connections.add(connection)
                entry.threads.add(thread)
            thread.start()

    def _connection(self, entry: _Server, connection: socket.socket) -> None:
        import httptools

        request = _Request()
        parser = httptools.HttpRequestParser(request)
        request.parser = parser
        try:
            while True:
                data = connection.recv(65536)
                if not data:
                    break
                upgrade = False
                try:
                    parser.feed_data(data)
                except httptools.HttpParserUpgrade:
                    upgrade = True  # no protocol switch here: answered as a request, then closed
                except httptools.HttpParserError:
                    connection.sendall(_response(400, "Bad Request", {"error": "malformed HTTP request"}, False))
                    break
                if request.too_large:
                    connection.sendall(_response(413, "Content Too Large", {"error": "request too large"}, False))
                    break
                keep_alive = not upgrade
                answers = []
                for method, target, headers, body, keep in request.done:
                    keep_alive = keep_alive and keep
                    with self._lock:
                        answers.append(self._answer(entry, method, target, headers, body, keep_alive))
                request.done.clear()
                if answers:
                    connection.sendall(b"".join(answers))
                if not keep_alive:
                    break
        except OSError:
            pass
        finally:
            with self._lock:
                entry.connections.discard(connection)
                entry.threads.discard(threading.current_thread())
            connection.close()

    @staticmethod
    def _answer(
        entry: _Server, method: str, target: str, headers: list[tuple[str, str]], body: bytes, keep_alive: bool
    ) -> bytes:
        parts = urlsplit(target)
        hook = parts.path.strip("/")
        if hook not in entry.calls:
            return _response(
                404,
                "Not Found",
                {"error": f"no hook at {parts.path}", "hooks": [f"/{h}" for h in entry.hooks]},
                keep_alive,
            )
        if method not in ACCEPTED_METHODS:
            return _response(405, "Method Not Allowed", {"error": f"{method} is not accepted"}, keep_alive)
        call = Received(method, parts.path, dict(parse_qsl(parts.query)), tuple(headers), body_value(body))
        size = len(body) + len(target) + sum(len(k) + len(v) for k, v in headers)
        entry.keep(hook, call, size)
        return _response(200, "OK", {"received": True}, keep_alive)

    # ------------------------------------------------------------ what scenarios read

    def names(self) -> list[str]:
        """Every reference worth showing in a variables panel: each hook's URL, its count and its calls."""
        with self._lock:
            return self._names()

    def _names(self) -> list[str]:
        names: list[str] = []
        seen: set[str] = set()
        for entry in reversed(self._servers):  # the newest of a name is the one lookups see
            if entry.name in seen:
                continue
            seen.add(entry.name)
            for hook in entry.hooks:
                kept = entry.calls[hook]
                names += [f"{entry.name}.{hook}", f"{entry.name}.{hook}.length"]
                names += [f"{entry.name}.{hook}.dropped"] if kept.dropped else []
                names += [f"{entry.name}.{hook}[{i}]" for i in range(kept.dropped, kept.received)]
        return names

    def view(self, variables: Mapping[str, object]) -> Mapping[str, object]:
        """`variables` with the webhook references added: a variable of the same name wins
        (`{{a.b}}` is first the variable named a.b). What templates render against."""
        return _WithWebhooks(variables, self) if self._servers else variables

    def calls(self, name: str, hook: str) -> list[Received]:
        """What hook `hook` of webhook `name` received so far and keeps ([] when there is no such hook)."""
        with self._lock:
            entry = self._named(name)
            kept = entry.calls.get(hook) if entry is not None else None
            return list(kept.kept) if kept is not None else []

    def _named(self, name: str) -> _Server | None:
        for entry in reversed(self._servers):
            if entry.name == name:
                return entry
        return None

    def lookup(self, name: str) -> tuple[bool, object]:
        """Resolve a reference: `NAME` (base URL), `NAME.h` (the hook's URL), `NAME.h.length`
        (calls so far), `NAME.h[0]` (the first call), `NAME.h[0].method|path|query|headers|body`,
        deeper into the body (`.body.items[0].id`, `.body.items.0.id`) and headers
        (`.headers.Content-Type`, case-insensitive). (False, None) when it does not resolve."""
        with self._lock:
            found, value, _ = self._resolve(name)
        return found, value

    def why_missing(self, name: str) -> str | None:
        """For a reference that starts with a webhook's name but does not resolve: why, in words."""
        with self._lock:
            found, _, reason = self._resolve(name)
        return None if found else reason

    def _resolve(self, name: str) -> tuple[bool, object, str | None]:
        head = re.match(r"[^.\[\]]+", name)
        if head is None:
            return False, None, None
        entry = self._named(head.group())
        if entry is None:
            return False, None, None
        tail = name[head.end() :]
        found = list(_PART.finditer(tail))
        # (an index of over 18 digits is past the end of any list)
        parts = [m[1] or (int(m[2]) if len(m[2]) <= 18 else 10**18) for m in found]
        if "".join(m.group() for m in found) != tail:
            return False, None, f"'{name}' is not a webhook reference"
        if not parts:
            return True, f"http://{HOST}:{entry.port}", None
        hook, rest = parts[0], parts[1:]
        if not isinstance(hook, str) or hook not in entry.calls:
            return False, None, f"webhook {entry.name} has no hook '{hook}' (hooks: {', '.join(entry.hooks)})"
        calls = entry.calls[hook]
        if not rest:
            return True, entry.url(hook), None
        if rest == ["length"]:
            return True, calls.received, None
        if rest == ["dropped"]:
            return True, calls.dropped, None
        index = rest[0]
        if not isinstance(index, int):
            return False, None, f"'{name}': after {entry.name}.{hook} write .length or [N]"
        if index >= calls.received:
            return (
                False,
                None,
                (
                    f"{entry.name}.{hook} has received {calls.received} call"
                    f"{'' if calls.received == 1 else 's'}, so [{index}] does not exist yet"
                ),
            )
        if index < calls.dropped:
            return False, None, _dropped_reason(entry.name, hook, calls, index)
        return walk(calls.kept[index - calls.dropped], rest[1:], name)


def _dropped_note(name: str, hook: str, calls: _Hook) -> str:
    return (
        f"webhook {name}: {name}.{hook} dropped its oldest {calls.dropped} of {calls.received} calls "
        f"(a webhook keeps its newest {MAX_CALLS_KEPT} calls and {MAX_BYTES_KEPT // (1024 * 1024)} MiB)"
    )


def _dropped_reason(name: str, hook: str, calls: _Hook, index: int) -> str:
    return (
        f"{name}.{hook}[{index}] was dropped: webhook {name} keeps its newest {MAX_CALLS_KEPT} calls "
        f"and {MAX_BYTES_KEPT // (1024 * 1024)} MiB, and {name}.{hook} has dropped its oldest {calls.dropped} "
        f"of {calls.received} (kept: [{calls.dropped}] to [{calls.received - 1}])"
    )


class _WithWebhooks(Mapping[str, object]):
    __slots__ = ("_variables", "_webhooks")

    def __init__(self, variables: Mapping[str, object], webhooks: Webhooks):
        self._variables = variables
        self._webhooks = webhooks

    def __getitem__(self, name: str) -> object:
        if name in self._variables:
            return self._variables[name]
        found, value = self._webhooks.lookup(name)
        if not found:
            raise KeyError(name)
        return value

    def __contains__(self, name: object) -> bool:
        return name in self._variables or (isinstance(name, str) and self._webhooks.lookup(name)[0])

    def __iter__(self) -> Iterator[str]:
        yield from self._variables
        yield from (n for n in self._webhooks.names() if n not in self._variables)

    def __len__(self) -> int:
        return sum(1 for _ in self)
