"""A redirect to another origin takes no credential along: Authorization, Proxy-Authorization,
Cookie, the API-key and token headers, and the headers `secrets:` names. To the same origin,
the request is made again as it was. Two real loopback servers (two ports: two origins), or, with
httpx sending, one loopback proxy asked for two host names."""

from __future__ import annotations

import asyncio

from scenario_core.run.events import StepFinished
from tests.core.http_doubles import LoopbackServer, both_routes, run_events, through

SENT = {
    "Authorization": "Bearer a",
    "Proxy-Authorization": "Basic b",
    "Cookie": "user=c",
    "X-Api-Key": "d",
    "Partner-API-Key": "e",
    "X-Session-Token": "f",
    "My-Token": "g",
    "X-Tenant": "h",
    "X-Trace": "kept",
}


class Answering(LoopbackServer):
    """Answers `GET /start` with a redirect to `location`, anything else with 200; keeps the
    headers of every request it read."""

    def __init__(self) -> None:
        super().__init__()
        self.location = ""
        self.requests: list[tuple[str, dict[str, str]]] = []

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            target = head[0].split(" ")[1]
            self.requests.append((target, dict(line.split(": ", 1) for line in head[1:] if line)))
            if target.endswith("/start"):
                writer.write(f"HTTP/1.1 302 Found\r\nLocation: {self.location}\r\nContent-Length: 0\r\n\r\n".encode())
            else:
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            await writer.drain()


def scenario(base: str) -> str:
    headers = "".join(f"      {name}: {value}\n" for name, value in SENT.items())
    return (
        f"parameters:\n  baseUrl: {base}\n  followRedirects: true\n  secrets: X-Tenant\n"
        f"scenario: redirected\n  when: GET /start\n    headers:\n{headers}  then: status 200\n"
    )


@both_routes
def test_a_redirect_to_another_origin_drops_every_credential(write_scenario, monkeypatch, proxied):
    with Answering() as first, Answering() as second:
        if proxied:  # one proxy, two origins by name: the proxy sees absolute targets
            base = through(monkeypatch, proxied, first, "one.example.test")
            first.location, landed, seen = "http://two.example.test/landed", "http://two.example.test/landed", first
        else:
            base, first.location, landed, seen = first.url, second.url + "/landed", "/landed", second
        events = run_events(str(write_scenario(scenario(base))))
    assert [e.status for e in events if isinstance(e, StepFinished)] == ["passed", "passed"]
    target, received = [request for request in seen.requests if not request[0].endswith("/start")][0]
    assert target == landed
    assert {name: received[name] for name in SENT if name in received} == {"X-Trace": "kept"}


@both_routes
def test_a_redirect_to_the_same_origin_keeps_the_headers(write_scenario, monkeypatch, proxied):
    with Answering() as server:
        server.location = "/landed"
        base = through(monkeypatch, proxied, server)
        run_events(str(write_scenario(scenario(base))))
    target, received = server.requests[1]
    assert target == base.removeprefix(server.url) + "/landed"
    assert {name: received.get(name) for name in SENT if name != "Cookie"} == {
        name: value for name, value in SENT.items() if name != "Cookie"
    }
