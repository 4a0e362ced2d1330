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
