"""Hardening the HTTP layer against a misbehaving server: body size caps (raw and decoded), the
timeout as a total deadline, framing errors as one line, no reuse of a half-read connection,
JSON that Python refuses to read, and a fuzz over mutated responses.

Every test talks to a real loopback server that sends exactly the bytes the test gives."""

from __future__ import annotations

import asyncio
import gzip
import os
import time
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scenario_core.parameters.resolution import RunOverrides, Setting
from scenario_core.run.events import ResponseReceived, StepFinished
from scenario_core.run.http.body import parse_json
from scenario_core.run.http.client import HttpClient, HttpResult
from scenario_core.run.http.errors import RequestFailed
from tests.core.http_doubles import LoopbackServer, opened, run_events

MiB = 1 << 20


class Misbehaving(LoopbackServer):
    """A loopback server (in a thread of its own). Each accepted connection answers its requests, in
    order, with the next reply: bytes sent as they are, or a list of bytes and pauses (floats,
    seconds), or an async function of the writer (for endless bodies). `close=True` closes after
    each reply."""

    def __init__(self, replies, close: bool = False):
        super().__init__()
        self.replies, self.close = list(replies), close

    def __enter__(self):
        super().__enter__()
        self.url += "/"
        return self

    async def handle(self, reader, writer):
        while self.replies:
            await reader.readuntil(b"\r\n\r\n")  # the tests send no request bodies
            reply = self.replies.pop(0)
            if callable(reply):
                await reply(writer)
            else:
                for part in reply if isinstance(reply, list) else [reply]:
                    if isinstance(part, float):
                        await asyncio.sleep(part)
                    else:
                        writer.write(part)
                        await writer.drain()
            if self.close:
                break


def get(
    client: HttpClient, url: str, *, timeout: float = 5, max_size: int | None = None, method: str = "GET"
) -> HttpResult:
    extra = {} if max_size is None else {"max_size": max_size, "max_size_setting": Setting(max_size, "file", 3)}
    request = client.build(method, url, [], [], None)
    return client.send(request, timeout, Setting(timeout, "file", 2), **extra)


def fetch_one(url: str, **options) -> HttpResult:
    with opened() as client:
        return get(client, url, **options)


def ok(body: bytes, *headers: bytes) -> bytes:
    return (
        b"HTTP/1.1 200 OK\r\n"
        + b"".join(h + b"\r\n" for h in headers)
        + b"Content-Length: "
        + str(len(body)).encode()
        + b"\r\n\r\n"
        + body
    )


def chunked(*pieces: bytes) -> bytes:
    return b"".join(f"{len(p):x}\r\n".encode() + p + b"\r\n" for p in pieces) + b"0\r\n\r\n"


def failure(url: str, **options) -> str:
    with pytest.raises(RequestFailed) as caught:
        fetch_one(url, **options)
    message = str(caught.value)
    assert "\n" not in message
    return message


# ---------------------------------------------------------------- 5. limits on what a server sends


def test_body_over_cap_content_length():
    with Misbehaving([ok(b"x" * 2000)]) as server:
        message = failure(server.url, max_size=1000)
    assert message == (
        "the response body (2000 bytes, its Content-Length) is over the limit of 1000 bytes "
        "(maxResponseSize: file, line 3)"
    )


def test_body_over_cap_chunked():
    reply = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked(*[b"y" * 300] * 10)
    with Misbehaving([reply]) as server:
        message = failure(server.url, max_size=1000)
    assert message == "the response body is over the limit of 1000 bytes (maxResponseSize: file, line 3)"


def test_body_over_cap_close_delimited():
    with Misbehaving([b"HTTP/1.1 200 OK\r\n\r\n" + b"z" * 5000], close=True) as server:
        message = failure(server.url, max_size=1000)
    assert message.startswith("the response body is over the limit of 1000 bytes")


def test_body_at_the_cap_is_accepted():
    with Misbehaving(
        [ok(b"x" * 1000), b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked(b"a" * 500, b"b" * 500)]
    ) as server:
        with opened() as client:
            first = get(client, server.url, max_size=1000)
            second = get(client, server.url, max_size=1000)
    assert (len(first.content), second.content) == (1000, b"a" * 500 + b"b" * 500)


