"""The step runs of this run, in order: ↑/↓ picks one, and the app shows it as it was right after
it ran (request, response, the variable scopes). It takes the scope log's place while open.

A line shows a request's path and query as sent, so it formats through the app's one `Display`
(secrets masked by core/report/masking.py, as the inspector and the curl copy are): a secret
`--var`, a `secrets:` name, an extracted token or a value set while paused never shows."""

from __future__ import annotations

from urllib.parse import urlsplit

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from scenario_core.run.stepper import StepRun
from scenario_core.support.printable import visible
from scenario_tui.widgets.display import Display
from scenario_tui.widgets.theme_styles import ERROR, SUCCESS

MARKS = {"passed": ("✓", SUCCESS), "failed": ("✗", ERROR), "skipped": ("○", "dim")}


class HistoryList(OptionList):
    DEFAULT_CSS = """
    HistoryList {
        display: none;
        height: 35%;
        min-height: 5;
        border: round $primary 60%;
        border-title-color: $text;
        scrollbar-size-vertical: 1;
        text-wrap: nowrap;  /* one step run a line */
        text-overflow: ellipsis;
        &:focus { border: round $primary; }
        &.-open { display: block; }
    }
    """
    BINDINGS = [Binding("escape", "live", "Live view", show=False)]

    # On screen (the -open class shows it): `h` opens it, Escape or `l` closes it.
    is_open: reactive[bool] = reactive(False, toggle_class="-open", init=False)

    class Picked(Message):
        """A step run was highlighted: show it as it was."""

        def __init__(self, run: StepRun) -> None:
            super().__init__()
            self.run = run

    class Closed(Message):
        """Escape: back to the live view."""

    def __init__(self, display: Display, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.display_options = display
        self.border_title = "History"
        self.runs: list[StepRun] = []

    def fill(self, runs: list[StepRun]) -> None:
        self.runs = []
        self.clear_options()
        self.add(runs)

    def add(self, runs: list[StepRun]) -> None:
        self.runs.extend(runs)
        first = len(self.runs) - len(runs) + 1
        self.add_options([Option(_label(first + i, run, self.display_options)) for i, run in enumerate(runs)])

    def pick(self, run: StepRun) -> None:
        """Put the highlight on `run` (a step chosen in the tree), without announcing it again."""
        for index in range(len(self.runs) - 1, -1, -1):
            if self.runs[index] is run:
                with self.prevent(OptionList.OptionHighlighted):
                    self.highlighted = index
                return

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if 0 <= event.option_index < len(self.runs):
            self.post_message(self.Picked(self.runs[event.option_index]))

    def action_live(self) -> None:
        self.post_message(self.Closed())

    @property
    def lines(self) -> list[str]:
        return [str(self.get_option_at_index(i).prompt) for i in range(self.option_count)]


def _label(number: int, run: StepRun, display: Display) -> Text:
    mark, style = MARKS.get(run.status, ("·", ""))
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{number:>3} ", "dim")
    text.append(mark + " ", style)
    text.append(f"{run.step.keyword} line {run.step.location.line}", "bold")
    summary = _what(run, display)
    if summary:
        text.append(" " + summary)
    text.append(f"  {visible(run.scenario.name)}", "dim")
    return text


def _what(run: StepRun, display: Display) -> str:
    """What the step did, in a few words, masked and with control characters shown as escapes."""
    if run.request is not None:  # the path: the host is the same for every step (and its port varies)
        parts = urlsplit(run.request.url)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        return f"{visible(run.request.method)} {display.line(target)}"
    if run.extracted:
        return visible(", ".join(e.name for e in run.extracted))
    return display.written(run.step.text)  # an assertion, an include, a described step: as written
