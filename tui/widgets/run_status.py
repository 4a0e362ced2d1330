"""One line at the top: the file, what the run is doing, and the counts so far.

It never wraps and never loses the state: when the line is too long for the screen, the
scenario's name is clipped first, then the note, then the file name; the counts go last.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from scenario_core.support.printable import visible

MIN_NAME = 6  # a clipped name keeps this many characters (with its …)


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
        self.subject = ""  # the scenario the state is about: `of 'NAME'` after the state
        self.counts = ""
        self.note = ""
        self._shown: tuple | None = None

    def set(
        self,
        *,
        file_name: str | None = None,
        state: str | None = None,
        counts: str | None = None,
        note: str | None = None,
        subject: str | None = None,
    ) -> None:
        if file_name is not None:
            self.file_name = file_name
        if state is not None:
            self.state = state
            if subject is None:
                subject = ""  # a new state without a scenario: the old one's name would be stale
        if subject is not None:
            self.subject = subject
        if counts is not None:
            self.counts = counts
        if note is not None:
            self.note = note
        shown = (self.file_name, self.state, self.subject, self.counts, self.note)
        if shown == self._shown:
            return  # a run sets it for every scenario: draw only what changed
        self._shown = shown
        self._draw()

    def on_resize(self) -> None:
        self._draw()
        self._shown = None

    def _width(self) -> int:
        width = self.size.width or (self.app.size.width if self.is_attached else 0)
        return max(width - 2, 20)  # the padding

    def _draw(self) -> None:
        parts = self.parts(self._width())
        text = Text(no_wrap=True, overflow="ellipsis")
        file_name, state, subject, note, counts = parts
        text.append(file_name, "bold")  # names from files: shown, never obeyed
        if state:
            text.append("  ")
            text.append(state + (f" of '{subject}'" if subject else ""), _state_style(self.state))
        if note:  # before the counts: a note (a feature's reset) matters more
            text.append("  " + note, "bold italic")
        if counts:
            text.append("  " + counts, "dim")
        self.update(text, layout=False)  # always one line: no need to lay the screen out again

    def parts(self, width: int) -> tuple[str, str, str, str, str]:
        """The five parts as shown in `width` columns: file, state, scenario name, note, counts."""
        file_name, state, subject = visible(self.file_name), visible(self.state), visible(self.subject)
        note, counts = visible(self.note), self.counts

        def length() -> int:
            return (
                len(file_name)
                + (2 + len(state) if state else 0)
                + (len(subject) + 6 if subject else 0)
                + (2 + len(note) if note else 0)
                + (2 + len(counts) if counts else 0)
            )

        excess = length() - width
        if excess > 0 and subject:
            subject = _clip(subject, max(len(subject) - excess, MIN_NAME))
            excess = length() - width
        if excess > 0 and note:
            keep = len(note) - excess
            note = _clip(note, keep) if keep >= 12 else ""
            excess = length() - width
        if excess > 0 and counts:  # `0 skipped` says least
            counts = " · ".join(part for part in counts.split(" · ") if not part.startswith("0 "))
            excess = length() - width
        if excess > 0 and file_name:
            file_name = _clip(file_name, max(len(file_name) - excess, MIN_NAME + 6))
        return file_name, state, subject, note, counts  # the counts: cut at the edge if still too long

    @property
    def text(self) -> str:
        """The whole line, unclipped."""
        state = self.state + (f" of '{self.subject}'" if self.subject else "")
        return " ".join(p for p in (self.file_name, state, self.note, self.counts) if p)

    @property
    def shown(self) -> str:
        """The line as it fits the screen."""
        file_name, state, subject, note, counts = self.parts(self._width())
        state = state + (f" of '{subject}'" if subject else "")
        return "  ".join(p for p in (file_name, state, note, counts) if p)


def _clip(text: str, keep: int) -> str:
    return text if len(text) <= keep else text[: max(keep - 1, 1)] + "…"


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
