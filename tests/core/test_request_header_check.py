"""Every header a request sends is checked once, on both transports, before a byte goes out:
a name is an RFC 9110 token, a value holds no CR, LF, NUL or other control character (a tab
is fine). Names and values made from a response (`header_{{x}}`, `X-A: {{x}}`), and the Cookie
header the jar builds from what a server set, all pass that check; a literal name that could
never be sent is `check`'s located error.

Real loopback servers record every request head they receive: a smuggled request would show."""

from __future__ import annotations

import asyncio
import json
import textwrap

import pytest

from scenario_core.language.errors import InvalidFileError
from scenario_core.language.parser import parse_text
from scenario_core.run.events import StepFinished
from scenario_core.run.http.errors import RequestFailed
from tests.core.http_doubles import LoopbackServer, both_routes, opened, run_events, through


class Recording(LoopbackServer):
    """Answers every request on a connection with the next of `replies` (the last one again once
    they run out) and keeps the first line of every request head it read."""

    def __init__(self, *replies: bytes):
        super().__init__()
        self.replies = list(replies)
        self.lines: list[bytes] = []

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            self.lines.append(head.split(b"\r\n", 1)[0])
            reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
            writer.write(reply)
            await writer.drain()


def reply(body: bytes, *headers: bytes) -> bytes:
    extra = b"".join(h + b"\r\n" for h in headers)
    return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s" % (
        extra,
        len(body),
        body,
    )


SMUGGLER = "X-A: 1\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: evil\r\nX-B"


def failures(events) -> list[str]:
    return [e.message for e in events if isinstance(e, StepFinished) and e.status == "failed"]


@both_routes
def test_a_header_name_from_a_response_never_smuggles_a_request(write_scenario, monkeypatch, proxied):
    with Recording(reply(json.dumps({"x": SMUGGLER}).encode())) as server:
        base = through(monkeypatch, proxied, server)
        path = write_scenario(f"""
            parameters:
              baseUrl: {base}
            scenario: smuggle
              given a value from the server
                call raw GET /value
                extract $.x => x
              when it names a header
                call raw GET /next
                  header_{{{{x}}}}: "v"
            """)
        events = run_events(str(path))
    assert [line.split(b" ")[1].rsplit(b"/", 1)[-1] for line in server.lines] == [b"value"]
    (message,) = failures(events)
    assert message == (
        r"header name 'X-A: 1\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: evil\r\nX-B' is not a valid "
        "header name (letters, digits and !#$%&'*+-.^_`|~ only)"
    )


@pytest.mark.parametrize(
    "value, problem",
    [
        ("a\x00b", r"a control character in its value: 'a\x00b'"),
        ("a\x0bb", r"a control character in its value: 'a\x0bb'"),
    ],
    ids=["nul", "vt"],
)
@both_routes
def test_control_characters_from_a_response_never_reach_a_header_value(
    write_scenario, monkeypatch, proxied, value, problem
):
    with Recording(reply(json.dumps({"x": value}).encode())) as server:
        base = through(monkeypatch, proxied, server)
        path = write_scenario(f"""
            parameters:
              baseUrl: {base}
            scenario: control
              when: GET /value
              extract: x from $.x
              when: GET /next
                headers:
                  X-Echo: {{{{x}}}}
            """)
        events = run_events(str(path))
    assert len(server.lines) == 1
    assert failures(events) == [f"header X-Echo has {problem}"]


def test_a_cookie_with_a_control_character_is_never_sent_back():
    # Our transport only: httpx refuses such a Set-Cookie line itself, as a protocol error.
    with Recording(reply(b"{}", b"Set-Cookie: session=a\x0bb; Path=/"), reply(b"{}")) as server:
        base = server.url
        with opened() as client:
            first = client.build("GET", base + "/login", [], [], None)
            client.send(first, 5)
            with pytest.raises(RequestFailed) as caught:
                second = client.build("GET", base + "/next", [], [], None)
                client.send(second, 5)
    assert str(caught.value) == r"header Cookie has a control character in its value: 'session=a\x0bb'"
    assert len(server.lines) == 1


def test_a_tab_and_visible_text_are_fine_in_a_value():
    from scenario_core.run.http.request import check_headers

    check_headers([("X-A", "a\tb ~!"), ("Accept", "*/*")])


def test_check_locates_a_literal_header_name_that_cannot_be_sent():
    text = textwrap.dedent("""\
        parameters:
          baseUrl: http://127.0.0.1:9
        scenario: literal names
          when: GET /x
            headers:
              X Bad: 1
          when I call
            call raw GET /y
              header_X(y): "v"
              header_{{fine}}: "v"
        """)
    with pytest.raises(InvalidFileError) as caught:
        parse_text(text, "t.scenario")
    assert [str(d) for d in caught.value.diagnostics] == [
        "t.scenario:6:7: error: 'X Bad' is not a valid header name: letters, digits and !#$%&'*+-.^_`|~ only",
        "t.scenario:9:7: error: 'X(y)' is not a valid header name (child 'header_X(y)'): "
        "letters, digits and !#$%&'*+-.^_`|~ only",
    ]
