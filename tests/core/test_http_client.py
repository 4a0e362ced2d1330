"""The HTTP layer: URL joining, one deadline per request, one-line transport messages, and the
HTTP/1.1 keep-alive transport (against the demo API, and a raw socket server for framing cases)."""

from __future__ import annotations

import asyncio
import gzip
import socket
import ssl
import time

import httpx
import pytest

from scenario_core.parameters.resolution import Setting
from scenario_core.run.http.body import parse_json
from scenario_core.run.http.client import HttpClient, describe_timeout, join_url
from scenario_core.run.http.errors import RequestFailed, transport_message


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


async def request(client: HttpClient, url: str, *, method="GET", timeout=5.0, body=None):
    return await client.send(client.build(method, url, [], [], body), timeout)


async def test_requests_reuse_one_connection(demo):
    client = HttpClient()
    try:
        for _ in range(10):
            result = await request(client, demo.url + "/health")
            assert (result.status, result.body) == (200, '{"status": "ok"}')
        posted = await request(client, demo.url + "/echo", method="POST", body=b'{"a": 1}')
        assert '"json": {"a": 1}' in posted.body
    finally:
        await client.aclose()
    assert demo.connections_accepted == 1


async def test_one_deadline_bounds_the_whole_request(demo):
    client = HttpClient()
    started = time.perf_counter()
    try:
        with pytest.raises(RequestFailed) as caught:
            await client.send(
                client.build("GET", demo.url + "/trickle?ms=200&chunks=20", [], [], None), 1, Setting(1, "file", 3)
            )
        took = time.perf_counter() - started
        assert str(caught.value) == "timed out after 1 s (timeout: file, line 3)"
        assert 0.9 < took < 1.5
        # The connection that timed out is dropped; the next request gets a fresh one and works.
        assert (await request(client, demo.url + "/health")).status == 200
    finally:
        await client.aclose()


async def test_a_refused_connection(demo):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = HttpClient()
    try:
        with pytest.raises(RequestFailed) as caught:
            await request(client, f"http://127.0.0.1:{port}/")
    finally:
        await client.aclose()
    assert str(caught.value) == f"cannot connect to 127.0.0.1:{port}: connection refused"


# ---------------------------------------------------------------- framing, with a raw server


class RawServer:
    """Answers each request on a connection with the next canned reply; then maybe closes."""

    def __init__(self, replies: list[bytes], close_after: bool = False):
        self.replies, self.close_after = replies, close_after
        self.connections = 0
        self.requests: list[bytes] = []

    async def __aenter__(self):
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"
        return self

    async def __aexit__(self, *exc):
        self.server.close()
        await self.server.wait_closed()

    async def handle(self, reader, writer):
        self.connections += 1
        try:
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
        except asyncio.IncompleteReadError:
            pass
        writer.close()


async def fetch(url: str, method: str = "GET"):
    client = HttpClient()
    try:
        return await request(client, url, method=method)
    finally:
        await client.aclose()


async def test_chunked_bodies_with_trailers():
    reply = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n"
        b'4;ext=1\r\n{"a"\r\n5\r\n: 12}\r\n0\r\nX-Trailer: t\r\n\r\n'
    )
    async with RawServer([reply]) as server:
        result = await fetch(server.url + "/x")
    assert (result.status, result.body) == (200, '{"a": 12}')


async def test_interim_responses_are_skipped():
    reply = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok"
    async with RawServer([reply]) as server:
        result = await fetch(server.url)
    assert (result.status, result.reason, result.body) == (201, "Created", "ok")


async def test_a_body_delimited_by_the_end_of_the_connection():
    async with RawServer([b"HTTP/1.0 200 OK\r\n\r\nall of it"], close_after=True) as server:
        result = await fetch(server.url)
    assert result.body == "all of it"


async def test_no_body_for_head_and_204_even_with_a_length():
    replies = [
        b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n",
        b"HTTP/1.1 204 No Content\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
    ]
    async with RawServer(replies) as server:
        client = HttpClient()
        try:
            head = await request(client, server.url, method="HEAD")
            empty = await request(client, server.url, method="DELETE")
            after = await request(client, server.url)
        finally:
            await client.aclose()
    assert (head.status, head.body, empty.status, empty.body, after.body) == (200, "", 204, "", "ok")
    assert server.connections == 1


async def test_a_kept_alive_connection_closed_by_the_server_is_replaced():
    replies = [b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na", b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nb"]
    async with RawServer(replies, close_after=True) as server:
        client = HttpClient()
        try:
            first = await request(client, server.url)
            await asyncio.sleep(0.05)  # the server has closed the connection meanwhile
            second = await request(client, server.url)
        finally:
            await client.aclose()
    assert (first.body, second.body, server.connections) == ("a", "b", 2)


async def test_connection_close_is_honoured_and_gzip_is_decoded():
    payload = gzip.compress(b'{"z": 1}')
    replies = [
        b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Encoding: gzip\r\nContent-Length: "
        + str(len(payload)).encode()
        + b"\r\n\r\n"
        + payload,
        b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nb",
    ]
    async with RawServer(replies) as server:
        client = HttpClient()
        try:
            first = await request(client, server.url)
            second = await request(client, server.url)
        finally:
            await client.aclose()
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
async def test_broken_responses_fail_with_one_line(reply, message):
    async with RawServer([reply], close_after=True) as server:
        with pytest.raises(RequestFailed) as caught:
            await fetch(server.url)
    assert message in str(caught.value) and "\n" not in str(caught.value)


async def test_the_request_is_sent_as_built():
    async with RawServer([b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"]) as server:
        client = HttpClient()
        try:
            built = client.build("POST", server.url + "/p?a=1", [("X-A", "b")], [("q", "x y")], b"{}")
            await client.send(built, 5)
        finally:
            await client.aclose()
    sent = server.requests[0]
    assert sent.startswith(b"POST /p?a=1&q=x+y HTTP/1.1\r\n")
    assert b"\r\nX-A: b\r\n" in sent and b"\r\nContent-Length: 2\r\n" in sent and sent.endswith(b"\r\n\r\n{}")
    assert b"\r\nUser-Agent: scenario-tui\r\n" in sent


@pytest.mark.parametrize(
    "content_type, raw, text",
    [
        (b"text/plain; charset=latin-1", "café".encode("latin-1"), "café"),
        (b'text/plain; Charset="UTF-8"', "café".encode(), "café"),
        (b"text/plain; charset=nonsense", "café".encode(), "café"),
        (b"application/octet-stream", b"\xff\xfeok", "\ufffd\ufffdok"),
    ],
)
async def test_bodies_decode_with_the_named_charset(content_type, raw, text):
    reply = (
        b"HTTP/1.1 200 OK\r\nContent-Type: "
        + content_type
        + b"\r\nContent-Length: "
        + str(len(raw)).encode()
        + b"\r\n\r\n"
        + raw
    )
    async with RawServer([reply]) as server:
        result = await fetch(server.url)
    assert result.body == text
