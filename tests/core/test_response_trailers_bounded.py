"""Every byte of a response is bounded, trailers included: after a chunked body, the trailer
lines count with the body against maxResponseSize, and a single chunk or trailer line still
arriving is bounded as a header line is. Real loopback servers sending endless trailers."""

from __future__ import annotations

import asyncio

from tests.core.http_doubles import LoopbackServer
from tests.core.test_http_hardening import Misbehaving, failure, fetch_one

CHUNKED_HEAD = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n"


async def endless_trailer_lines(writer: asyncio.StreamWriter) -> None:
    writer.write(CHUNKED_HEAD)
    line = b"X-Trailer: " + b"t" * 1000 + b"\r\n"
    while True:
        writer.write(line * 64)
        await writer.drain()


async def one_endless_trailer_line(writer: asyncio.StreamWriter) -> None:
    writer.write(CHUNKED_HEAD + b"X-Trailer: ")
    while True:
        writer.write(b"t" * 65536)
        await writer.drain()


def test_endless_trailer_lines_stop_at_the_response_size_limit():
    with Misbehaving([endless_trailer_lines]) as server:
        message = failure(server.url, max_size=100_000)
    assert message == (
        "the response (its body and trailers) is over the limit of 100000 bytes (maxResponseSize: file, line 3)"
    )


def test_one_endless_trailer_line_stops_at_the_header_line_limit():
    with Misbehaving([one_endless_trailer_line]) as server:
        message = failure(server.url)
    assert message.endswith(
        "broke the HTTP protocol: a chunk or trailer line of the response is over 1048576 bytes (built-in limit)"
    )


def test_trailers_within_the_limit_are_read_and_the_connection_kept():
    reply = CHUNKED_HEAD + b"X-Trailer: t\r\n\r\n"
    with Misbehaving([reply, reply]) as server:
        first = fetch_one(server.url, max_size=100)
        second = fetch_one(server.url, max_size=100)
    assert (first.content, second.content) == (b"hello", b"hello")
    assert "X-Trailer" not in dict(first.headers)


class Proxy(LoopbackServer):
    """Endless trailer lines, served to httpx (which sends through a proxy)."""

    async def handle(self, reader, writer):
        await reader.readuntil(b"\r\n\r\n")
        await endless_trailer_lines(writer)


def test_endless_trailers_through_httpx_are_a_one_line_failure(monkeypatch):
    with Proxy() as server:
        monkeypatch.setenv("HTTP_PROXY", server.url)
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        message = failure("http://api.example.test/", max_size=100_000)
    assert message.startswith("api.example.test broke the HTTP protocol:")
