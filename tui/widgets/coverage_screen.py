"""`C`: the run's OpenAPI coverage as `run --coverage` prints it (the same lines: which operations
were called, each one's responses, parameters and body properties, and the gaps)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from scenario_tui.output.coverage_view import coverage_lines

if TYPE_CHECKING:
    from scenario_core.report.coverage import Coverage

NOT_RUN = "No run yet: coverage is collected as the run goes (n or c starts it)."
NO_DESCRIPTION = "No OpenAPI description is in force (parameter openapi, or --openapi): nothing to cover."


def coverage_text(coverage: Coverage | None) -> str:
    if coverage is None:
        return NOT_RUN
    if not coverage.descriptions:
        return NO_DESCRIPTION
    return "\n".join(coverage_lines(coverage)).strip("\n")


class CoverageScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    CoverageScreen {
        align: center middle;
        & > VerticalScroll {
            width: 90%;
            max-width: 120;
            height: 90%;
            border: round $primary;
            border-title-color: $text;
            background: $surface;
            padding: 0 1;
        }
    }
    """
    BINDINGS = [
        Binding("escape", "dismiss", "Close"),
        Binding("C", "dismiss", "Close", show=False),
        Binding("q", "dismiss", "Close", show=False),
    ]

    def __init__(self, coverage: Coverage | None) -> None:
        super().__init__()
        self.text = coverage_text(coverage)

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.border_title = "OpenAPI coverage of this run · Esc closes"
            yield Static(self.text, markup=False, id="coverage-text")

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
