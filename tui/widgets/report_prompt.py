"""The palette's "Compare responses with a JSON report": asks for the report's path (what `run
--report-json PATH` wrote). Enter gives the path to the app, Escape closes without one."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class ReportPrompt(ModalScreen[str | None]):
    DEFAULT_CSS = """
    ReportPrompt {
        align: center middle;
        & > Vertical {
            width: 90%;
            max-width: 76;
            height: auto;
            border: round $primary;
            border-title-color: $text;
            border-subtitle-color: $text-muted;
            background: $surface;
            padding: 0 1;
        }
        & #report-prompt-hint { color: $text-muted; }
    }
    """
    BINDINGS = [Binding("escape", "close", "Close")]

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Compare responses with a JSON report"
            box.border_subtitle = "Enter loads · Esc closes"
            yield Static("The path of a report that run --report-json wrote:", id="report-prompt-hint")
            yield Input(id="report-prompt-path")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        path = event.value.strip()
        self.dismiss(path or None)

    def action_close(self) -> None:
        self.dismiss(None)
