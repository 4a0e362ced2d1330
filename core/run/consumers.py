"""One way to receive a run's events (docs/architecture.md#the-model).

Every consumer -- the recorder, the masker, the coverage collector, the printer, the exchange
log, the stepper and the TUI -- is an `EventConsumer`: it names, in one table, the method that
receives each event type it cares about, and `feed(event)` calls that method for the event's
exact type (one dictionary lookup; an event type it does not name is ignored). A consumer that
must see every event of a type and its subclasses names each subclass.

A driver hands each event to its consumers in order with `feed_all` (or calls `feed` itself),
at once or, in a headless run, kept until the run says it waits (`Batched`); nothing else
decides what a consumer sees."""

from __future__ import annotations

from types import MethodType
from typing import Any, Callable, Iterable, Mapping

from scenario_core.run.events import Event

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


class Batched:
    """A headless run's feed that uses the time the run waits on the server. `take` keeps each
    event (it is a list's `append`: the cheapest call a driver can make a few times a request);
    the run calls `deliver` (Execution's `deliver=`) when a request is written and before its
    response is read, before a step that may take long, and after each scenario, and the kept
    events then go to the consumers, in order: for a chain of requests, while the server works
    (~0.02 ms a request less against a loopback API, docs/performance.md "Round seven"). The
    running line and the results are as live as without it. Use it where nothing must react to
    an event before the run goes on (no --fail-fast, no --verbose log).

    What a consumer raises inside `deliver` stops the run (`stop`: the execution's) and is raised
    by `finish`, in the driver, never inside the run's own code."""

    __slots__ = ("_feed", "_kept", "_failed", "take", "stop")

    def __init__(self, feed: Callable[[Event], None]) -> None:
        self._feed = feed
        self._kept: list[Event] = []
        self.take: Callable[[Event], None] = self._kept.append
        self._failed: BaseException | None = None
        self.stop: Callable[[], None] | None = None  # set by the driver to the execution's

    def _hand_over(self) -> None:
        """Feed every kept event to the consumers."""
        kept, feed = self._kept, self._feed
        try:
            for event in kept:
                feed(event)
        finally:
            kept.clear()

    def deliver(self) -> None:
        """What the run calls: the kept events handed over to the consumers (see the class)."""
        if self._failed is not None:  # the run is stopping: what it still gives is not handed over
            self._kept.clear()
            return
        try:
            self._hand_over()
        except BaseException as error:  # (a consumer's bug: the driver's to report)
            self._failed = error
            if self.stop is not None:
                self.stop()

    def finish(self) -> None:
        """The end of the stream: the last kept events handed over, or what a consumer raised."""
        if self._failed is not None:
            failed, self._failed = self._failed, None
            raise failed
        self._hand_over()
