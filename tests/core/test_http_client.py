"""The HTTP layer: URL joining, one deadline per request, one-line transport messages, and the
HTTP/1.1 keep-alive transport (against the demo API, and a raw socket server for framing cases).
"""

from __future__ import annotations

import asyncio
import gzip
import socket
import ssl
import threading
import time
from contextlib import contextmanager
from typing import Iterator

import httpx
import pytest

from scenario_core.parameters.resolution import Setting
from scenario_core.run.http.body import parse_json
from scenario_core.run.http.client import HttpClient, describe_timeout, join_url
from scenario_core.run.http.errors import RequestFailed, transport_message
from tests.core.http_doubles import LoopbackServer, opened


@pytest.mark.parametrize(
    "base, path, url",
    [
        ("http://h/api", "/pets", "http://h/api/pets"),
        ("http://h/api/", "/pets", "http://h/api/pets"),
        ("http://h/api/", "pets", "http://h/api/pets"),
        ("http://h", "pets/1?x=1", "http://h/pets/1?x=1"),
        ("http://h/api", "?q=1", "http://h/api?q=1"),
        ("http://h/api", "", "http://h/api"),
        ("http://h/api", "https://other/x", "https://other/x"),
        (None, "HTTP://other/x", "HTTP://other/x"),
        (None, "ftp://other/x", "ftp://other/x"),  # refused later, when the request is built
    ],
)
def test_join_url(base, path, url):
    assert join_url(base, path) == url


def test_a_relative_path_needs_a_base_url():
    with pytest.raises(RequestFailed) as caught:
        join_url(None, "/pets")
    assert str(caught.value) == "no baseUrl: set baseUrl in parameters:, --base-url, or an OpenAPI description"


def test_describe_timeout_names_the_level():
    assert describe_timeout(Setting(10, "feature", 14, "Slow")) == "timeout: feature 'Slow', line 14"
    assert describe_timeout(Setting(10, "file", 3)) == "timeout: file, line 3"
    assert describe_timeout(Setting(30, "default")) == "timeout: default"
    assert describe_timeout(Setting(5, "command-line")) == "timeout: command line"


def test_parse_json():
    assert parse_json(b'{"a": 1}') == ({"a": 1}, None)
    assert parse_json(b"null") == (None, None)
    assert parse_json(b"  ") == (None, "the response body is empty")
    assert parse_json(b"<html>") == (None, "the response body is not JSON (Expecting value at line 1 column 1)")


def test_transport_messages_are_one_line():
    url = "http://example.test:81/x"
    refused = httpx.ConnectError("All connection attempts failed")
    refused.__cause__ = ConnectionRefusedError(111, "Connection refused")
    assert transport_message(refused, url) == "cannot connect to example.test:81: connection refused"
    dns = httpx.ConnectError("x")
    dns.__cause__ = socket.gaierror(-2, "Name or service not known")
    assert transport_message(dns, url) == f"cannot resolve host of {url}: Name or service not known"
    tls = httpx.ConnectError("x")
    tls.__cause__ = ssl.SSLCertVerificationError(1, "certificate verify failed:\nself-signed")
    assert transport_message(tls, url).startswith("TLS error talking to example.test:81: ")
    assert "\n" not in transport_message(tls, url)
    reset = httpx.ReadError("x")
    reset.__context__ = ConnectionResetError(104, "Connection reset by peer")
    assert transport_message(reset, url) == "connection to example.test:81 was reset"
    assert transport_message(RuntimeError("odd\nthing"), url) == f"request to {url} failed: RuntimeError: odd thing"


def request(client: HttpClient, url: str, *, method="GET", timeout=5.0, body=None):
    return client.send(client.build(method, url, [], [], body), timeout)


def test_requests_reuse_one_connection(demo):
    with opened() as client:
        for _ in range(10):
            result = request(client, demo.url + "/health")
            assert (result.status, result.body) == (200, '{"status": "ok"}')
        posted = request(client, demo.url + "/echo", method="POST", body=b'{"a": 1}')
        assert '"json": {"a": 1}' in posted.body
    assert demo.connections_accepted == 1


