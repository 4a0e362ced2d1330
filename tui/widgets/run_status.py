"""One line at the top: the file, what the run is doing, and the counts so far."""

from __future__ import annotations

from rich.text import Text

from scenario_core.printable import visible
from textual.widgets import Static


class RunStatus(Static):
    DEFAULT_CSS = """
    RunStatus {
        height: 1;
        width: 1fr;
        background: $panel;
        color: $text;
        padding: 0 1;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.file_name = ""
        self.state = ""
        self.counts = ""
        self.note = ""

    def set(self, *, file_name: str | None = None, state: str | None = None, counts: str | None = None,
            note: str | None = None) -> None:
        if file_name is not None:
            self.file_name = file_name
        if state is not None:
            self.state = state
        if counts is not None:
            self.counts = counts
        if note is not None:
            self.note = note
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(visible(self.file_name), "bold")  # names from files: shown, never obeyed
        if self.state:
            text.append("  ")
            text.append(visible(self.state), _state_style(self.state))
        if self.note:  # before the counts: a note (a feature's reset) matters more
            text.append("  " + visible(self.note), "bold italic")
        if self.counts:
            text.append("  " + self.counts, "dim")
        self.update(text, layout=False)  # always one line: no need to lay the screen out again

    @property
    def text(self) -> str:
        return " ".join(p for p in (self.file_name, self.state, self.note, self.counts) if p)


def _state_style(state: str) -> str:
    if state.startswith("paused"):
        return "bold yellow"
    if state.startswith("running"):
        return "bold cyan"
    if "failed" in state or state.startswith("invalid") or state.startswith("stopped"):
        return "bold red"
    if state.startswith("finished"):
        return "bold green"
    return ""
