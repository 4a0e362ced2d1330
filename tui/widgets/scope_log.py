"""Every change of variable scope the executor reports, one line each: scenario started (isolated
or sharing which store; fresh or carrying which names), variable extracted (into which layers),
overwritten (old → new), a store created, a feature or the file ended (which names were cleared),
and what the user edited while paused (`✎ petId edited by you in scenario: 1 → 42`).

Lines are written again at the new width after a resize (a RichLog keeps lines as drawn). A long
list of names is summarised (`carrying 2,000 variables: c0, c1, … — Enter lists them`); Enter opens
the latest one whole in the value viewer. The log also keeps every variable write of the run for
the viewer's history (`history`).

The last scope boundary that cleared a store (`feature 'Pets' ended — cleared shared variables:
petId`) stays on the top line(s) once later events scroll it out of view, as an editor keeps a
block's header in view: on a short terminal the log has a few lines, and the boundary is what
explains the variables that are gone. Scrolled back above it, the log is as written."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.events import Resize
from textual.geometry import Size
from textual.strip import Strip
from textual.widgets import RichLog

from scenario_core.parameters.sharing import StoreRef
from scenario_core.run import events as ev
from scenario_core.run.edits import REMOVED, SET, VariableEdited
from scenario_core.support.printable import visible
from scenario_tui.widgets.display import Display
from scenario_tui.widgets.theme_styles import (
    EDIT,
    EDIT_BOLD,
    ERROR,
    ERROR_BOLD,
    SUCCESS,
    SUCCESS_BOLD,
    VALUE,
    WARNING,
    WARNING_BOLD,
)
from scenario_tui.widgets.value_viewer import ValueViewer, names_lines
from scenario_tui.widgets.write_history import WriteHistory

LONG_LIST = 8  # more names than this: the first few, a count, and Enter for the rest
SHOWN_NAMES = 3


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
    BINDINGS = [Binding("enter", "open_list", "List names", show=False)]

    def __init__(self, display: Display, *, id: str | None = None) -> None:
        super().__init__(
            id=id, wrap=True, markup=False, highlight=False, auto_scroll=True, max_lines=self.MAX_EVENTS, min_width=20
        )
        self.display_options = display
        self.border_title = "Scope events"
        self.entries: list[str] = []
        self._events: list[ev.Event] = []
        self._pending: list[Text] = []
        self._width = 0  # the width the lines were drawn at
        self.long_lists: list[tuple[str, tuple[str, ...]]] = []  # (what, names), oldest first
        self.history = WriteHistory()
        self._pin: Text | None = None  # the last boundary that cleared a store, as recorded
        self.pinned = (-1, 0)  # its first line in `lines` and how many lines it takes (-1: none)

    def reset(self) -> None:
        self.clear()
        self._pin, self.pinned = None, (-1, 0)
        self.entries = []
        self._events = []
        self._pending = []
        self.long_lists = []
        self.history.clear()

    def on_resize(self, event: Resize) -> None:
        width = self.scrollable_content_region.width
        if self._size_known and width != self._width and self.lines:
            self.rerender()  # lines drawn at 120 columns would stay clipped at 80
        self._width = width

    def action_open_list(self) -> None:
        if not self.long_lists:
            self.app.notify("No long list here: Enter lists the names a line summarises.")
            return
        what, names = self.long_lists[-1]
        self.app.push_screen(ValueViewer(f"Scope events · {what}", lambda: names_lines(what, names)))

    def flush(self) -> None:
        """Write the lines recorded since the last flush (the app flushes a few times a second
        while a run goes on, and whenever it pauses): one repaint for many events."""
        pending, self._pending = self._pending, []
        if not pending:
            return
        if not self._size_known:
            self.write(Text("\n").join(pending), expand=True)  # (RichLog renders it once sized)
            return
        # What RichLog.write does for a line that fits, without measuring, wrapping and splitting
        # the lot again (a third of what a run to the end costs the log): a line too wide, or
        # with a tab, still goes through write.
        width = max(self.scrollable_content_region.width, self.min_width)
        console = self.app.console
        strips: list[Strip] = []
        widest = self._widest_line_width
        for text in pending:
            length = text.cell_len
            if length > width or "\t" in text.plain:
                self._append(strips, widest)
                first = len(self.lines)
                self.write(text, expand=True)
                if text is self._pin:
                    self.pinned = (first, len(self.lines) - first)
                strips, widest = [], self._widest_line_width  # after the write: its lines count too
                continue
            if text is self._pin:
                self.pinned = (len(self.lines) + len(strips), 1)
            strips.append(Strip(text.render(console), length))
            widest = max(widest, length)
        self._append(strips, widest)

    def _append(self, strips: list[Strip], widest: int) -> None:
        """Add rendered lines at the end, as RichLog.write does."""
        if not strips:
            return
        self.lines.extend(strips)
        if self.max_lines is not None and len(self.lines) > self.max_lines:
            dropped = len(self.lines) - self.max_lines
            at, height = self.pinned
            self.pinned = (at - dropped, height) if at >= dropped else (-1, 0)
            self._start_line += dropped
            self.refresh()
            self.lines = self.lines[-self.max_lines :]
        self._widest_line_width = widest
        self.virtual_size = Size(widest, len(self.lines))
        if self.auto_scroll:
            self.scroll_end(animate=False, immediate=False, x_axis=False)

    def restyle(self) -> None:
        """The theme changed: draw the lines again in its colours."""
        self.rerender()

    def rerender(self) -> None:
        """Write every line again (after secrets were revealed or masked)."""
        events, self._events = self._events, []
        self.clear()
        self._pin, self.pinned = None, (-1, 0)
        self.entries = []
        self.long_lists = []
        self._pending = []
        for event in events:
            self._line(event)
        self.flush()
        self._width = self.scrollable_content_region.width

    def render_line(self, y: int) -> Strip:
        at, height = self.pinned
        scroll_x, scroll_y = self.scroll_offset
        if 0 <= at < scroll_y and y < height and at + height <= len(self.lines):  # scrolled out: kept on top
            width = self.scrollable_content_region.width
            return (
                self.lines[at + y].crop_extend(scroll_x, scroll_x + width, self.rich_style).apply_style(self.rich_style)
            )
        return super().render_line(y)

    @property
    def pinned_text(self) -> str:
        """The boundary kept on the top line(s) now, or "" (for tests and tools)."""
        at, height = self.pinned
        if not (0 <= at < self.scroll_offset.y and at + height <= len(self.lines)):
            return ""
        return "".join(self.lines[at + i].text for i in range(height))

    def _add(self, text: Text) -> None:
        self.entries.append(text.plain)
        if len(self.entries) > self.MAX_EVENTS:
            del self.entries[: len(self.entries) - self.MAX_EVENTS]
        self._pending.append(text)
        if len(self._pending) > self.MAX_EVENTS:
            del self._pending[: len(self._pending) - self.MAX_EVENTS]

    def _value(self, name: str, value: object) -> str:
        shown = self.display_options.variable(name, value)
        return shown if len(shown) <= 60 else shown[:59] + "…"

    def _names(self, text: Text, what: str, names: tuple[str, ...], style: str = "", noun: str = "variables") -> None:
        """`a, b` or, for a long list, `2,000 variables: c0, c1, c2, … — Enter lists them`."""
        if len(names) <= LONG_LIST:
            text.append(visible(", ".join(names)), style)
            return
        self.long_lists.append((what, tuple(names)))
        text.append(f"{len(names):,} {noun}: ", style)
        text.append(visible(", ".join(names[:SHOWN_NAMES])) + ", …", style)
        text.append(" — Enter lists them", "dim")

    def record(self, event: ev.Event) -> None:
        """Add the line for `event`, when it changes a scope (and keep a variable's write)."""
        self.history.record(event)
        self._line(event)

    def _line(self, event: ev.Event) -> None:
        text = Text()
        if isinstance(event, ev.ScenarioStarted):
            text.append("▶ ", "bold")
            text.append(f"scenario '{visible(event.scenario.name)}'", "bold")
            if event.store is None:
                text.append(" started isolated", WARNING)
            else:
                text.append(" started sharing ", SUCCESS)
                text.append(visible(_store_name(event.store)), SUCCESS_BOLD)
                if event.carried:
                    text.append(" — carrying ")
                    self._names(text, f"scenario '{visible(event.scenario.name)}' carrying", event.carried)
                else:
                    text.append(" — fresh")
        elif isinstance(event, ev.ScopeCreated):
            text.append("+ ", "bold")
            text.append(f"{visible(_store_name(event.store))} created (empty)", SUCCESS)
        elif isinstance(event, ev.VariableOverwritten):
            text.append("✎ ", "bold")
            text.append(event.name, "bold")
            text.append(f" overwritten in {visible(event.layer)}: ")
            text.append(self._value(event.name, event.old), ERROR)
            text.append(" → ")
            text.append(self._value(event.name, event.new), SUCCESS)
        elif isinstance(event, ev.VariableExtracted):
            text.append("⇢ ", "bold")
            text.append(event.name, "bold")
            text.append(" = ")
            text.append(self._value(event.name, event.value), VALUE)
            text.append(f"  into {visible(', '.join(event.layers))}  (line {event.step.location.line})", "dim")
        elif isinstance(event, VariableEdited):
            self._edited(text, event)
        elif isinstance(event, ev.FeatureFinished):
            text.append("■ ", "bold")
            text.append(f"feature '{visible(event.feature.name)}' ended", "bold")
            if event.cleared:
                text.append(" — cleared " + ("" if len(event.cleared) > LONG_LIST else "shared variables: "), "bold")
                self._names(
                    text,
                    f"feature '{visible(event.feature.name)}' cleared",
                    event.cleared,
                    ERROR_BOLD,
                    "shared variables",
                )
                text.stylize("reverse")
                self._pin = text
            elif event.store is not None and event.store.feature is not None:
                text.append(" — its shared store was empty", "dim")
        elif isinstance(event, ev.FileFinished):
            text.append("■ ", "bold")
            text.append(f"file '{visible(event.file.location.file.rsplit('/', 1)[-1])}' ended", "bold")
            if event.cleared:
                text.append(" — cleared " + ("" if len(event.cleared) > LONG_LIST else "shared variables: "), "bold")
                self._names(text, "the file store cleared", event.cleared, ERROR_BOLD, "shared variables")
                text.stylize("reverse")
                self._pin = text
        elif isinstance(event, ev.WebhookCallsDropped):
            text.append("⚠ ", WARNING_BOLD)
            text.append(self.display_options.line(event.message), WARNING)
        elif isinstance(event, ev.RunFinished):
            text.append("■ run " + ("stopped" if event.interrupted else "finished"), "bold")
            text.append(f": {event.passed} passed, {event.failed} failed, {event.skipped} skipped", "dim")
        else:
            return
        self._events.append(event)
        if len(self._events) > self.MAX_EVENTS:
            del self._events[: len(self._events) - self.MAX_EVENTS]
        self._add(text)

    def _edited(self, text: Text, event: VariableEdited) -> None:
        """`✎ petId edited by you in scenario: 1 → 42`, `✎ petId set by you in scenario: 42` (it
        had no value in that layer), `✎ petId deleted by you from scenario (was 1)`."""
        text.append("✎ ", EDIT_BOLD)
        text.append(visible(event.name), "bold")
        if event.action == REMOVED:
            text.append(f" deleted by {event.by} from {visible(event.layer)}", EDIT)
            text.append(" (was ")
            text.append(self._value(event.name, event.old), ERROR)
            text.append(")")
        elif event.action == SET:  # the layer had no value of it: nothing changed from anything
            text.append(f" set by {event.by} in {visible(event.layer)}: ", EDIT)
            text.append(self._value(event.name, event.new), SUCCESS)
        else:
            text.append(f" edited by {event.by} in {visible(event.layer)}: ", EDIT)
            text.append(self._value(event.name, event.old), ERROR)
            text.append(" → ")
            text.append(self._value(event.name, event.new), SUCCESS)
        if event.shadowed_by:
            text.append(f"  ({visible(event.shadowed_by)}'s value still wins here)", "dim")


def _store_name(store: StoreRef) -> str:
    """`the file store` or `feature 'Pets' store`."""
    return "the file store" if store.feature is None else f"{ev.store_label(store)} store"
