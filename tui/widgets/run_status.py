"""The line at the top: the file, what the run is doing, a note, and the counts so far.

It never loses the state and never cuts a note: when the line is too long for the screen, the
counts that are 0 go first (`0 skipped` says least), then the scenario's name is clipped to what
is left, then the note moves to a line of its own below (wrapped if it must be; the name gets
back the room it leaves), then the file name is clipped, then a fragment's name in the state; the
other counts go last, whole (a count cut at the edge would say nothing).
"""

from __future__ import annotations

import re

from rich.console import Group
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from scenario_core.support.printable import visible
from scenario_tui.widgets.theme_styles import ERROR_BOLD, SUCCESS_BOLD, VALUE_BOLD, WARNING_BOLD

MIN_NAME = 6  # a clipped name keeps this many characters (with its …)


class RunStatus(Static):
    DEFAULT_CSS = """
    RunStatus {
        height: auto;
        max-height: 3;
        width: 1fr;
        background: $panel;
        color: $text;
        padding: 0 1;
    }
    """

    # The line's parts; a change draws the line again, once for all the parts set together.
    file_name: reactive[str] = reactive("", init=False)
    state: reactive[str] = reactive("", init=False)
    subject: reactive[str] = reactive("", init=False)  # the scenario the state is about: `of 'NAME'`
    counts: reactive[str] = reactive("", init=False)
    note: reactive[str] = reactive("", init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self._draw_pending = False
        self._note_below = False  # the note was drawn on a line of its own

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

    # A run sets the line for every scenario: a part set to what it was draws nothing (reactive
    # compares), and the parts set by one `set` are drawn once, before the next frame.
    def watch_file_name(self) -> None:
        self._draw_soon()

    def watch_state(self) -> None:
        self._draw_soon()

    def watch_subject(self) -> None:
        self._draw_soon()

    def watch_counts(self) -> None:
        self._draw_soon()

    def watch_note(self) -> None:
        self._draw_soon()

    def _draw_soon(self) -> None:
        if not self._draw_pending:
            self._draw_pending = True
            self.call_next(self._draw)

    def on_resize(self) -> None:
        self._draw()

    def _width(self) -> int:
        width = self.size.width or (self.app.size.width if self.is_attached else 0)
        return max(width - 2, 20)  # the padding

    def _draw(self) -> None:
        self._draw_pending = False
        width = self._width()
        file_name, state, subject, note, counts = self.parts(width)
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(file_name, "bold")  # names from files: shown, never obeyed
        if state:
            text.append("  ")
            text.append(_about(state, subject), _state_style(self.state))
        if note:  # before the counts: a note (a feature's reset) matters more
            text.append("  " + note, "bold italic")
        if counts:
            text.append("  " + counts, "dim")
        text.truncate(width, overflow="ellipsis")  # (the widget would wrap it onto the note's line)
        below = self.note_below(width)
        # one line, as mostly: no need to lay the screen out again
        self.update(Group(text, Text(below, "bold italic")) if below else text, layout=bool(below) or self._note_below)
        self._note_below = bool(below)

    def parts(self, width: int) -> tuple[str, str, str, str, str]:
        """The first line's five parts as shown in `width` columns: file, state, scenario name,
        note (unless it is on a line of its own), counts."""
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

        whole = subject

        def fit_subject() -> int:  # the scenario's name in what the other parts leave; the excess left
            nonlocal subject
            subject = whole
            excess = length() - width
            if excess > 0 and subject:
                subject = _clip(subject, max(len(subject) - excess, MIN_NAME))
            return length() - width

        if length() > width and counts:  # `0 skipped` says least: it goes before any name is cut
            counts = " · ".join(part for part in counts.split(" · ") if not part.startswith("0 "))
        excess = fit_subject()
        if excess > 0 and note:  # whole, on the line below; the name gets back what it leaves
            note = ""
            excess = fit_subject()
        if excess > 0 and file_name:
            file_name = _clip(file_name, max(len(file_name) - excess, MIN_NAME + 6))
            excess = length() - width
        named = re.search(r"'([^']+)'$", state)  # `of fragment 'NAME'`: its name gives way last
        if excess > 0 and named:
            name = named.group(1)
            state = state[: named.start(1)] + _clip(name, max(len(name) - excess, MIN_NAME)) + "'"
            excess = length() - width
        if excess > 0 and counts:  # a count cut at the edge (`3…`) says nothing: they go whole
            counts = ""
        return file_name, state, subject, note, counts

    def note_below(self, width: int) -> str:
        """The note when it does not fit the first line (it then has a line of its own), or ""."""
        return visible(self.note) if self.note and not self.parts(width)[3] else ""

    @property
    def text(self) -> str:
        """The whole line, unclipped."""
        state = _about(self.state, self.subject)
        return " ".join(p for p in (self.file_name, state, self.note, self.counts) if p)

    @property
    def shown(self) -> str:
        """The header as it fits the screen: its line, then the note if it has a line of its own."""
        width = self._width()
        file_name, state, subject, note, counts = self.parts(width)
        state = _about(state, subject)
        below = self.note_below(width)
        return "  ".join(p for p in (file_name, state, note, counts) if p) + (f"\n{below}" if below else "")


def _about(state: str, subject: str) -> str:
    """The state and the scenario it is about: `line 3 of 'read pet'`, or, where the state already
    says whose line it is, `line 14 of fragment 'login' in 'create a pet'`."""
    if not subject:
        return state
    return f"{state} {'in' if ' of ' in state else 'of'} '{subject}'"


def _clip(text: str, keep: int) -> str:
    return text if len(text) <= keep else text[: max(keep - 1, 1)] + "…"


def _state_style(state: str) -> str:
    if state.startswith("paused"):
        return WARNING_BOLD
    if state.startswith("running"):
        return VALUE_BOLD
    if "failed" in state or state.startswith("invalid") or state.startswith("stopped"):
        return ERROR_BOLD
    if state.startswith("finished"):
        return SUCCESS_BOLD
    return ""
