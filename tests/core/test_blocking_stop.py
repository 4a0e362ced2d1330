"""Issue 22: stopping a blocking run's request (Execution.stop_now, from the run's signal
handler, raises StopRequested into the request while the sender is `waiting`). A stop that
comes just before the request is sent, or while its failure is being recorded, must neither be
lost nor escape the request (the signal's moment pinned by a hook on what transmit reads); a
real SIGINT ends a request waiting for its answer at once, and leaves its client usable."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
import threading
import time
from contextlib import contextmanager
from typing import Iterator

import pytest

from scenario_core.language.parser import parse_text
from scenario_core.parameters.resolution import resolve_parameters
from scenario_core.run.events import INTERRUPTED
from scenario_core.run.http.client import HttpClient
from scenario_core.run.sending import Sender, StopRequested
from tests.core.http_doubles import LoopbackServer, self_signed_certificate, stepped, tls_server_context


def stop_now(sender: Sender) -> None:
    """What Execution.stop_now does when the first Ctrl+C comes."""
    sender.stop()
    if sender.waiting:
        raise StopRequested()


def parameters(text: str = "") -> object:
    return resolve_parameters(parse_text(text + "scenario: s\n  when: GET /x\n", "t.scenario"))


class State:
    """A scenario's state as transmit uses it; `on_message` runs when a message is recorded."""

    def __init__(self, params: object, on_message=None):
        self.params, self._message, self.on_message = params, None, on_message

    @property
    def message(self):
        return self._message

    @message.setter
    def message(self, value):
        self._message = value
        if self.on_message is not None:
            hook, self.on_message = self.on_message, None
            hook()


class StoppedAtFirstLook(HttpClient):
    """A blocking client; the first time the sender asks whether it blocks, Ctrl+C comes."""

    def __init__(self) -> None:
        super().__init__(blocking=True)
        self.sender: Sender | None = None

    @property  # type: ignore[override]
    def blocking(self) -> bool:
        sender, self.sender = self.sender, None
        if sender is not None:
            stop_now(sender)
        return True

    @blocking.setter
    def blocking(self, value: bool) -> None:
        pass


def test_a_stop_just_before_a_blocking_request_is_sent_interrupts_it(demo):
    client = StoppedAtFirstLook()
    sender = Sender(client)
    client.sender = sender
    state = State(parameters())
    started = time.perf_counter()
    try:
        result = stepped(sender.transmit(client.build("GET", demo.url + "/slow?ms=3000", [], [], None), "u", state))
    finally:
        stepped(client.aclose())
    assert (result, state.message) == (None, INTERRUPTED)
    assert time.perf_counter() - started < 1  # not sent, not waited for
    assert not sender.waiting


def test_a_stop_while_a_blocking_request_failure_is_recorded_keeps_the_failure():
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    client = HttpClient(blocking=True)
    sender = Sender(client)
    state = State(parameters(), on_message=lambda: stop_now(sender))
    try:
        url = f"http://127.0.0.1:{port}/"
        result = stepped(
            sender.transmit(client.build("GET", url, [], [], None), url, state)
        )  # no StopRequested escapes
    finally:
        stepped(client.aclose())
    assert (result, state.message) == (None, f"cannot connect to 127.0.0.1:{port}: connection refused")
    assert sender.stopped and not sender.waiting


class StallsOnce(LoopbackServer):
    """Never answers its first request; answers every later one (on any connection) with ok."""

    def __init__(self) -> None:
        super().__init__()
        self.requests = 0

    async def handle(self, reader, writer):
        while True:
            await reader.readuntil(b"\r\n\r\n")
            self.requests += 1
            if self.requests == 1:
                await asyncio.sleep(3600)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            await writer.drain()


@contextmanager
def ctrl_c_after(seconds: float, sender: Sender) -> Iterator[None]:
    """SIGINT to this process after `seconds`, handled as a blocking run's first Ctrl+C is."""
    previous = signal.signal(signal.SIGINT, lambda signum, frame: stop_now(sender))
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("route", ["plain", "httpx", "https"])
def test_ctrl_c_ends_a_blocking_request_at_once_and_its_client_still_works(monkeypatch, tmp_path, route):
    server = StallsOnce()
    if route == "https":
        certificate, key = self_signed_certificate(tmp_path)
        server.tls = tls_server_context(certificate, key)
        monkeypatch.setenv("SSL_CERT_FILE", str(certificate))
    with server:
        url = server.url + "/"
        if route == "httpx":  # plain http through a proxy: httpx sends it
            monkeypatch.setenv("HTTP_PROXY", server.url)
            monkeypatch.delenv("NO_PROXY", raising=False)
            monkeypatch.delenv("no_proxy", raising=False)
            url = "http://api.example.test/"
        client = HttpClient(blocking=True)
        sender = Sender(client)
        state = State(parameters())
        try:
            started = time.perf_counter()
            with ctrl_c_after(0.3, sender):
                stalled = stepped(sender.transmit(client.build("GET", url, [], [], None), url, state))
            took = time.perf_counter() - started
            assert (stalled, state.message, took < 2) == (None, INTERRUPTED, True)
            sender.stopped = False  # the next run's sender would be a new one; the client is the same
            answered = stepped(sender.transmit(client.build("GET", url, [], [], None), url, State(parameters())))
        finally:
            stepped(client.aclose())
    assert answered is not None and (answered.status, answered.body) == (200, "ok")
