"""Every change of variable scope the executor reports, one line each: scenario started (isolated
or sharing which store; fresh or carrying which names), variable extracted (into which layers),
overwritten (old → new), a store created, a feature or the file ended (which names were cleared)."""

from __future__ import annotations

from rich.text import Text

from scenario_core.printable import visible
from textual.widgets import RichLog

from scenario_core import events as ev

from .display import Display


class ScopeLog(RichLog):
    DEFAULT_CSS = """
    ScopeLog {
        border: round $accent 60%;
        border-title-color: $text;
        padding: 0 1;
        scrollbar-size-vertical: 1;
        scrollbar-gutter: stable;
        overflow-x: hidden;
        background: $surface;
        &:focus { border: round $accent; }
    }
    """

    MAX_EVENTS = 5000

    def __init__(self, display: Display, *, id: str | None = None) -> None:
        super().__init__(id=id, wrap=True, markup=False, highlight=False, auto_scroll=True,
                         max_lines=self.MAX_EVENTS, min_width=20)
        self.display_options = display
        self.border_title = "Scope events"
        self.entries: list[str] = []
        self._events: list[ev.Event] = []
        self._pending: list[Text] = []

    def reset(self) -> None:
        self.clear()
        self.entries = []
        self._events = []
        self._pending: list[Text] = []

    def flush(self) -> None:
        """Write the lines recorded since the last flush (the app flushes a few times a second
        while a run goes on, and whenever it pauses): one repaint for many events."""
        pending, self._pending = self._pending, []
        if pending:
            self.write(Text("\n").join(pending), expand=True)

    def rerender(self) -> None:
        """Write every line again (after secrets were revealed or masked)."""
        events, self._events = self._events, []
        self.clear()
        self.entries = []
        for event in events:
            self.record(event)
        self.flush()

    def _add(self, text: Text) -> None:
        self.entries.append(text.plain)
        if len(self.entries) > self.MAX_EVENTS:
            del self.entries[: len(self.entries) - self.MAX_EVENTS]
        self._pending.append(text)
        if len(self._pending) > self.MAX_EVENTS:
            del self._pending[: len(self._pending) - self.MAX_EVENTS]

    def _value(self, name: str, value) -> str:
        shown = self.display_options.variable(name, value)
        return shown if len(shown) <= 60 else shown[:59] + "…"

    def record(self, event: ev.Event) -> None:
        """Add the line for `event`, when it changes a scope."""
        text = Text()
        if isinstance(event, ev.ScenarioStarted):
            text.append("▶ ", "bold")
            text.append(f"scenario '{visible(event.scenario.name)}'", "bold")
            if event.store is None:
                text.append(" started isolated", "yellow")
            else:
                text.append(" started sharing ", "green")
                text.append(visible(_store_name(event.store)), "bold green")
                if event.carried:
                    text.append(" — carrying " + visible(", ".join(event.carried)))
                else:
                    text.append(" — fresh")
        elif isinstance(event, ev.ScopeCreated):
            text.append("+ ", "bold")
            text.append(f"{visible(_store_name(event.store))} created (empty)", "green")
        elif isinstance(event, ev.VariableOverwritten):
            text.append("✎ ", "bold")
            text.append(event.name, "bold")
            text.append(f" overwritten in {visible(event.layer)}: ")
            text.append(self._value(event.name, event.old), "red")
            text.append(" → ")
            text.append(self._value(event.name, event.new), "green")
        elif isinstance(event, ev.VariableExtracted):
            text.append("⇢ ", "bold")
            text.append(event.name, "bold")
            text.append(" = ")
            text.append(self._value(event.name, event.value), "cyan")
            text.append(f"  into {visible(', '.join(event.layers))}  (line {event.step.location.line})", "dim")
        elif isinstance(event, ev.FeatureFinished):
            text.append("■ ", "bold")
            text.append(f"feature '{visible(event.feature.name)}' ended", "bold")
            if event.cleared:
                text.append(" — cleared shared variables: ", "bold")
                text.append(", ".join(event.cleared), "bold red")
                text.stylize("reverse")
            elif event.store is not None and event.store.feature is not None:
                text.append(" — its shared store was empty", "dim")
        elif isinstance(event, ev.FileFinished):
            text.append("■ ", "bold")
            text.append(f"file '{visible(event.file.location.file.rsplit('/', 1)[-1])}' ended", "bold")
            if event.cleared:
                text.append(" — cleared shared variables: ", "bold")
                text.append(", ".join(event.cleared), "bold red")
                text.stylize("reverse")
        elif isinstance(event, ev.RunFinished):
            text.append("■ run " + ("stopped" if event.interrupted else "finished"), "bold")
            text.append(f": {event.passed} passed, {event.failed} failed, {event.skipped} skipped", "dim")
        else:
            return
        self._events.append(event)
        if len(self._events) > self.MAX_EVENTS:
            del self._events[: len(self._events) - self.MAX_EVENTS]
        self._add(text)


def _store_name(store) -> str:
    """`the file store` or `feature 'Pets' store`."""
    return "the file store" if store.feature is None else f"{ev.store_label(store)} store"
