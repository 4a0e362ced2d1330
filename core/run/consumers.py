"""One way to receive a run's events (docs/architecture.md#the-model).

Every consumer -- the recorder, the masker, the coverage collector, the printer, the exchange
log, the stepper and the TUI -- is an `EventConsumer`: it names, in one table, the method that
receives each event type it cares about, and `feed(event)` calls that method for the event's
exact type (one dictionary lookup; an event type it does not name is ignored). A consumer that
must see every event of a type and its subclasses names each subclass.

A driver hands each event to its consumers in order with `feed_all` (or calls `feed` itself);
nothing else decides what a consumer sees."""

from __future__ import annotations

from types import MethodType
from typing import Any, Callable, Iterable, Mapping

from scenario_core.language.nodes.steps import AssertStep, ExtractStep, RequestStep, Step
from scenario_core.run.events import (
    AssertionChecked,
    AutoTestRan,
    Event,
    RequestRetried,
    RequestSent,
    ResponseReceived,
    StepFinished,
    StepStarted,
    VariableExtracted,
    VariableOverwritten,
)

Receive = Callable[[Any, Any], None]
Receivers = Mapping[type, Receive]


class EventConsumer:
    """Subclasses set `receivers`: event type -> the (unbound) method that receives it. An
    instance may set its own table (the recorder keeps less when no report is written)."""

    __slots__ = ()
    receivers: Receivers = {}

    def feed(self, event: Event) -> None:
        receive = self.receivers.get(type(event))
        if receive is not None:
            receive(self, event)


def feed_all(consumers: Iterable[EventConsumer]) -> Callable[[Event], None]:
    """One function that feeds an event to each consumer in the order given (the masker first:
    what the others print or keep may hold the event's secrets). It looks the event's type up
    once, in a table of the consumers' receivers joined when it is made: a consumer's table is
    read here, so it is set before (as the recorder sets its own in `__init__`)."""
    table: dict[type, tuple[Callable[[Event], None], ...]] = {}
    for consumer in consumers:
        for kind, receive in consumer.receivers.items():
            table[kind] = (*table.get(kind, ()), MethodType(receive, consumer))
    find = table.get
    nothing: tuple[Callable[[Event], None], ...] = ()

    def feed(event: Event) -> None:
        for receive in find(type(event), nothing):
            receive(event)

    return feed


# What a request, an assertion or an extraction gives while it runs: the events a batch holds.
_BATCHED: frozenset[type[Event]] = frozenset(
    {
        StepStarted,
        RequestSent,
        RequestRetried,
        ResponseReceived,
        AssertionChecked,
        AutoTestRan,
        VariableExtracted,
        VariableOverwritten,
        StepFinished,
    }
)
_QUICK_STEPS: frozenset[type[Step]] = frozenset({RequestStep, AssertStep, ExtractStep})


class Batched:
    """A headless run's feed that uses the time the run waits on the server. `take` keeps each
    event; the run calls `waiting` (Execution's `waiting=`) once a request is written and before
    its response is read, and then the kept events go to the consumers, in order, while the
    server works: a chain of requests to a loopback API spends ~0.01 ms a request less
    (docs/performance.md, "Round seven").

    Only a step that sends a request, checks an assertion or extracts a value is kept back, and
    only until its request goes out; any other event (a scenario's end, a step of another kind
    starting: a custom step, a webhook, an include) hands every kept event over at once, so the
    running line and the results are as live as without batching. Use it where nothing must
    react to an event before the run goes on (no --fail-fast, no --verbose log)."""

    __slots__ = ("_feed", "_kept", "_failed")

    def __init__(self, feed: Callable[[Event], None]) -> None:
        self._feed = feed
        self._kept: list[Event] = []
        self._failed: BaseException | None = None  # what a consumer raised inside `waiting`

    def take(self, event: Event) -> None:
        if self._failed is not None:
            failed, self._failed = self._failed, None
            raise failed
        self._kept.append(event)
        if type(event) not in _BATCHED or (isinstance(event, StepStarted) and type(event.step) not in _QUICK_STEPS):
            self.hand_over()

    def hand_over(self) -> None:
        """Feed every kept event to the consumers (the driver calls it once more at the end)."""
        kept, self._kept = self._kept, []
        feed = self._feed
        for event in kept:
            feed(event)

    def waiting(self) -> None:
        """`hand_over` for the run to call: what a consumer raises is raised by the next `take`,
        in the driver, never inside the run's own code."""
        try:
            self.hand_over()
        except BaseException as error:  # (a bug of a consumer's: the driver's to report)
            self._failed = error