def test_a_stated_length_over_the_cap_without_a_body_is_fine():
    replies = [
        b"HTTP/1.1 200 OK\r\nContent-Length: 999999999\r\n\r\n",
        b"HTTP/1.1 304 Not Modified\r\nContent-Length: 999999999\r\n\r\n",
    ]
    with Misbehaving(replies) as server:
        with opened() as client:
            head = get(client, server.url, method="HEAD", max_size=10)
            cached = get(client, server.url, max_size=10)
    assert (head.status, head.content, cached.status, cached.content) == (200, b"", 304, b"")


def _gzip_bomb(inflated: int) -> bytes:
    """A gzip stream of `inflated` zero bytes, built in milliseconds: after a full flush a deflate
    block of 1 MiB of zeros is byte-aligned and independent, so it can be repeated. (Its trailer's
    CRC is wrong; the cap stops reading long before it.)"""
    compressor = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    zeros = bytes(MiB)
    first = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    block = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    return first + block * (inflated // MiB - 1) + compressor.flush()


def test_gzip_bomb_over_cap_decoded():
    bomb = _gzip_bomb(1 << 30)  # about 1 MB that inflates to 1 GiB; the default cap is 100 MiB
    assert len(bomb) < 1_100_000
    with Misbehaving([ok(bomb, b"Content-Encoding: gzip")]) as server:
        with opened() as client:
            with pytest.raises(RequestFailed) as caught:
                client.send(client.build("GET", server.url, [], [], None), 10)
    assert str(caught.value) == "the response body, decoded (gzip), is over the limit of 104857600 bytes"


def test_gzip_and_deflate_bodies_within_the_cap_are_decoded():
    raw_deflate = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    replies = [
        ok(gzip.compress(b'{"a": 1}' * 100), b"Content-Encoding: gzip"),
        ok(zlib.compress(b"zlib" * 10), b"Content-Encoding: deflate"),
        ok(raw_deflate.compress(b"raw" * 10) + raw_deflate.flush(), b"Content-Encoding: deflate"),
        ok(b"not gzip at all", b"Content-Encoding: gzip"),
    ]
    with Misbehaving(replies) as server:
        with opened() as client:
            results = [get(client, server.url, max_size=800) for _ in range(3)]
            with pytest.raises(RequestFailed) as caught:
                get(client, server.url)
    assert [r.content for r in results] == [b'{"a": 1}' * 100, b"zlib" * 10, b"raw" * 10]
    assert str(caught.value).startswith("the response body is not valid gzip: ")


def test_a_highly_compressed_body_within_the_cap_is_decoded_whole():
    body = bytes(5 * MiB) + b"end"  # each small piece of input inflates to several 1 MiB steps
    raw = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    replies = [
        ok(gzip.compress(body), b"Content-Encoding: gzip"),
        ok(raw.compress(body) + raw.flush(), b"Content-Encoding: deflate"),
    ]
    with Misbehaving(replies) as server:
        with opened() as client:
            results = [get(client, server.url, max_size=len(body)) for _ in range(2)]
    assert [r.content == body for r in results] == [True, True]


def test_stacked_content_encodings_are_decoded_last_applied_first():
    stacked = gzip.compress(zlib.compress(b"two layers"))
    with Misbehaving([ok(stacked, b"Content-Encoding: deflate", b"Content-Encoding: gzip")]) as server:
        result = fetch_one(server.url)
    assert result.content == b"two layers"


def test_slow_endless_body_stops_at_the_timeout():
    async def endless(writer):
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        while True:
            writer.write(b"400\r\n" + b"s" * 1024 + b"\r\n")
            await writer.drain()
            await asyncio.sleep(0.01)

    with Misbehaving([endless]) as server:
        started = time.perf_counter()
        message = failure(server.url, timeout=1)
        took = time.perf_counter() - started
    assert message == "timed out after 1 s (timeout: file, line 2)"
    assert 0.9 <= took < 15  # the timeout (a hair early on another clock), not the body that never ends


def test_fast_endless_body_stops_at_the_cap():
    async def flood(writer):
        writer.write(b"HTTP/1.1 200 OK\r\n\r\n")
        piece = b"f" * MiB
        while True:
            writer.write(piece)
            await writer.drain()

    with Misbehaving([flood]) as server:
        started = time.perf_counter()
        message = failure(server.url, timeout=60, max_size=20 * MiB)
    assert message.startswith("the response body is over the limit of 20971520 bytes")
    assert time.perf_counter() - started < 15  # the cap, not the 60 s timeout


def test_max_response_size_is_a_scenario_parameter(write_scenario):
    with Misbehaving([ok(b"x" * 600)]) as server:
        path = write_scenario(f"""
            parameters:
              maxResponseSize: 500
              baseUrl: {server.url}
            scenario: big
              when: GET /
            """)
        events = run_events(str(path))
    step = next(e for e in events if isinstance(e, StepFinished))
    assert step.message == (
        "the response body (600 bytes, its Content-Length) is over the limit of 500 bytes "
        "(maxResponseSize: file, line 2)"
    )


def test_max_response_size_from_the_command_line():
    assert RunOverrides.from_cli(["maxResponseSize=2048"]).values["maxResponseSize"] == 2048


# ---------------------------------------------------------------- 6. framing by a well-kept parser


@pytest.mark.parametrize(
    "reply, problem",
    [
        (b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "invalid Content-Length '-1'"),
        (
            b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
            "conflicting Content-Length headers: '3', '4'",
        ),
        (
            b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
            "both Content-Length and Transfer-Encoding: chunked",
        ),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nabc\r\n0\r\n\r\n",
            "invalid chunk size (invalid character in chunk size)",
        ),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffffff\r\n", "invalid chunk size"),
        (b"HTTP/1.1 2000 OK\r\n\r\n", "invalid response status"),
    ],
    ids=["negative-length", "conflicting-lengths", "length-and-chunked", "negative-chunk", "chunk-overflow", "status"],
)
def test_negative_or_conflicting_lengths_are_one_line_protocol_errors(reply, problem):
    with Misbehaving([reply], close=True) as server:
        message = failure(server.url)
    host = server.url[len("http://") : -1]
    assert message.startswith(f"{host} broke the HTTP protocol: {problem}")


