"""The variables a running scenario sees, one per line, grouped by layer innermost first: this
scenario, the sharing store (named by its owner), run variables. Each line: name, value, type and
the step that extracted it. What the last step changed is highlighted; secrets are masked.

Focused, ↑/↓ move a cursor over the variables and Enter asks (by `ValueSelected`) for the value
viewer: long values are cut here, the viewer shows them whole."""

from __future__ import annotations

from typing import Mapping, NamedTuple

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.events import Click
from textual.geometry import Region
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static

from scenario_core.run.comparison import type_name
from scenario_core.run.events import RUN_LAYER, SCENARIO, SCENARIO_LAYER, Origin, ScopeSnapshot, store_label
from scenario_core.support.printable import visible
from scenario_tui.widgets.display import Display
from scenario_tui.widgets.theme_styles import VALUE


def origin_text(origin: Origin | None) -> str:
    if origin is None:
        return ""
    if getattr(origin, "edited", False):  # run.edits.EditOrigin: set by the user while paused
        return "edited by you"
    where = f"line {origin.location.line}"
    if origin.phase != SCENARIO:
        where += " (background)"  # the file's or the feature's: the line tells which
    return where


class VariableRow(NamedTuple):
    """A variable as the panel lists it."""

    title: str  # its table's heading: `this scenario`, `shared: feature 'Pets'`, `run variables`
    name: str
    value: object
    origin: Origin | None
    layer: str  # the layer it lives in, as the stepper names it (edits go there)


class ScopeView(NamedTuple):
    """What the panel shows: a scope snapshot, the scenario it is of, the names the step changed."""

    snapshot: ScopeSnapshot | None
    scenario: str | None = None
    changed: frozenset[str] = frozenset()
    cleared: str = ""  # its store was cleared since (`cleared when feature 'Pets' ended: petId`)


