"""Stopping a run's request from outside (Sender.stop, as Execution.stop does; from another
thread or from a signal handler in the thread the request waits in): nothing is raised into the
request, its socket is shut down. A stop that comes before the request is sent interrupts it
unsent; a stop while a failure is being recorded keeps the failure; a real SIGINT ends a request
waiting for its answer at once (plain HTTP, through httpx, over TLS), and the server is left sound."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
import threading
from contextlib import contextmanager
from typing import Iterator

import pytest

from scenario_core.language.parser import parse_text
from scenario_core.parameters.resolution import resolve_parameters
from scenario_core.run.events import INTERRUPTED
from scenario_core.run.http.client import HttpClient
from scenario_core.run.sending import Sender
from tests.core.http_doubles import LoopbackServer, self_signed_certificate, tls_server_context


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


class StallsOnce(LoopbackServer):
    """Never answers its first request; answers every later one (on any connection) with ok."""

    def __init__(self) -> None:
        super().__init__()
        self.requests = 0
        self.stalled = threading.Event()  # set once the first request has arrived

    async def handle(self, reader, writer):
        while True:
            await reader.readuntil(b"\r\n\r\n")
            self.requests += 1
            if self.requests == 1:
                self.stalled.set()
                await asyncio.sleep(3600)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            await writer.drain()


def test_a_stop_before_a_request_is_sent_interrupts_it_unsent():
    with StallsOnce() as server:
        client = HttpClient()
        sender = Sender(client)
        sender.stop()
        state = State(parameters())
        try:
            result = sender.transmit(client.build("GET", server.url + "/", [], [], None), "u", state)
        finally:
            client.close()
        assert (result, state.message, server.connections) == (None, INTERRUPTED, 0)


def test_a_stop_while_a_request_failure_is_recorded_keeps_the_failure():
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    client = HttpClient()
    sender = Sender(client)
    state = State(parameters(), on_message=sender.stop)
    try:
        url = f"http://127.0.0.1:{port}/"
        result = sender.transmit(client.build("GET", url, [], [], None), url, state)
    finally:
        client.close()
    assert (result, state.message) == (None, f"cannot connect to 127.0.0.1:{port}: connection refused")
    assert sender.stopped


class once(threading.Thread):
    """A thread that runs `action(*args)` once `event` is set: the request is waiting for its
    answer by then, however long it took to send (the first request through httpx imports it).
    `end()`: it never runs the action after that (the request ended without being seen)."""

    def __init__(self, event: threading.Event, action, *args) -> None:
        super().__init__(daemon=True)
        self.event, self.action, self.args, self.ended = event, action, args, False
        self.start()

    def run(self) -> None:
        if self.event.wait(30) and not self.ended:
            self.action(*self.args)

    def end(self) -> None:
        self.ended = True
        self.event.set()
        self.join()


@contextmanager
def ctrl_c_when(event: threading.Event, sender: Sender) -> Iterator[None]:
    """SIGINT to this process once `event` is set, handled as a run's first Ctrl+C is: stop() only."""
    previous = signal.signal(signal.SIGINT, lambda signum, frame: sender.stop())
    killer = once(event, os.kill, os.getpid(), signal.SIGINT)
    try:
        yield
    finally:
        killer.end()
        signal.signal(signal.SIGINT, previous)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("route", ["plain", "httpx", "https"])
@pytest.mark.parametrize("stopped_by", ["signal", "thread"])
def test_a_stop_ends_a_request_waiting_for_its_answer_at_once(monkeypatch, tmp_path, route, stopped_by):
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
        client = HttpClient()
        sender = Sender(client)
        state = State(parameters("parameters:\n  timeout: 60\n"))
        try:
            if stopped_by == "signal":
                with ctrl_c_when(server.stalled, sender):
                    stalled = sender.transmit(client.build("GET", url, [], [], None), url, state)
            else:
                stopper = once(server.stalled, sender.stop)
                stalled = sender.transmit(client.build("GET", url, [], [], None), url, state)
                stopper.end()
            assert (stalled, state.message, server.requests) == (None, INTERRUPTED, 1)
            # A stopped client sends nothing more.
            refused = State(parameters())
            assert sender.transmit(client.build("GET", url, [], [], None), url, refused) is None
            assert (refused.message, server.requests) == (INTERRUPTED, 1)
        finally:
            client.close()
        fresh = HttpClient()  # the server is sound: the next run's client is answered
        try:
            answered = Sender(fresh).transmit(fresh.build("GET", url, [], [], None), url, State(parameters()))
        finally:
            fresh.close()
    assert answered is not None and (answered.status, answered.body) == (200, "ok")
