"""Plain http:// is sent as bytes we build (run.http.request, run.http.pool); https:// and
proxied requests go through httpx (run.http.via_httpx)."""

from __future__ import annotations

import asyncio
import time

import pytest

from scenario_core.run.http.errors import RequestFailed
from scenario_core.run.http.request import build_request
from tests.core.http_doubles import (
    LoopbackServer,
    opened,
    self_signed_certificate,
    tls_server_context,
)

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


class Recorder(LoopbackServer):
    """Records each request head and answers OK."""

    def __init__(self) -> None:
        super().__init__()
        self.heads: list[bytes] = []

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            self.heads.append(await reader.readuntil(b"\r\n\r\n"))
            writer.write(OK)
            await writer.drain()


def test_a_proxy_named_by_the_environment_carries_plain_http(monkeypatch):
    with Recorder() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        with opened() as client:
            request = client.build("GET", "http://api.example.test/pets", [], [], None)
            result = client.send(request, 5)
    assert result.status == 200 and result.body == "ok"
    assert proxy.heads[0].startswith(b"GET http://api.example.test/pets HTTP/1.1\r\n")


def test_a_request_carries_the_default_headers_unless_the_step_sets_them():
    request = build_request("POST", "http://h:8080/a b?x=1", [("Accept", "application/json")], [("x", "2")], None)
    assert request.target == "/a%20b?x=2"
    assert request.url == "http://h:8080/a%20b?x=2"
    sent = dict(request.headers)
    assert sent["Host"] == "h:8080" and sent["Content-Length"] == "0"
    assert sent["Accept"] == "application/json" and sent["User-Agent"] == "scenario-tui"
    assert [name for name, _ in request.headers].count("Accept") == 1


class Redirecting(LoopbackServer):
    def __init__(self, replies: list[bytes]) -> None:
        super().__init__()
        self.replies, self.heads = replies, []

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while self.replies:
            self.heads.append(await reader.readuntil(b"\r\n\r\n"))
            writer.write(self.replies.pop(0))
            await writer.drain()


def test_cookies_set_before_a_redirect_go_with_the_redirected_request():
    replies = [
        b"HTTP/1.1 302 Found\r\nLocation: /next\r\nSet-Cookie: s=1; Path=/\r\nContent-Length: 0\r\n\r\n",
        OK,
    ]
    with Redirecting(replies) as server:
        with opened() as client:
            request = client.build("GET", f"{server.url}/first", [], [], None)
            result = client.send(request, 5, follow_redirects=True)
    assert result.status == 200
    assert server.heads[1].startswith(b"GET /next HTTP/1.1\r\n") and b"\r\nCookie: s=1\r\n" in server.heads[1]


def test_a_url_userinfo_is_sent_as_basic_credentials_never_on_the_wire():
    # docs/cli.md: a URL's userinfo produces an Authorization: Basic header (masked when shown).
    with Recorder() as server:
        with opened() as client:
            url = f"http://ad%40min:s3cr%3At@127.0.0.1:{server.port}/pets"
            result = client.send(client.build("GET", url, [], [], None), 5)
    assert result.status == 200
    head = server.heads[0].decode()
    assert "Authorization: Basic YWRAbWluOnMzY3I6dA==\r\n" in head  # base64 of "ad@min:s3cr:t"
    assert "s3cr" not in head and "@127.0.0.1" not in head


def test_a_step_authorization_header_wins_over_the_url_userinfo():
    request = build_request("GET", "http://u:p@h/x", [("Authorization", "Bearer t")], [], None)
    assert [v for n, v in request.headers if n == "Authorization"] == ["Bearer t"]


# ---------------------------------------------------------------- https (through httpx)


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    return self_signed_certificate(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def trusted(certificate, monkeypatch):
    """The test certificate trusted by the client (httpx reads SSL_CERT_FILE)."""
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))
    return certificate


class Silent(LoopbackServer):
    async def handle(self, reader, writer):
        await reader.readuntil(b"\r\n\r\n")
        await asyncio.sleep(3600)


def test_https_requests_share_one_connection(trusted):
    server = Recorder()
    server.tls = tls_server_context(*trusted)
    with server:
        with opened() as client:
            results = [client.send(client.build("GET", server.url + "/p", [], [], None), 5)]
            results.append(client.send(client.build("GET", server.url + "/q", [], [], None), 5))
    assert [(r.status, r.body) for r in results] == [(200, "ok"), (200, "ok")]
    assert [h.split(b"\r\n")[0] for h in server.heads] == [b"GET /p HTTP/1.1", b"GET /q HTTP/1.1"]
    assert server.connections == 1


def test_an_untrusted_https_certificate_is_a_one_line_tls_error(certificate, monkeypatch):
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    server = Recorder()
    server.tls = tls_server_context(*certificate)
    with server:
        with opened() as client:
            with pytest.raises(RequestFailed) as caught:
                client.send(client.build("GET", server.url, [], [], None), 5)
    message = str(caught.value)
    assert message.startswith(f"TLS error talking to 127.0.0.1:{server.port}: ") and "\n" not in message
    assert not caught.value.retryable


def test_one_deadline_bounds_an_https_server_that_never_answers(trusted):
    server = Silent()
    server.tls = tls_server_context(*trusted)
    with server:
        with opened() as client:
            started = time.perf_counter()
            with pytest.raises(RequestFailed) as caught:
                client.send(client.build("GET", server.url, [], [], None), 0.6)
            took = time.perf_counter() - started
    assert str(caught.value) == "timed out after 0.6 s"
    assert 0.5 < took < 15  # the deadline, not the server that never answers


class AnswersThenHangs(LoopbackServer):
    """Answers the first request on a connection, and never the second."""

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(OK)
        await writer.drain()
        await reader.readuntil(b"\r\n\r\n")
        await asyncio.sleep(3600)


def test_a_kept_alive_connection_waits_no_longer_than_the_new_requests_timeout():
    """The socket's timeout is set again only when the one it has would end a wait before the
    deadline or more than SLACK after it (run.http.connections): a connection kept from a request
    with a long timeout still ends a later request's wait at that request's own, shorter one."""
    with AnswersThenHangs() as server:
        with opened() as client:
            first = client.send(client.build("GET", server.url + "/a", [], [], None), 30)
            started = time.perf_counter()
            with pytest.raises(RequestFailed) as caught:
                client.send(client.build("GET", server.url + "/b", [], [], None), 0.4)
            took = time.perf_counter() - started
    assert first.status == 200 and server.connections == 1  # the second went on the kept connection
    assert str(caught.value) == "timed out after 0.4 s"
    assert 0.35 < took < 15  # its own deadline (an upper bound a busy machine cannot break)


def test_a_waits_socket_timeout_ends_it_at_the_deadline_within_a_tenth_of_the_time_left():
    """run.http.connections sets a socket's timeout again only when the one it has would end the
    coming wait before the deadline or too long after it: never before, at most SLACK after and
    at most a tenth of the time left (a 20 ms timeout ends within 2 ms). Bounds that hold
    however long the machine stalls between two lines."""
    import socket

    from scenario_core.run.http.connections import SLACK, SocketConnection

    ours, theirs = socket.socketpair()
    with ours, theirs:
        connection = SocketConnection(ours)
        for seconds in (30, 30, 2, 0.05, 0.02, 30, 0.02):
            deadline = time.monotonic() + seconds
            before = time.monotonic()
            connection._bound(deadline)
            after = time.monotonic()
            timeout = ours.gettimeout()
            assert timeout is not None
            assert after + timeout >= deadline  # a wait begun now never ends before the deadline
            assert before + timeout <= deadline + min(SLACK, seconds / 10)
