"""An invalid file: every error as `file:line:column: error: message`, with its source line and a
caret under the column. Shown instead of the tree; saving the file (or `R`) reloads it."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from scenario_core.language.errors import Diagnostic
from scenario_core.support.printable import visible
from scenario_tui.widgets.theme_styles import ERROR_BOLD


class ErrorsView(VerticalScroll, can_focus=True):
    DEFAULT_CSS = """
    ErrorsView {
        border: round $error;
        border-title-color: $error;
        border-title-style: bold;
        padding: 0 1;
        height: 1fr;
        & > Static { width: 1fr; }
        & > #errors-hint { color: $text-muted; margin-top: 1; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Errors"
        self.lines: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static("", id="errors-body")
        yield Static("Fix the file and save it: it is watched and reloads by itself (R reloads now).", id="errors-hint")

    def show(self, path: str, diagnostics: Sequence[Diagnostic], message: str | None = None) -> None:
        """Show the diagnostics of `path` (or a single `message` when the file cannot be read)."""
        name = Path(path).name
        count = len(diagnostics)
        self.border_title = (
            f"{name}: {count} error{'s' if count != 1 else ''} — the file cannot run"
            if count
            else f"{name}: cannot open"
        )
        text = Text()
        self.lines = []
        try:
            source = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            source = []
        if message:
            message = visible(message)
            text.append(message + "\n", ERROR_BOLD)
            self.lines.append(message)
        for diagnostic in diagnostics:
            location = diagnostic.location
            head = Text()
            head.append(f"{location.file}:{location.line}:{location.column}: ", "bold")
            head.append("error: ", ERROR_BOLD)
            head.append(visible(diagnostic.message))
            text.append_text(head)
            text.append("\n")
            self.lines.append(visible(str(diagnostic)))
            if 1 <= location.line <= len(source):
                line = visible(source[location.line - 1].replace("\t", " "))
                number = f"{location.line:>5} │ "
                text.append(number, "dim")
                text.append(line + "\n")
                caret = " " * (len(number) + max(location.column - 1, 0)) + "^"
                text.append(caret + "\n", ERROR_BOLD)
                self.lines.append(number + line)
            text.append("\n")
        self.query_one("#errors-body", Static).update(text)
