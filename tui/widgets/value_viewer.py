"""The value viewer: one variable whole (pretty JSON, its type, which step set it, every write of it
in this run, old → new), or a long list of names the scope log summarised. Escape closes it.

It is built from a function, not from text, so that `v` (reveal or mask secrets) can build it again
while it is open: values stay masked unless secrets are revealed."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Callable, Sequence

from rich.console import Group
from rich.highlighter import JSONHighlighter
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from scenario_core.language.nodes.steps import Step
from scenario_core.run.comparison import type_name
from scenario_core.run.events import Origin
from scenario_core.support.plural import counted
from scenario_core.support.printable import visible, visible_json
from scenario_tui.widgets.display import Display
from scenario_tui.widgets.theme_styles import EDIT_BOLD, ERROR, SUCCESS, VALUE
from scenario_tui.widgets.write_history import NEW, Write, WriteHistory

if TYPE_CHECKING:
    from scenario_tui.widgets.variables_panel import VariablesPanel

MAX_HISTORY_VALUE = 300  # an old → new line stays readable; the value itself is shown whole above
_JSON = JSONHighlighter()


class ValueViewer(ModalScreen[None]):
    DEFAULT_CSS = """
    ValueViewer {
        align: center middle;
        & > VerticalScroll {
            width: 94%;
            height: 90%;
            border: round $primary;
            border-title-color: $text;
            border-subtitle-color: $text-muted;
            background: $surface;
            padding: 0 1;
            & > Static { width: 1fr; }
        }
    }
    """
    # A modal screen stops the app's keys: `v` is passed on so secrets can be revealed from here.
    BINDINGS = [Binding("escape", "close", "Close"), Binding("v", "app.reveal_secrets", "Secrets")]

    def __init__(self, title: str, build: Callable[[], list[Text]]) -> None:
        super().__init__()
        self.title_text = title
        self.build = build
        self.lines: list[str] = []

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="viewer") as scroll:
            scroll.border_title = self.title_text
            scroll.border_subtitle = "Escape closes · v reveals or masks secrets"
            yield Static("", id="viewer-body")

    def on_mount(self) -> None:
        self.rebuild()
        self.query_one("#viewer").focus()

    def rebuild(self) -> None:
        """Build the text again (after `v`)."""
        parts = self.build()
        self.lines = [line for part in parts for line in (part.plain.splitlines() or [""])]
        self.query_one("#viewer-body", Static).update(Group(*parts))

    @property
    def text(self) -> str:
        return "\n".join([self.title_text] + self.lines)

    def action_close(self) -> None:
        self.dismiss(None)


def variable_viewer(selected: VariablesPanel.ValueSelected, display: Display, history: WriteHistory) -> ValueViewer:
    """The viewer for a VariablesPanel.ValueSelected: the value, where it was set, every write."""
    name = selected.name
    return ValueViewer(
        f"Value · {visible(name)}",
        lambda: variable_lines(
            display,
            name,
            selected.value,
            selected.layer,
            selected.origin,
            history.of(name),
            history.dropped.get(name, 0),
        ),
    )


def _rule(title: str) -> Text:
    return Text(f"── {title} ", style="bold")


def _compact(display: Display, name: str, value: object) -> str:
    if value is NEW:
        return "(new)"
    shown = display.variable(name, value)
    return shown if len(shown) <= MAX_HISTORY_VALUE else shown[: MAX_HISTORY_VALUE - 1] + "…"


def _step_text(step: Step, display: Display) -> str:
    """The step as written, masked like the inspector's (a literal secret in the file)."""
    return display.written(f"{step.keyword} {step.text}") if step is not None else ""


def variable_lines(
    display: Display,
    name: str,
    value: object,
    layer: str,
    origin: Origin | None,
    writes: Sequence[Write],
    dropped: int = 0,
) -> list[Text]:
    """A variable as the viewer shows it: heading, where it was set, the value, its history."""
    head = Text()
    head.append(visible(name), "bold")
    head.append(f"  {type_name(value)}", VALUE)
    head.append(f"  in {visible(layer)}", "dim")
    lines = [head]
    setter = Text("set by ", style="dim")
    if origin is not None and getattr(origin, "edited", False):  # run.edits.EditOrigin
        setter.append("you", "bold")
        setter.append(f" (edited while paused at line {origin.location.line})  · scenario '{visible(origin.scenario)}'")
    elif origin is not None:
        step = next(
            (
                w.step
                for w in reversed(writes)
                if not w.edited and w.step is not None and w.step.location.line == origin.location.line
            ),
            None,
        )
        setter.append(f"line {origin.location.line}", "bold")
        if step is not None:
            setter.append("  " + _step_text(step, display))
        setter.append(
            f"  · scenario '{visible(origin.scenario)}'" + (" (background)" if origin.phase != "scenario" else "")
        )
    elif writes and (last_step := writes[-1].step) is not None:
        setter.append(f"line {last_step.location.line}", "bold")
        setter.append("  " + _step_text(last_step, display) + f"  · scenario '{visible(writes[-1].scenario or '')}'")
    else:
        setter.append("the run: a --var or --variables-file value, not an extract")
    lines.append(setter)
    lines.append(_rule("value"))
    masked = display.masker.value(value, name)
    try:
        pretty = json.dumps(masked, indent=2, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        pretty = repr(masked)
    lines.append(_JSON(Text(display.text(visible_json(pretty)))))
    count = len(writes) + dropped
    lines.append(_rule(f"history in this run ({count} write{'s' if count != 1 else ''})"))
    if dropped:
        lines.append(Text(f"… {dropped} earlier writes not kept", style="dim"))
    if not writes:
        lines.append(Text("no extract wrote it in this run", style="dim"))
    for write in writes:
        where = Text()
        if write.edited:
            where.append("edited by you", EDIT_BOLD)
            if write.step is not None:
                where.append(f"  while paused at line {write.step.location.line}")
        elif write.step is not None:  # an extract: always its step
            where.append(f"line {write.step.location.line}", "bold")
            where.append(f"  {_step_text(write.step, display)}")
        where.append(f"  · scenario '{visible(write.scenario or '')}' · into {visible(', '.join(write.layers))}", "dim")
        lines.append(where)
        change = Text("    ")
        change.append(_compact(display, name, write.old), "dim" if write.old is NEW else ERROR)
        change.append(" → ")
        change.append(_compact(display, name, write.new), SUCCESS)
        lines.append(change)
    return lines


def names_lines(what: str, names: Sequence[str]) -> list[Text]:
    """A long list of names, in full (the scope log shows its first few)."""
    return [
        Text(f"{what}: {counted(len(names), 'name', thousands=True)}", style="bold"),
        Text(visible(", ".join(names))),
    ]
