"""Plain http:// is sent as bytes we build (run.http.request, run.http.pool); https:// and
proxied requests go through httpx (run.http.via_httpx)."""

from __future__ import annotations

import asyncio

from scenario_core.run.http.client import HttpClient
from scenario_core.run.http.request import build_request

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


class Recorder:
    """Records each request head and answers OK."""

    def __init__(self) -> None:
        self.heads: list[bytes] = []

    async def __aenter__(self) -> Recorder:
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.server.close()
        await self.server.wait_closed()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                self.heads.append(await reader.readuntil(b"\r\n\r\n"))
                writer.write(OK)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()


async def test_a_proxy_named_by_the_environment_carries_plain_http(monkeypatch):
    async with Recorder() as proxy:
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.port}")
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        client = HttpClient()
        try:
            result = await client.send(client.build("GET", "http://api.example.test/pets", [], [], None), 5)
        finally:
            await client.aclose()
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


async def test_cookies_set_before_a_redirect_go_with_the_redirected_request():
    replies = [
        b"HTTP/1.1 302 Found\r\nLocation: /next\r\nSet-Cookie: s=1; Path=/\r\nContent-Length: 0\r\n\r\n",
        OK,
    ]

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while replies:
            heads.append(await reader.readuntil(b"\r\n\r\n"))
            writer.write(replies.pop(0))
            await writer.drain()
        writer.close()

    heads: list[bytes] = []
    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = HttpClient()
    try:
        request = client.build("GET", f"http://127.0.0.1:{port}/first", [], [], None)
        result = await client.send(request, 5, follow_redirects=True)
    finally:
        await client.aclose()
        server.close()
    assert result.status == 200
    assert heads[1].startswith(b"GET /next HTTP/1.1\r\n") and b"\r\nCookie: s=1\r\n" in heads[1]


async def test_a_url_userinfo_is_sent_as_basic_credentials_never_on_the_wire():
    # docs/cli.md: a URL's userinfo produces an Authorization: Basic header (masked when shown).
    async with Recorder() as server:
        client = HttpClient()
        try:
            url = f"http://ad%40min:s3cr%3At@127.0.0.1:{server.port}/pets"
            result = await client.send(client.build("GET", url, [], [], None), 5)
        finally:
            await client.aclose()
    assert result.status == 200
    head = server.heads[0].decode()
    assert "Authorization: Basic YWRAbWluOnMzY3I6dA==\r\n" in head  # base64 of "ad@min:s3cr:t"
    assert "s3cr" not in head and "@127.0.0.1" not in head


def test_a_step_authorization_header_wins_over_the_url_userinfo():
    request = build_request("GET", "http://u:p@h/x", [("Authorization", "Bearer t")], [], None)
    assert [v for n, v in request.headers if n == "Authorization"] == ["Bearer t"]
