"""Driving a run without an event loop: the headless sequential `run` (and run_to_completion)
pull the executor's events by stepping its coroutines by hand. Its client is then blocking
(HttpClient(blocking=True)): no coroutine of the run ever suspends, so each pull completes in
one step, and asyncio is never imported -- a third of `run`'s start-up, and the loop's turns on
every request. The TUI, `--jobs` and runs with webhooks (a server that answers while a request
waits) keep the event loop.

    for event in blocking_events(Execution(files, blocking=True).events()):
        ...
"""

from __future__ import annotations

from typing import Any, AsyncIterator, Iterable, Iterator, NoReturn

from scenario_core.language.nodes.blocks import ScenarioFileNode
from scenario_core.language.nodes.steps import WebhookStep
from scenario_core.language.nodes.walk import step_blocks, walk_steps

__all__ = ["NeedsEventLoop", "blocking_events", "runs_without_event_loop"]


class NeedsEventLoop(RuntimeError):
    """Something in a blocking run awaited the event loop: a bug (runs_without_event_loop said no)."""


def runs_without_event_loop(files: Iterable[ScenarioFileNode]) -> bool:
    """Whether these files can run without an event loop: none has a webhook: step, in any block
    or fragment (a fragment included by name at run time is one of a file's fragments)."""
    return not any(
        isinstance(step, WebhookStep) for file in files for block in step_blocks(file) for step in walk_steps(block)
    )


def blocking_events(stream: AsyncIterator[Any]) -> Iterator[Any]:
    """The events of an async stream whose awaits never suspend, as a plain iterator. Closing
    this iterator closes the stream (its `finally:` blocks run, the client is closed)."""
    try:
        while True:
            step: Any = stream.__anext__()  # a coroutine: stepped by hand
            try:
                step.send(None)
            except StopIteration as done:
                yield done.value
                continue
            except StopAsyncIteration:
                return
            _abandon(step, "a blocking run awaited the event loop")
    finally:
        _finish(stream)


def _finish(stream: AsyncIterator[Any]) -> None:
    closing = getattr(stream, "aclose", None)
    if closing is None:
        return
    step = closing()
    try:
        step.send(None)
    except StopIteration:
        return
    _abandon(step, "a blocking run awaited the event loop while closing")


def _abandon(step: Any, message: str) -> NoReturn:
    """Raise NeedsEventLoop for a step that suspended, thrown in at its await first, so the
    stream's `finally:` blocks run and it ends. (Closing the step would leave the stream
    "already running": closing the stream would then fail, hiding this error.)"""
    error = NeedsEventLoop(message)
    try:
        step.throw(error)
    except BaseException as raised:
        if raised is error:
            raise
        raise error from raised  # its `finally:` failed some other way: said as the cause
    step.close()  # it caught the error and awaited again: nothing more can be done for it
    raise error
