"""`?`: the keys, the tree's icons, and how stepping works."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from .file_tree import KIND_ICONS, STATUS_ICONS

KEYS = [
    ("n", "run the next step, then pause (the first n starts the run, paused before its first step)"),
    ("c", "continue: run to the next breakpoint or to the end"),
    ("b", "toggle a breakpoint on the highlighted node (step, scenario, feature, background, fragment)"),
    ("r", "restart from a fresh state (no variables, stores emptied)"),
    ("s", "stop the run (a request in flight is cancelled; a step paused before never runs)"),
    ("f", "break on failure: c pauses on a failing step, before the rest of its scenario is skipped"),
    ("g", "run to here: continue until just before the highlighted step"),
    ("o", "run the highlighted scenario only (a fresh run; r runs them all again)"),
    ("h", "history: the steps that ran, each as it was right after it (↑/↓)"),
    ("l", "back to the live view from the history (escape too)"),
    ("v", "reveal or mask secrets (tokens, passwords, auth headers)"),
    ("R", "reload the file now (it also reloads by itself when saved)"),
    ("z", "maximize or restore the focused panel"),
    ("tab", "move focus between panels"),
    ("ctrl+p", "command palette: every action, themes"),
    ("?", "this help"),
    ("q", "quit"),
]


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
        & > VerticalScroll {
            width: 90%;
            max-width: 100;
            height: 90%;
            max-height: 34;
            border: round $primary;
            border-title-color: $text;
            background: $surface;
            padding: 0 1;
        }
    }
    """
    BINDINGS = [Binding("escape,question_mark,q", "close", "Close")]

    def compose(self) -> ComposeResult:
        keys = Table.grid(padding=(0, 2))
        keys.add_column(style="bold cyan", no_wrap=True)
        keys.add_column()
        for key, what in KEYS:
            keys.add_row(key, what)
        legend = Table.grid(padding=(0, 2))
        legend.add_column(style="bold", no_wrap=True)
        legend.add_column()
        legend.add_row("Run status", "   ".join(f"{icon} {status}" for status, icon in STATUS_ICONS.items())
                       + "   ▶ about to run")
        legend.add_row("Kinds", "   ".join(f"{icon} {kind}" for kind, icon in KIND_ICONS.items() if icon))
        legend.add_row("Breakpoint", "● before a node: the run pauses when it enters that node")
        about = Text("The step about to run is highlighted and the cursor follows it. Variables show what "
                     "the running scenario sees, layer by layer; * marks what the last step changed. "
                     "Scope events log every change of scope: scenario starts, extracts, overwrites, and "
                     "the variables a feature clears when it ends.", style="dim")
        with VerticalScroll() as scroll:
            scroll.border_title = "Help — esc closes"
            yield Static(keys)
            yield Static(Text(""))
            yield Static(legend)
            yield Static(Text(""))
            yield Static(about)

    def action_close(self) -> None:
        self.dismiss(None)