def test_one_deadline_bounds_the_whole_request(demo):
    started = time.perf_counter()
    with opened() as client:
        with pytest.raises(RequestFailed) as caught:
            # A byte every 0.2 s for 60 s: a per-read timeout would never fire, only the total one.
            trickle = client.build("GET", demo.url + "/trickle?ms=200&chunks=300", [], [], None)
            client.send(trickle, 1, Setting(1, "file", 3))
        took = time.perf_counter() - started
        assert str(caught.value) == "timed out after 1 s (timeout: file, line 3)"
        assert 0.9 < took < 15  # the limit, not the 60 s of trickling
        # The connection that timed out is dropped; the next request gets a fresh one and works.
        assert (request(client, demo.url + "/health")).status == 200


def test_a_refused_connection():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with opened() as client:
        with pytest.raises(RequestFailed) as caught:
            request(client, f"http://127.0.0.1:{port}/")
    assert str(caught.value) == f"cannot connect to 127.0.0.1:{port}: connection refused"


# ---------------------------------------------------------------- framing, with a raw server


class RawServer(LoopbackServer):
    """Answers each request on a connection with the next canned reply; then maybe closes."""

    def __init__(self, replies: list[bytes], close_after: bool = False):
        super().__init__()
        self.replies, self.close_after = replies, close_after
        self.requests: list[bytes] = []

    async def handle(self, reader, writer):
        while self.replies:
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(
                (
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length")
                ),
                0,
            )
            self.requests.append(head + await reader.readexactly(length))
            writer.write(self.replies.pop(0))
            await writer.drain()
            if self.close_after:
                break


def fetch(url: str, method: str = "GET"):
    with opened() as client:
        return request(client, url, method=method)


def test_chunked_bodies_with_trailers():
    reply = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n"
        b'4;ext=1\r\n{"a"\r\n5\r\n: 12}\r\n0\r\nX-Trailer: t\r\n\r\n'
    )
    with RawServer([reply]) as server:
        result = fetch(server.url + "/x")
    assert (result.status, result.body) == (200, '{"a": 12}')


def test_interim_responses_are_skipped():
    reply = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok"
    with RawServer([reply]) as server:
        result = fetch(server.url)
    assert (result.status, result.reason, result.body) == (201, "Created", "ok")


def test_a_body_delimited_by_the_end_of_the_connection():
    with RawServer([b"HTTP/1.0 200 OK\r\n\r\nall of it"], close_after=True) as server:
        result = fetch(server.url)
    assert result.body == "all of it"


def test_no_body_for_head_and_204_even_with_a_length():
    replies = [
        b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n",
        b"HTTP/1.1 204 No Content\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
    ]
    with RawServer(replies) as server:
        with opened() as client:
            head = request(client, server.url, method="HEAD")
            empty = request(client, server.url, method="DELETE")
            after = request(client, server.url)
    assert (head.status, head.body, empty.status, empty.body, after.body) == (200, "", 204, "", "ok")
    assert server.connections == 1


def test_a_kept_alive_connection_closed_by_the_server_is_replaced():
    replies = [b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na", b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nb"]
    with RawServer(replies, close_after=True) as server:
        with opened() as client:
            first = request(client, server.url)
            time.sleep(0.05)  # the server has closed the connection meanwhile
            second = request(client, server.url)
    assert (first.body, second.body, server.connections) == ("a", "b", 2)


