"""The effective parameters of the highlighted node: every key by its full name, its value, where
the value came from and what it overrides; for a feature or scenario, which store it shares.
Everything shown comes from core (`parameter_nodes`); this widget only lays it out."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from scenario_core.language.parameter_keys import BASE_URL
from scenario_core.parameters.params_report import ParameterNode
from scenario_core.parameters.resolution import COMMAND_LINE, EffectiveParameters, EffectiveValue
from scenario_core.support.printable import visible
from scenario_tui.output.params_view import format_value
from scenario_tui.widgets.display import Display
from scenario_tui.widgets.theme_styles import SUCCESS_BOLD, VALUE, WARNING_BOLD

_KIND = {"file": "file", "feature": "feature", "scenario": "scenario"}


def provenance(effective: EffectiveValue, display: Display) -> tuple[str, str]:
    """(`feature 'Pets' line 7`, `(file 30, default 30)`); `demo` for the base URL `scenario-tui
    demo` gives (on the command line, as the JSON report's `source` still says)."""
    winner = effective.winner
    where = display.plain(winner.describe())
    if display.base_url_source and effective.key == BASE_URL and winner.source == COMMAND_LINE:
        where = display.base_url_source
    lower = ", ".join(f"{s.short()} {display.plain(format_value(s.value))}" for s in effective.overridden)
    return where, f"({lower})" if lower else ""


class ParametersPanel(VerticalScroll, can_focus=True):
    """Always on screen: what the highlighted node runs with."""

    ALLOW_MAXIMIZE = True  # z fills the screen with it
    DEFAULT_CSS = """
    ParametersPanel {
        height: auto;
        max-height: 12;
        border: round $secondary 60%;
        border-title-color: $text;
        padding: 0 1;
        scrollbar-size-vertical: 1;
        &:focus { border: round $secondary; }
        & > Static { width: 1fr; }
    }
    """

    # The highlighted node's parameters and what is highlighted (`step 'GET /pets' line 9`): the
    # panel is drawn again when they change.
    shown: reactive[tuple[ParameterNode | None, str]] = reactive((None, ""), always_update=True, init=False)

    def __init__(self, display: Display, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.display_options = display
        self.border_title = "Parameters"

    def compose(self) -> ComposeResult:
        yield Static("", id="parameters-body")

    def show(self, node: ParameterNode | None, subject: str = "") -> None:
        """Show `node`'s values; `subject` names what is highlighted (`step 'GET /pets' line 9`)."""
        self.shown = (node, subject)

    def watch_shown(self) -> None:
        self._refresh_body()

    @property
    def node(self) -> ParameterNode | None:
        return self.shown[0]

    def on_resize(self) -> None:
        self._refresh_body()

    @property
    def text(self) -> str:
        """What the panel shows, as plain text (title and lines)."""
        body = self.query_one("#parameters-body", Static)
        renderable = body.content
        lines = [str(self.border_title or "")]
        if isinstance(renderable, Group):
            for part in renderable.renderables:
                lines.extend(_plain(part))
        return "\n".join(lines)

    def _refresh_body(self) -> None:
        if not self.is_mounted:
            return
        body = self.query_one("#parameters-body", Static)
        node = self.node
        if node is None:
            self.border_title = "Parameters"
            self.border_subtitle = ""
            body.update("")
            return
        name = display_name = visible(node.name)  # names from the file: shown, never obeyed
        name = display_name if node.kind == "file" else f"'{display_name}'"
        self.border_title = f"Parameters · {_KIND[node.kind]} {name}"
        if self.shown[1]:
            self.border_title += f" · {visible(self.shown[1])}"
        parts: list[RenderableType] = []
        sharing = Text()
        if node.kind == "file":
            sharing.append("standalone scenarios: ", "dim")
        sharing.append(visible(node.sharing), SUCCESS_BOLD if node.store else WARNING_BOLD)
        parts.append(sharing)
        width = self.scrollable_content_region.width or 80
        key_width = max(len(key) for key in node.parameters)
        rows = [
            (
                key,
                display_value(effective, self.display_options, node.parameters, key),
                *provenance(effective, self.display_options),
            )
            for key, effective in node.parameters.items()
        ]
        value_width = max(len(value) for _, value, _, _ in rows)
        if width >= key_width + value_width + 30:
            table = Table.grid(padding=(0, 2), expand=False)
            table.add_column(no_wrap=True, style="bold")
            table.add_column(no_wrap=False, style=VALUE, overflow="fold")
            table.add_column(overflow="fold")
            for key, value, where, lower in rows:
                cell = Text(where)
                if lower:
                    cell.append("  " + lower, "dim")
                table.add_row(key, value, cell)
            parts.append(table)
        else:  # narrow: the key and value on one line (if they fit), the provenance below
            for key, value, where, lower in rows:
                line = Text()
                line.append(key, "bold")
                line.append("\n  = " if len(key) + 3 + len(value) > width else " = ")
                line.append(value, VALUE)
                line.append("\n  ← " + where)
                if lower:
                    line.append(" " + lower, "dim")
                parts.append(line)
        body.update(Group(*parts))


def display_value(
    effective: EffectiveValue,
    display: Display,
    parameters: EffectiveParameters | None = None,
    key: str | None = None,
) -> str:
    """The value as shown: a secret parameter's (`header.Authorization`) masked unless `v` reveals."""
    value = effective.value
    if parameters is not None and key is not None and not display.reveal_secrets:
        from scenario_core.parameters.params_report import shown_value

        value = shown_value(parameters, key, value)
    return display.plain(format_value(value))


def _plain(renderable: RenderableType) -> list[str]:
    if isinstance(renderable, Text):
        return renderable.plain.splitlines()
    if isinstance(renderable, Table):
        lines = []
        cells = [[c.plain if isinstance(c, Text) else str(c) for c in column._cells] for column in renderable.columns]
        for row in zip(*cells):
            lines.append("  ".join(row))
        return lines
    return [str(renderable)]
