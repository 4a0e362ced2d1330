"""The variables a running scenario sees, one per line, grouped by layer innermost first: this
scenario, the sharing store (named by its owner), run variables. Each line: name, value, type and
the step that extracted it. What the last step changed is highlighted; secrets are masked."""

from __future__ import annotations

from typing import Any, Mapping

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from scenario_core.events import BACKGROUND_FILE, SCENARIO, Origin, ScopeSnapshot

from .display import Display, json_type


def origin_text(origin: Origin | None) -> str:
    if origin is None:
        return ""
    where = f"line {origin.location.line}"
    if origin.phase != SCENARIO:
        where += " (file background)" if origin.phase == BACKGROUND_FILE else " (feature background)"
    return where


class VariablesPanel(VerticalScroll, can_focus=True):
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
        self.border_title = f"Variables · scenario '{self.scenario}'" if self.scenario else "Variables"
        self.border_subtitle = "secrets shown" if self.display_options.reveal_secrets else ""
        if snapshot is None:
            body.update(Text("Nothing runs yet. Press n to start a run one step at a time, c to run it.",
                             style="dim"))
            return
        groups: list[tuple[str, Mapping[str, Any], Mapping[str, Origin]]] = [
            ("this scenario", snapshot.scenario, snapshot.scenario_origins),
        ]
        if snapshot.store is not None:
            groups.append((f"shared: {snapshot.store.owner}", snapshot.store_values, snapshot.store_origins))
        else:
            groups.append(("shared: none (isolated)", {}, {}))
        groups.append(("run variables", snapshot.run, {}))
        parts: list[Any] = []
        for title, values, origins in groups:
            heading = Text(title, style="bold underline")
            if not values and not title.startswith("shared: none"):
                heading.append("  (empty)", style="dim not underline")
            parts.append(heading)
            self.lines.append(heading.plain)
            if not values:
                continue
            table = Table.grid(padding=(0, 1), expand=True)
            table.add_column("name", no_wrap=True, style="bold")
            table.add_column("value", overflow="ellipsis", no_wrap=True, ratio=1)
            table.add_column("type", no_wrap=True, style="dim")
            table.add_column("from", no_wrap=True, style="dim")
            for name in sorted(values):
                value = values[name]
                changed = name in self.changed and title != "run variables"
                shown = self.display_options.variable(name, value)
                marker = "* " if changed else "  "
                row = (Text(marker + name, style="reverse bold" if changed else ""), Text(shown, style="cyan"),
                       json_type(value), origin_text(origins.get(name)))
                table.add_row(*row)
                self.lines.append(f"{marker}{name}  {shown}  {row[2]}  {row[3]}".rstrip())
            parts.append(table)
        body.update(Group(*parts))

    @property
    def text(self) -> str:
        return "\n".join([str(self.border_title)] + self.lines)