class VariablesPanel(VerticalScroll, can_focus=True):
    ALLOW_MAXIMIZE = True  # z fills the screen with it
    DEFAULT_CSS = """
    VariablesPanel {
        border: round $primary 60%;
        border-title-color: $text;
        padding: 0 1;
        scrollbar-size-vertical: 1;
        &:focus { border: round $primary; }
        & > Static { width: 1fr; }
        & > .variables-panel--cursor { background: $accent 40%; }
    }
    """
    COMPONENT_CLASSES = {"variables-panel--cursor"}
    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("enter", "open_value", "Value"),
    ]

    class ValueSelected(Message):
        """Enter on a variable: the app opens the value viewer."""

        def __init__(self, name: str, value: object, layer: str, origin: Origin | None) -> None:
            super().__init__()
            self.name, self.value, self.layer, self.origin = name, value, layer, origin

    # What is shown; a new value draws the panel again (always: the same snapshot is shown again
    # after the secrets were revealed).
    view: reactive[ScopeView] = reactive(ScopeView(None), always_update=True, init=False)

    def __init__(self, display: Display, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.display_options = display
        self.border_title = "Variables"
        self.lines: list[str] = []
        # Each variable shown, and the line it starts on.
        self.rows: list[VariableRow] = []
        self._row_y: list[int] = []
        self._y = 0  # lines drawn so far
        self.cursor = 0

    def compose(self) -> ComposeResult:
        yield Static("", id="variables-body")

    def on_mount(self) -> None:
        self.refresh_view()

    def show(
        self,
        snapshot: ScopeSnapshot | None,
        scenario: str | None = None,
        changed: frozenset[str] | set[str] = frozenset(),
        cleared: str = "",
    ) -> None:
        self.view = ScopeView(snapshot, scenario, frozenset(changed), cleared)

    def watch_view(self) -> None:
        self.refresh_view()

    @property
    def snapshot(self) -> ScopeSnapshot | None:
        return self.view.snapshot

    @property
    def selected(self) -> VariableRow | None:
        """The variable under the cursor, when the panel has focus."""
        if not self.has_focus or self.view.snapshot is None or self.cursor >= len(self.rows):
            return None
        return self.rows[self.cursor]

    def refresh_view(self) -> None:
        if not self.is_mounted:
            return
        # A resize can reach a panel mounted a moment before its body was (seen in CI under load).
        bodies = self.query("#variables-body").results(Static)
        body = next(bodies, None)
        if body is None:
            return
        snapshot, scenario, changed_names, cleared = self.view
        at = self.rows[self.cursor][:2] if self.cursor < len(self.rows) else None
        self.lines = []
        self.rows, self._row_y = [], []
        self.border_title = f"Variables · scenario '{visible(scenario)}'" if scenario else "Variables"
        self.border_subtitle = "secrets shown" if self.display_options.reveal_secrets else ""
        if snapshot is None:
            body.update(Text("Nothing runs yet. Press n to start a run one step at a time, c to run it.", style="dim"))
            return
        groups: list[tuple[str, str, Mapping[str, object], Mapping[str, Origin]]] = [
            ("this scenario", SCENARIO_LAYER, snapshot.scenario, snapshot.scenario_origins),
        ]
        if snapshot.store is not None:
            title = f"shared: {visible(snapshot.store.owner)}"
            groups.append((title, store_label(snapshot.store), snapshot.store_values, snapshot.store_origins))
        else:
            groups.append(("shared: none (isolated)", "", {}, {}))
        groups.append(("run variables", RUN_LAYER, snapshot.run, {}))
        width = max(self.scrollable_content_region.width, 20)
        tables = []
        for title, layer, values, origins in groups:
            rows = []
            for name in sorted(values):
                value = values[name]
                changed = name in changed_names and layer != RUN_LAYER
                rows.append(
                    (
                        "* " if changed else "  ",
                        visible(name),
                        self.display_options.variable(name, value),
                        type_name(value),
                        origin_text(origins.get(name)),
                        changed,
                    )
                )
                self.rows.append(VariableRow(title, name, value, origins.get(name), layer))
            tables.append((title, values, rows))
        keys = [row[:2] for row in self.rows]  # the cursor stays on its variable while values change
        self.cursor = keys.index(at) if at in keys else min(self.cursor, max(len(self.rows) - 1, 0))
        parts: list[RenderableType] = []
        first = 0
        self._y = 0
        for title, values, rows in tables:
            heading = Text(title, style="bold underline")
            if not values and cleared and title.startswith("shared: "):  # as the Scope events log says
                heading.append(f"  ({visible(cleared)})", style="not underline")
            elif not values and not title.startswith("shared: none"):
                heading.append("  (empty)", style="dim not underline")
            parts.append(heading)
            self.lines.append(heading.plain)
            self._y += 1
            if rows:
                parts.append(self._table(rows, width, first))
                first += len(rows)
        body.update(Group(*parts))

    def _table(self, rows: list[tuple[str, str, str, str, str, bool]], width: int, first: int = 0) -> Text:
        """name, value, type, origin in columns; the value gets what is left (at least 12 cells:
        on a narrow panel the origin goes on a line of its own)."""
        name_w = max(len(r[0]) + len(r[1]) for r in rows)
        type_w = max(len(r[3]) for r in rows)
        from_w = max(len(r[4]) for r in rows)
        value_w = width - name_w - type_w - from_w - 3
        origin_below = value_w < 12
        if origin_below:
            value_w = width - name_w - type_w - 2
        value_w = max(min(value_w, max(len(r[2]) for r in rows)), 4)
        text = Text(no_wrap=True, overflow="ellipsis")
        cursor = self.get_component_rich_style("variables-panel--cursor") if self.has_focus else None
        for index, (marker, name, shown, kind, origin, changed) in enumerate(rows):
            if index:
                text.append("\n")
            self._row_y.append(self._y)
            start = len(text)
            text.append(marker + name, "reverse bold" if changed else "bold")
            text.append(" " * (name_w - len(marker) - len(name) + 1))
            cut = shown if len(shown) <= value_w else shown[: value_w - 1] + "…"
            text.append(cut.ljust(value_w), VALUE)
            text.append(" " + kind.ljust(type_w), "dim")
            if origin:
                text.append(("\n" + " " * (name_w + 1) if origin_below else " ") + origin, "dim")
            if cursor is not None and first + index == self.cursor:
                text.stylize(cursor, start, len(text))
            self.lines.append(f"{marker}{name}  {shown}  {kind}  {origin}".rstrip())
            self._y += 2 if origin and origin_below else 1
        return text

    # ------------------------------------------------------------ cursor and viewer

    def on_focus(self) -> None:
        self.refresh_view()

    def on_blur(self) -> None:
        self.refresh_view()

    def action_cursor(self, delta: int) -> None:
        if not self.rows:
            self.scroll_relative(y=delta, animate=False)
            return
        self.cursor = max(0, min(len(self.rows) - 1, self.cursor + delta))
        self.refresh_view()
        top = self._row_y[self.cursor]
        bottom = self._row_y[self.cursor + 1] if self.cursor + 1 < len(self._row_y) else self._y
        self.scroll_to_region(Region(0, top, 1, max(bottom - top, 1)), animate=False)

    def action_open_value(self) -> None:
        if not self.rows:
            return
        row = self.rows[self.cursor]
        self.post_message(self.ValueSelected(row.name, row.value, row.title, row.origin))

    def on_click(self, event: Click) -> None:
        """A click puts the cursor on the variable under the mouse."""
        offset = event.get_content_offset(self)
        if offset is None or not self._row_y:
            return
        y = offset.y + int(self.scroll_y)
        row = max((i for i, top in enumerate(self._row_y) if top <= y), default=None)
        if row is not None and row != self.cursor:
            self.cursor = row
            self.refresh_view()

    def on_resize(self) -> None:
        self.refresh_view()

    @property
    def text(self) -> str:
        return "\n".join([str(self.border_title)] + self.lines)
