"""The variables a running scenario sees, one per line, grouped by layer innermost first: this
scenario, the sharing store (named by its owner), run variables. Each line: name, value, type and
the step that extracted it. What the last step changed is highlighted; secrets are masked."""

from __future__ import annotations

from typing import Any, Mapping

from rich.console import Group
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from scenario_core.assertions import type_name
from scenario_core.events import SCENARIO, Origin, ScopeSnapshot
from scenario_core.printable import visible

from .display import Display


def origin_text(origin: Origin | None) -> str:
    if origin is None:
        return ""
    where = f"line {origin.location.line}"
    if origin.phase != SCENARIO:
        where += " (background)"  # the file's or the feature's: the line tells which
    return where


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
    }
    """

    def __init__(self, display: Display, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.display_options = display
        self.border_title = "Variables"
        self.snapshot: ScopeSnapshot | None = None
        self.scenario: str | None = None
        self.changed: frozenset[str] = frozenset()
        self.lines: list[str] = []

    def compose(self):
        yield Static("", id="variables-body")

    def on_mount(self) -> None:
        self.refresh_view()

    def show(self, snapshot: ScopeSnapshot | None, scenario: str | None = None,
             changed: frozenset[str] | set[str] = frozenset()) -> None:
        self.snapshot, self.scenario, self.changed = snapshot, scenario, frozenset(changed)
        self.refresh_view()

    def refresh_view(self) -> None:
        if not self.is_mounted:
            return
        body = self.query_one("#variables-body", Static)
        snapshot = self.snapshot
        self.lines = []
        self.border_title = f"Variables · scenario '{visible(self.scenario)}'" if self.scenario else "Variables"
        self.border_subtitle = "secrets shown" if self.display_options.reveal_secrets else ""
        if snapshot is None:
            body.update(Text("Nothing runs yet. Press n to start a run one step at a time, c to run it.",
                             style="dim"))
            return
        groups: list[tuple[str, Mapping[str, Any], Mapping[str, Origin]]] = [
            ("this scenario", snapshot.scenario, snapshot.scenario_origins),
        ]
        if snapshot.store is not None:
            groups.append((f"shared: {visible(snapshot.store.owner)}", snapshot.store_values, snapshot.store_origins))
        else:
            groups.append(("shared: none (isolated)", {}, {}))
        groups.append(("run variables", snapshot.run, {}))
        width = max(self.scrollable_content_region.width, 20)
        parts: list[Any] = []
        for title, values, origins in groups:
            heading = Text(title, style="bold underline")
            if not values and not title.startswith("shared: none"):
                heading.append("  (empty)", style="dim not underline")
            parts.append(heading)
            self.lines.append(heading.plain)
            rows = []
            for name in sorted(values):
                value = values[name]
                changed = name in self.changed and title != "run variables"
                rows.append(("* " if changed else "  ", visible(name), self.display_options.variable(name, value),
                             type_name(value), origin_text(origins.get(name)), changed))
            if rows:
                parts.append(self._table(rows, width))
        body.update(Group(*parts))

    def _table(self, rows: list[tuple], width: int) -> Text:
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
        for index, (marker, name, shown, kind, origin, changed) in enumerate(rows):
            if index:
                text.append("\n")
            text.append(marker + name, "reverse bold" if changed else "bold")
            text.append(" " * (name_w - len(marker) - len(name) + 1))
            cut = shown if len(shown) <= value_w else shown[: value_w - 1] + "…"
            text.append(cut.ljust(value_w), "cyan")
            text.append(" " + kind.ljust(type_w), "dim")
            if origin:
                text.append(("\n" + " " * (name_w + 1) if origin_below else " ") + origin, "dim")
            self.lines.append(f"{marker}{name}  {shown}  {kind}  {origin}".rstrip())
        return text

    def on_resize(self) -> None:
        self.refresh_view()

    @property
    def text(self) -> str:
        return "\n".join([str(self.border_title)] + self.lines)
