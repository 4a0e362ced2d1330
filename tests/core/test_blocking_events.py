"""run.blocking.blocking_events: an async stream whose awaits never suspend, pulled without an
event loop; closing the iterator closes the stream; a stream that does await the loop is a bug
said at once (NeedsEventLoop), its `finally:` still run."""

from __future__ import annotations

import types

import pytest

from scenario_core.run.blocking import NeedsEventLoop, blocking_events


@types.coroutine
def suspend():
    yield  # what awaiting a future of an event loop does


async def never_suspends(closed: list[str]):
    try:
        for value in range(5):
            yield value
    finally:
        closed.append("closed")


def test_blocking_events_pull_every_event_of_a_stream_that_never_suspends():
    closed: list[str] = []
    assert list(blocking_events(never_suspends(closed))) == [0, 1, 2, 3, 4]
    assert closed == ["closed"]


def test_closing_blocking_events_closes_the_stream():
    closed: list[str] = []
    events = blocking_events(never_suspends(closed))
    assert [next(events), next(events)] == [0, 1]
    events.close()
    assert closed == ["closed"]


def test_a_stream_that_awaits_the_event_loop_raises_needs_event_loop():
    closed: list[str] = []

    async def suspends():
        try:
            yield "first"
            await suspend()
            yield "never"
        finally:
            closed.append("closed")

    events = blocking_events(suspends())
    assert next(events) == "first"
    with pytest.raises(NeedsEventLoop):
        next(events)
    assert closed == ["closed"]


def test_a_stream_that_awaits_the_event_loop_while_closing_raises_needs_event_loop():
    async def suspends_in_finally():
        try:
            yield "first"
            yield "second"
        finally:
            await suspend()

    events = blocking_events(suspends_in_finally())
    assert next(events) == "first"
    with pytest.raises(NeedsEventLoop):
        events.close()


def test_an_error_in_the_stream_comes_out_as_it_is_after_its_finally():
    closed: list[str] = []

    async def fails():
        try:
            yield 1
            raise ValueError("broken")
        finally:
            closed.append("closed")

    events = blocking_events(fails())
    assert next(events) == 1
    with pytest.raises(ValueError, match="broken"):
        next(events)
    assert closed == ["closed"]