class ClosesOnItsSecondRequest(LoopbackServer):
    """Its first connection answers one request, then closes on reading the next without a
    byte back (a keep-alive timeout racing the request); later connections answer each one."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[bytes] = []

    async def handle(self, reader, writer):
        first_connection = self.connections == 1
        while True:
            self.requests.append(await reader.readuntil(b"\r\n\r\n"))
            if first_connection and len(self.requests) == 2:
                return
            body = str(len(self.requests)).encode()
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n" + body)
            await writer.drain()


def test_a_request_a_kept_alive_connection_drops_unanswered_goes_again_on_a_fresh_one():
    with ClosesOnItsSecondRequest() as server:
        with opened() as client:
            first = request(client, server.url)
            second = request(client, server.url)
    assert (first.body, second.body, server.connections, len(server.requests)) == ("1", "3", 2, 3)


def test_connection_close_is_honoured_and_gzip_is_decoded():
    payload = gzip.compress(b'{"z": 1}')
    replies = [
        b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Encoding: gzip\r\nContent-Length: "
        + str(len(payload)).encode()
        + b"\r\n\r\n"
        + payload,
        b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nb",
    ]
    with RawServer(replies) as server:
        with opened() as client:
            first = request(client, server.url)
            second = request(client, server.url)
    assert (first.body, first.content, second.body) == ('{"z": 1}', b'{"z": 1}', "b")
    assert server.connections == 2


@pytest.mark.parametrize(
    "reply, message",
    [
        (b"garbage\r\n\r\n", "broke the HTTP protocol: not an HTTP response"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", "in the middle of the body"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", "invalid Content-Length"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "invalid chunk size"),
    ],
)
def test_broken_responses_fail_with_one_line(reply, message):
    with RawServer([reply], close_after=True) as server:
        with pytest.raises(RequestFailed) as caught:
            fetch(server.url)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_the_request_is_sent_as_built():
    with RawServer([b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"]) as server:
        with opened() as client:
            built = client.build("POST", server.url + "/p?a=1", [("X-A", "b")], [("q", "x y")], b"{}")
            client.send(built, 5)
    sent_bytes = server.requests[0]
    assert sent_bytes.startswith(b"POST /p?a=1&q=x+y HTTP/1.1\r\n")
    assert b"\r\nX-A: b\r\n" in sent_bytes and b"\r\nContent-Length: 2\r\n" in sent_bytes
    assert sent_bytes.endswith(b"\r\n\r\n{}") and b"\r\nUser-Agent: scenario-tui\r\n" in sent_bytes


@pytest.mark.parametrize(
    "content_type, raw, text",
    [
        (b"text/plain; charset=latin-1", "café".encode("latin-1"), "café"),
        (b'text/plain; Charset="UTF-8"', "café".encode(), "café"),
        (b"text/plain; charset=nonsense", "café".encode(), "café"),
        (b"application/octet-stream", b"\xff\xfeok", "\ufffd\ufffdok"),
    ],
)
def test_bodies_decode_with_the_named_charset(content_type, raw, text):
    reply = (
        b"HTTP/1.1 200 OK\r\nContent-Type: "
        + content_type
        + b"\r\nContent-Length: "
        + str(len(raw)).encode()
        + b"\r\n\r\n"
        + raw
    )
    with RawServer([reply]) as server:
        result = fetch(server.url)
    assert result.body == text


# ---------------------------------------------------------------- one deadline, however the server stalls


class Stalling(LoopbackServer):
    """Reads a request, sends `parts` (bytes, and pauses as floats, in seconds), then never
    another byte."""

    def __init__(self, *parts: bytes | float):
        super().__init__()
        self.parts = parts

    async def handle(self, reader, writer):
        await reader.readuntil(b"\r\n\r\n")
        for part in self.parts:
            if isinstance(part, float):
                await asyncio.sleep(part)
            else:
                writer.write(part)
                await writer.drain()
        await asyncio.sleep(3600)


def through(monkeypatch, proxied: bool, server: LoopbackServer) -> str:
    """The URL to ask for `server` at: itself, or through it as the proxy (https and proxied
    requests go through httpx: run.http.via_httpx)."""
    if not proxied:
        return server.url + "/"
    monkeypatch.setenv("HTTP_PROXY", server.url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    return "http://api.example.test/"


both_routes = pytest.mark.parametrize("proxied", [False, True], ids=["plain", "httpx"])


def timed_failure(client: HttpClient, url: str, timeout: float) -> tuple[str, float]:
    started = time.perf_counter()
    with pytest.raises(RequestFailed) as caught:
        client.send(client.build("GET", url, [], [], None), timeout, Setting(timeout, "file", 2))
    return str(caught.value), time.perf_counter() - started


@both_routes
@pytest.mark.parametrize(
    "parts",
    [
        (),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n",),
        # A byte every 0.5 s for a minute: each read well within the timeout, so only one deadline
        # over the whole request stops these; a timeout per read would wait for all of it.
        (b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", *[0.5, b"a"] * 120),
        (b"HTTP/1.1 200 OK\r\nX-Slow: ", *[0.5, b"a"] * 120),
    ],
    ids=["no-answer", "head-only", "stalls-mid-body", "stalls-mid-head"],
)
def test_one_deadline_bounds_a_server_that_stalls(monkeypatch, proxied, parts):
    with Stalling(*parts) as server:
        url = through(monkeypatch, proxied, server)
        with opened() as client:
            message, took = timed_failure(client, url, 1)
    assert message == "timed out after 1 s (timeout: file, line 2)"
    assert 0.9 < took < 15  # the deadline, not the hour of silence or the minute of trickling


@contextmanager
def full_accept_queue() -> Iterator[int]:
    """The port of a listening socket whose accept queue is full: the kernel drops further SYNs,
    so a connect to it waits (Linux; elsewhere it may be refused at once)."""
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen(0)
        port = listening.getsockname()[1]
        queued = []
        for _ in range(3):
            pending = socket.socket()
            pending.setblocking(False)
            pending.connect_ex(("127.0.0.1", port))
            queued.append(pending)
        try:
            yield port
        finally:
            for pending in queued:
                pending.close()


@both_routes
def test_one_deadline_bounds_a_slow_connect(monkeypatch, proxied):
    with full_accept_queue() as port:
        url = f"http://127.0.0.1:{port}/"
        if proxied:  # the proxy is the one that does not answer
            monkeypatch.setenv("HTTP_PROXY", url)
            monkeypatch.delenv("NO_PROXY", raising=False)
            monkeypatch.delenv("no_proxy", raising=False)
            url = "http://api.example.test/"
        with opened() as client:
            message, took = timed_failure(client, url, 0.5)
    if "refused" in message:
        pytest.skip("this system refuses a connection to a full accept queue")
    assert message == "timed out after 0.5 s (timeout: file, line 2)"
    assert 0.4 < took < 15  # the deadline, not the kernel giving up on the connect (minutes)


def test_one_deadline_bounds_a_connect_across_the_hosts_addresses(monkeypatch):
    # Each address that does not answer takes from the same deadline, not a timeout of its own:
    # 100 addresses with 0.5 s each would take 50 s.
    with full_accept_queue() as port:
        many = [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", ("127.0.0.1", port))] * 100
        monkeypatch.setattr(socket, "getaddrinfo", lambda *args, **kwargs: many)
        with opened() as client:
            message, took = timed_failure(client, f"http://twice.test:{port}/", 0.5)
    if "refused" in message:
        pytest.skip("this system refuses a connection to a full accept queue")
    assert message == "timed out after 0.5 s (timeout: file, line 2)"
    assert 0.4 < took < 15


# ---------------------------------------------------------------- redirects


def redirect(status: int, location: str) -> bytes:
    return f"HTTP/1.1 {status} Moved\r\nLocation: {location}\r\nContent-Length: 0\r\n\r\n".encode()


def test_redirects_are_followed_across_origins_as_a_browser_would():
    with RawServer([b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nthere"]) as other:
        replies = [redirect(307, "/kept"), redirect(303, f"{other.url}/elsewhere")]
        with RawServer(replies) as first:
            with opened() as client:
                built = client.build("POST", first.url + "/start", [("Authorization", "Bearer t")], [], b"{}")
                result = client.send(built, 5, follow_redirects=True)
    assert (result.status, result.body) == (200, "there")
    assert first.requests[1].startswith(b"POST /kept HTTP/1.1\r\n") and first.requests[1].endswith(b"{}")
    moved = other.requests[0]
    assert moved.startswith(b"GET /elsewhere HTTP/1.1\r\n") and b"Authorization" not in moved
    assert first.connections == 1  # both hops to the first server on one kept-alive connection


def test_a_redirect_is_answered_as_it_is_unless_followed():
    with RawServer([redirect(302, "/next")]) as server:
        result = fetch(server.url)
    assert (result.status, dict(result.headers)["Location"]) == (302, "/next")


def test_endless_redirects_stop_with_one_line():
    with RawServer([redirect(302, f"/hop{i}") for i in range(20)]) as server:
        with opened() as client:
            with pytest.raises(RequestFailed) as caught:
                client.send(client.build("GET", server.url, [], [], None), 5, follow_redirects=True)
    assert str(caught.value) == "stopped after 10 redirects (followRedirects: true); the last went to /hop10"


@both_routes
def test_one_deadline_bounds_sending_a_body_the_server_never_reads(monkeypatch, proxied):
    with Stalling() as server:  # reads the head only: the body fills the buffers, then waits
        url = through(monkeypatch, proxied, server)
        with opened() as client:
            started = time.perf_counter()
            with pytest.raises(RequestFailed) as caught:
                request = client.build("POST", url, [], [], b"b" * (32 << 20))
                client.send(request, 0.8, Setting(0.8, "file", 2))
            took = time.perf_counter() - started
    assert str(caught.value) == "timed out after 0.8 s (timeout: file, line 2)"
    assert 0.7 < took < 15  # the deadline, not the hour the server waits without reading


def test_cookies_go_back_to_their_server_until_reset():
    replies = [b"HTTP/1.1 200 OK\r\nSet-Cookie: session=abc; Path=/\r\nContent-Length: 0\r\n\r\n"]
    replies += [b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"] * 2
    with RawServer(replies) as server:
        with opened() as client:
            for _ in range(2):
                request(client, server.url + "/a")
            client.reset_cookies()  # a new scenario
            request(client, server.url + "/a")
    cookies = [b"\r\nCookie: session=abc\r\n" in sent_request for sent_request in server.requests]
    assert cookies == [False, True, False]


def _name(host: str | bytes) -> str:
    """The host getaddrinfo was asked for (the blocking transport passes an ASCII name as bytes)."""
    return host.decode("ascii") if isinstance(host, bytes) else host


def test_one_deadline_bounds_a_slow_name_lookup(monkeypatch):
    resolve = socket.getaddrinfo
    released = threading.Event()

    def slow(host, port, family=0, kind=0, protocol=0, flags=0):
        if _name(host) == "slow-dns.test" and not flags & socket.AI_NUMERICHOST:  # a resolver that hangs
            released.wait(60)  # a minute, or until the test is done with it
        return resolve(host, port, family, kind, protocol, flags)

    monkeypatch.setattr(socket, "getaddrinfo", slow)
    try:
        with opened() as client:
            message, took = timed_failure(client, "http://slow-dns.test/", 0.5)
    finally:
        released.set()
    assert message == "timed out after 0.5 s (timeout: file, line 2)"
    assert 0.4 < took < 15  # the deadline, not the minute the resolver hangs


def test_a_name_that_does_not_resolve_is_one_line(monkeypatch):
    resolve = socket.getaddrinfo

    def unknown(host, port, family=0, kind=0, protocol=0, flags=0):
        if _name(host) == "nowhere.test":
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return resolve(host, port, family, kind, protocol, flags)

    monkeypatch.setattr(socket, "getaddrinfo", unknown)
    with opened() as client:
        message, _ = timed_failure(client, "http://nowhere.test/x", 5)
    assert message == "cannot resolve host of http://nowhere.test/x: Name or service not known"