def test_control_characters_in_a_header_value_are_kept_for_the_user_to_see():
    # RFC 9110 forbids them, but a debugger must show what the server sent (as escapes), not
    # drop the response; the framing around them stays strict.
    with Misbehaving([ok(b"{}", b"X-Evil: a\x00b\x1b[2J")], close=True) as server:
        result = fetch_one(server.url)
    assert ("X-Evil", "a\x00b\x1b[2J") in result.headers


def test_response_headers_too_large():
    reply = b"HTTP/1.1 200 OK\r\n" + b"X-Big: " + b"h" * (2 * MiB) + b"\r\n\r\n"
    with Misbehaving([reply], close=True) as server:
        message = failure(server.url)
    assert message.endswith("broke the HTTP protocol: response headers too large")


def test_a_too_long_content_length_does_not_poison_the_next_response():
    # The first reply promises 10 bytes and sends 5: it times out; the next request must not
    # read the rest of that connection as its response.
    replies = [[b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", 3.0, b"HTTP/1.1 200 OK\r\n"], ok(b"second")]
    with Misbehaving(replies) as server:
        with opened() as client:
            with pytest.raises(RequestFailed):
                get(client, server.url, timeout=1)
            second = get(client, server.url)
    assert (second.content, server.connections) == (b"second", 2)


def test_bytes_after_a_complete_response_are_never_read_as_the_next_one():
    # Bytes beyond Content-Length, in the same segment or arriving later, leave the
    # connection unusable: it is closed, not pooled.
    replies = [ok(b"ok") + b"EXTRA", ok(b"two"), [ok(b"three"), 0.05, b"HTTP/1.1 404 Junk\r\n\r\n"], ok(b"four")]
    with Misbehaving(replies) as server:
        with opened() as client:
            bodies = []
            for _ in range(4):
                bodies.append((get(client, server.url)).content)
                time.sleep(0.1)
    assert bodies == [b"ok", b"two", b"three", b"four"]
    assert server.connections == 3


def test_a_body_over_the_cap_closes_its_connection():
    # (A body over the cap that came whole with its head leaves a clean connection; this one cannot.)
    with Misbehaving([ok(b"x" * 500_000), ok(b"next")]) as server:
        with opened() as client:
            with pytest.raises(RequestFailed):
                get(client, server.url, max_size=100_000)
            after = get(client, server.url)
    assert (after.content, server.connections) == (b"next", 2)


def test_a_half_read_chunked_body_closes_its_connection():
    big = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked(*[b"c" * 40_000] * 5)
    with Misbehaving([big, ok(b"next")]) as server:
        with opened() as client:
            with pytest.raises(RequestFailed):
                get(client, server.url, max_size=100_000)
            after = get(client, server.url)
    assert (after.content, server.connections) == (b"next", 2)


def test_a_large_body_within_the_cap_is_read_whole_and_the_connection_kept():
    body = bytes(range(256)) * 4096  # 1 MiB, many reads
    chunked_reply = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked(body[:300_000], body[300_000:])
    with Misbehaving([ok(body), chunked_reply, ok(b"last")]) as server:
        with opened() as client:
            results = [get(client, server.url) for _ in range(3)]
    assert [r.content for r in results] == [body, body, b"last"]
    assert server.connections == 1


def test_head_responses_and_interim_responses_keep_the_connection():
    replies = [
        b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n",
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" + ok(b"after 1xx"),
        b"HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n",
        ok(b"last"),
    ]
    with Misbehaving(replies) as server:
        with opened() as client:
            head = get(client, server.url, method="HEAD")
            interim = get(client, server.url)
            cached = get(client, server.url)
            last = get(client, server.url)
    assert (head.status, head.content, interim.status, interim.content) == (200, b"", 200, b"after 1xx")
    assert (cached.status, cached.content, last.content, server.connections) == (304, b"", b"last", 1)
    assert dict(interim.headers).get("Link") is None  # the interim response's headers are not kept


# ---------------------------------------------------------------- JSON Python declines to read


def test_no_traceback_on_a_huge_integer_in_a_response():
    value, problem = parse_json(b'{"id": ' + b"7" * 5000 + b"}")
    assert value is None
    assert problem == "the response JSON has an integer of 5000 digits, over Python's limit of 4300 digits"
    assert parse_json(b"[" + b"1" * 4300 + b"]")[0] == [int("1" * 4300)]


@pytest.mark.parametrize("depth", [500, 100_000])
def test_deeply_nested_json_does_not_raise(depth):
    value, problem = parse_json(b'{"a": ' * depth + b"1" + b"}" * depth)
    if depth == 500:  # within the interpreter's limit: kept
        assert problem is None and isinstance(value, dict)
    else:
        assert value is None and problem.startswith("the response JSON is nested too deeply to read")


@pytest.mark.parametrize(
    "body, message",
    [
        (
            b'{"id": ' + b"9" * 5000 + b"}",
            "cannot extract v from $.id: the response JSON has an integer of 5000 digits, over Python's limit of 4300 digits",
        ),
        (b"[" * 100_000 + b"]" * 100_000, "cannot extract v from $.id: the response JSON is nested too deeply to read"),
    ],
    ids=["huge-integer", "100000-levels"],
)
def test_a_scenario_fails_one_line_on_json_python_declines(write_scenario, body, message):
    with Misbehaving([ok(body, b"Content-Type: application/json")]) as server:
        path = write_scenario(f"""
            parameters:
              baseUrl: {server.url}
            scenario: odd json
              when: GET /
              then: status 200
              extract: v from $.id
            """)
        events = run_events(str(path))
    assert next(e for e in events if isinstance(e, ResponseReceived)).status == 200
    steps = [e for e in events if isinstance(e, StepFinished)]
    assert [s.status for s in steps] == ["passed", "passed", "failed"]
    assert steps[-1].message.startswith(message) and "\n" not in steps[-1].message


# ---------------------------------------------------------------- fuzz


SEEDS = [
    ok(b'{"id": 1, "name": "Rex"}', b"Content-Type: application/json"),
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked(b'{"a"', b": 1}"),
    b"HTTP/1.1 100 Continue\r\n\r\n" + ok(b"after"),
    b"HTTP/1.0 200 OK\r\nConnection: close\r\n\r\nclose-delimited",
    ok(gzip.compress(b'{"z": [1, 2, 3]}'), b"Content-Encoding: gzip"),
    b"HTTP/1.1 204 No Content\r\nContent-Length: 7\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\nContent-Encoding: deflate\r\n\r\n"
    + chunked(zlib.compress(b"deflated")),
]
TOKENS = [
    b"\r\n",
    b"\r\n\r\n",
    b"\n",
    b" ",
    b":",
    b"-1",
    b"0",
    b"ffffffffffffffff",
    b"99999999999999999999",
    b"Content-Length: ",
    b"Content-Length: 5\r\n",
    b"Transfer-Encoding: chunked\r\n",
    b"Content-Encoding: gzip\r\n",
    b"Connection: close\r\n",
    b"HTTP/1.1 ",
    b"HTTP/1.1 100 Continue\r\n\r\n",
    b"\x00",
    b"\xff",
    b"\x1f\x8b\x08\x00",
    b";ext=1",
]


@st.composite
def mutated_responses(draw):
    """(reply bytes, keep the connection open after it). Mutations land mostly on the boundaries
    that framing depends on (after a line break, a colon, a space), and anywhere else too."""
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(0, 4))):
        marks = [i + 1 for i, byte in enumerate(data) if byte in b"\n: "] + [len(data)]
        at = draw(st.sampled_from(marks) | st.integers(0, len(data)))
        kind = draw(st.sampled_from(["insert", "delete", "replace", "flip", "truncate", "repeat"]))
        if kind == "insert":
            data[at:at] = draw(st.sampled_from(TOKENS) | st.binary(min_size=1, max_size=8))
        elif kind == "delete":
            del data[at : at + draw(st.integers(1, 8))]
        elif kind == "replace":
            data[at : at + draw(st.integers(1, 4))] = draw(st.sampled_from(TOKENS))
        elif kind == "flip" and data:
            data[min(at, len(data) - 1)] ^= 1 << draw(st.integers(0, 7))
        elif kind == "truncate":
            del data[at:]
        elif kind == "repeat":
            data += data[at:]
    return bytes(data), draw(st.booleans())


def _exchange_twice(reply: bytes, keep_open: bool) -> list[object]:
    """Two requests on one client: the second shows whether the first left the pool sound."""
    outcomes: list[object] = []
    with Misbehaving([reply, reply], close=not keep_open) as server:
        with opened() as client:
            for _ in range(2):
                try:
                    outcomes.append(get(client, server.url, timeout=0.25, max_size=4096))
                except RequestFailed as failed:
                    outcomes.append(failed)
    return outcomes


@pytest.mark.fuzz
@settings(
    max_examples=100 * int(os.environ.get("SCENARIO_FUZZ_SCALE", "1")),  # .ci/run's fuzz budget scales it
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(case=mutated_responses())
def test_fuzz_mutated_http_responses(case):
    """Any bytes a server sends end in a response or the project's one-line failure; nothing hangs
    (a short deadline) and nothing else escapes."""
    started = time.perf_counter()
    for outcome in _exchange_twice(*case):
        if isinstance(outcome, RequestFailed):
            assert str(outcome) and "\n" not in str(outcome)
        else:
            assert isinstance(outcome, HttpResult)
            parse_json(outcome.content)  # never raises
    assert time.perf_counter() - started < 15  # two 0.25 s deadlines, not a hang
