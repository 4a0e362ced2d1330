"""consumers.Batched, the headless run's feed: the consumers get the run's events while the
server works on the next request, in the order the run gave them; before a step that may take
long runs, and after each scenario, too; and what a consumer raises meanwhile stops the run and is
raised in the driver, never taken for the step's failure. Real HTTP on loopback."""

from __future__ import annotations

import asyncio
import threading

import pytest

from scenario_core.language.nodes.steps import AssertStep, ExtractStep, RequestStep
from scenario_core.language.parser import parse_text
from scenario_core.run.consumers import Batched
from scenario_core.run.events import (
    FAILED,
    PASSED,
    RequestSent,
    ResponseReceived,
    RunFinished,
    ScenarioFinished,
    StepFinished,
    StepStarted,
)
from scenario_core.run.executor import Execution
from tests.core.http_doubles import LoopbackServer


class AnswersOnceSeen(LoopbackServer):
    """Holds each request's answer until the test's consumer has seen the request sent (at most
    5 s), and notes whether it had."""

    def __init__(self) -> None:
        super().__init__()
        self.seen = threading.Event()
        self.answered_seen: list[bool] = []

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await reader.readuntil(b"\r\n\r\n")
            self.answered_seen.append(await loop.run_in_executor(None, self.seen.wait, 5))
            self.seen.clear()
            body = b'{"next": %d}' % len(self.answered_seen)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body))
            writer.write(body)
            await writer.drain()


def chain(url: str, requests: int) -> str:
    """A first request, then `requests` more, each to the URL the one before answered with."""
    step = "  when: GET /items/{{next}}\n  then: status 200\n  extract: next from $.next\n"
    first = "  when: GET /items/0\n  then: status 200\n  extract: next from $.next\n"
    return f"parameters:\n  baseUrl: {url}\nscenario: chained\n" + first + step * requests


def test_a_request_s_events_reach_the_consumers_while_the_server_answers_it():
    """The server answers only once the consumer has seen the request sent: with Batched, that
    happens while the run waits, so every request is answered at once (none after 5 s)."""
    seen: list[object] = []
    with AnswersOnceSeen() as server:

        def consumer(event: object) -> None:
            seen.append(event)
            if isinstance(event, RequestSent):
                server.seen.set()

        batched = Batched(consumer)
        file = parse_text(chain(server.url, 3), "t.scenario")
        taken = []
        for event in Execution([file], deliver=batched.deliver).events():
            taken.append(event)
            batched.take(event)
        batched.finish()
    assert server.answered_seen == [True] * 4
    assert seen == taken  # the same events, in the order the run gave them
    assert taken[-1].passed == 1


def test_kept_events_wait_at_most_for_a_request_a_long_step_or_a_scenario_s_end(demo):
    """What the run gave reaches the consumers when a request goes out (before its response is
    read), before a step of another kind runs (a `fail`, a custom step, a webhook...), and when a
    scenario has ended (before the next event is given)."""
    seen: list[object] = []
    batched = Batched(seen.append)
    text = (
        f"parameters:\n  baseUrl: {demo.url}\nscenario: one\n  when: GET /counter\n  then: status 200\n"
        '  extract: value from $.value\n  then it stops\n    fail "stopped at {{value}}"\nscenario: two\n'
        "  when: GET /counter\n"
    )
    previous = None
    for event in Execution([parse_text(text, "t.scenario")], deliver=batched.deliver).events():
        if isinstance(event, ResponseReceived):  # its request went out: all before it was handed over then
            assert isinstance(seen[-1], RequestSent)
        if isinstance(previous, (ScenarioFinished, StepStarted)) and not isinstance(
            getattr(previous, "step", None), (RequestStep, AssertStep, ExtractStep)
        ):
            assert seen[-1] is previous
        previous = event
        batched.take(event)
    batched.finish()
    assert isinstance(seen[-1], RunFinished)
    assert [f.status for f in seen if isinstance(f, ScenarioFinished)] == [FAILED, PASSED]
    assert any(isinstance(e, StepStarted) and type(e.step).__name__ == "FailStep" for e in seen)


def test_what_a_consumer_raises_while_the_run_waits_is_raised_in_the_driver(demo):
    """A consumer's bug surfaces as itself, from `take`: the step it happened during is not failed
    as an internal error of the run's."""

    class ConsumerBug(Exception):
        pass

    seen: list[object] = []

    def consumer(event: object) -> None:
        if isinstance(event, RequestSent):
            raise ConsumerBug("the consumer's own")
        seen.append(event)

    batched = Batched(consumer)
    text = f"parameters:\n  baseUrl: {demo.url}\nscenario: s\n" + "  when: GET /counter\n  then: status 200\n" * 3
    execution = Execution([parse_text(text, "t.scenario")], deliver=batched.deliver)
    batched.stop = execution.stop
    taken = []
    for event in execution.events():
        taken.append(event)
        batched.take(event)
    with pytest.raises(ConsumerBug, match="the consumer's own"):
        batched.finish()
    assert not any(isinstance(e, StepFinished) and e.message and "internal" in e.message for e in taken)
    assert taken[-1].interrupted  # stopped at the first request
