"""Fuzz (the `fuzz` budget, CONTRIBUTING.md): header names and values as templates can make
them (any text a response or a variable holds) never put a raw CR, LF or NUL on the wire, and
fail in one line naming the header; chunked responses with any trailers end in a response or a
one-line failure, and trailers over maxResponseSize always fail."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scenario_core.run.http.client import HttpClient, HttpResult
from scenario_core.run.http.errors import RequestFailed
from tests.core.test_http_hardening import Misbehaving, get, opened

SCALE = int(os.environ.get("SCENARIO_FUZZ_SCALE", "1"))  # .ci/run's fuzz budget scales it
TRICKY = "\r\n\x00\x0b\x0c\x1b\x7f\t :;,\"'()<>@[]{}?=/\\\u0085\u2028é"
texts = st.text(alphabet=st.sampled_from(TRICKY) | st.characters(max_codepoint=0x7F), max_size=24)


@pytest.mark.fuzz
@settings(max_examples=100 * SCALE, deadline=None, derandomize=True, database=None)
@given(name=texts, value=texts)
def test_fuzz_header_names_and_values_never_reach_the_wire_raw(name, value):
    client = HttpClient()
    try:
        request = client.build("GET", "http://127.0.0.1:9/x", [("X-Fixed", "1"), (name, value)], [], None)
    except RequestFailed as failed:
        message = str(failed)
        assert message.startswith("header ") and "\n" not in message and "\r" not in message
        return
    head = request.head_bytes()
    lines = head.split(b"\r\n")
    assert lines[-2:] == [b"", b""] and b"\x00" not in head
    assert len(lines) == len(request.headers) + 3  # the request line, one per header, the blank line
    assert not any(b"\n" in line or b"\r" in line for line in lines)
    assert all(c == 9 or 32 <= c < 127 for line in lines[1:-2] for c in line)


@st.composite
def trailer_sections(draw):
    """A chunked response's trailer lines: many or few, short or long, bytes of any kind."""
    count = draw(st.integers(0, 40))
    line = draw(st.binary(min_size=0, max_size=12).filter(lambda b: b"\r" not in b and b"\n" not in b))
    length = draw(st.sampled_from([1, 10, 100, 400]))
    return [b"X-T" + str(i).encode() + b": " + (line * length)[:length] for i in range(count)]


@pytest.mark.fuzz
@settings(
    max_examples=50 * SCALE,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(trailers=trailer_sections())
def test_fuzz_chunked_trailers_are_bounded(trailers):
    reply = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n"
        + b"".join(t + b"\r\n" for t in trailers)
        + b"\r\n"
    )
    limit = 2000

    def exchange() -> object:
        with Misbehaving([reply], close=True) as server:
            with opened() as client:
                try:
                    return get(client, server.url, timeout=2, max_size=limit)
                except RequestFailed as failed:
                    return failed

    outcome = exchange()
    size = 5 + sum(len(t.rstrip(b" \t")) + 2 for t in trailers)  # llhttp drops trailing blanks
    if isinstance(outcome, RequestFailed):
        assert "\n" not in str(outcome)
        if size <= limit:  # a valid section within the limit fails only as a protocol error
            assert "broke the HTTP protocol" in str(outcome), str(outcome)
    else:
        assert isinstance(outcome, HttpResult) and outcome.content == b"hello"
        assert size <= limit


@pytest.mark.fuzz
@settings(max_examples=200 * SCALE, deadline=None, derandomize=True, database=None)
@given(path=st.text(alphabet=st.sampled_from(TRICKY + "%~_.-+&$!*") | st.characters(max_codepoint=0x7F), max_size=24))
def test_fuzz_a_path_is_sent_as_urllib_quote_would_send_it(path):
    """build_request leaves a path of safe characters as it is instead of quoting it: exactly
    what quote() with the same safe characters gives, for any path."""
    from urllib.parse import quote

    from scenario_core.run.http.request import _PATH_SAFE, _split, build_request

    url = "http://127.0.0.1:9/" + path
    try:
        request = build_request("GET", url, [], [], None)
    except (ValueError, RequestFailed):
        return  # a URL that cannot be sent at all: refused whole, as before
    raw = _split(url.strip())[1]  # the path as the URL's split gives it
    assert request.target.split("?", 1)[0] == quote(raw or "/", safe=_PATH_SAFE)
