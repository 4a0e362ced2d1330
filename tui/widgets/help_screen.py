"""`?`: the keys, the tree's icons, and how stepping works."""

from __future__ import annotations

from typing import Iterable

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from scenario_tui.widgets.theme_styles import VALUE_BOLD
from scenario_tui.widgets.tree_items import KIND_ICONS, STATUS_ICONS

KEYS = [
    ("n", "run the next step, then pause (the first n starts the run, paused before its first step)"),
    ("c", "continue: run to the next breakpoint or to the end"),
    (
        "b",
        "toggle a breakpoint on the highlighted node (step, scenario, feature, background, fragment, file); "
        "refused where it could never fire (parameters)",
    ),
    ("r", "restart from a fresh state (no variables, stores emptied)"),
    ("s", "stop the run (a request in flight is cancelled; a step paused before never runs)"),
    ("f", "break on failure: c pauses on a failing step, before the rest of its scenario is skipped"),
    ("g", "run to here: continue until just before the highlighted step"),
    ("o", "run the highlighted scenario only (a fresh run; r runs them all again)"),
    ("h", "history: the steps that ran, each as it was right after it (↑/↓)"),
    ("l", "back to the live view from the history (escape too)"),
    ("v", "reveal or mask secrets (tokens, passwords, auth headers)"),
    ("R", "reload the files now (they also reload by themselves when saved)"),
    ("e", "open the highlighted node's file in $EDITOR at its line (then $VISUAL, then vi); reloads after"),
    ("/", "filter the tree by name or @tag; Enter goes back to the tree, Esc clears"),
    ("z", "maximize or restore the focused panel"),
    ("<", "narrow the tree (it takes a share of the screen's width: it grows with the terminal)"),
    (">", "widen the tree"),
    ("w", "wrap the inspector's long lines, or not (←/→ then scroll)"),
    (
        "y",
        "copy the inspected request as curl (OSC 52, if the terminal supports it) and show it to select (masked unless v)",
    ),
    (
        "=",
        "while paused: edit a variable in a layer of the paused scenario (this scenario, its shared store; "
        "--var is read-only); Enter applies, ctrl+d deletes",
    ),
    ("a", "while paused: re-send the step paused on with the variables as they are now (again, once it ran)"),
    ("d", "the inspected response against the same step's in the previous run (or a loaded JSON report)"),
    ("j", "JSON-path playground on the inspected response: matches as you type; ctrl+s writes the extract"),
    ("p", "paste a curl command (Copy as cURL) as a new step after the highlighted step; ctrl+s writes it"),
    ("C", "OpenAPI coverage of this run: operations, statuses and parameters exercised, and the gaps"),
    ("↑ ↓", "move in the tree, the Variables panel, the history"),
    ("→ ←", "expand, then go to the first child · collapse, then go to the parent"),
    ("space", "expand or collapse the highlighted node"),
    ("Enter", "inspect the highlighted node · value viewer on a variable · a long list in Scope events"),
    ("Tab", "move focus between panels (shift+tab: back)"),
    ("ctrl+p", "command palette: every action, themes"),
    ("?", "this help"),
    ("q", "quit"),
]


def app_keys(bindings: Iterable[Binding | tuple[str, ...]]) -> list[tuple[str, str]]:
    """KEYS, then any key the app binds that KEYS does not name yet (with its footer description)."""
    rows = list(KEYS)
    named = {key for keys, _ in KEYS for key in keys.split()}
    for binding in bindings:
        if not isinstance(binding, Binding) or not binding.description:
            continue
        shown = binding.key_display or binding.key
        if shown not in named and binding.key not in named:
            rows.append((shown, binding.description))
            named.add(shown)
    return rows


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
        keys.add_column(style=VALUE_BOLD, no_wrap=True)
        keys.add_column()
        for key, what in app_keys(self.app.BINDINGS):
            keys.add_row(key, what)
        legend = Table.grid(padding=(0, 2))
        legend.add_column(style="bold", no_wrap=True)
        legend.add_column()
        legend.add_row(
            "Run status", "   ".join(f"{icon} {status}" for status, icon in STATUS_ICONS.items()) + "   ▶ about to run"
        )
        legend.add_row("Kinds", "   ".join(f"{icon} {kind}" for kind, icon in KIND_ICONS.items() if icon))
        legend.add_row("Breakpoint", "● before a node: the run pauses when it enters that node")
        legend.add_row(
            "Suite",
            "scenario-tui DIR or several files: one ▣ root per file, run in order; "
            "a file with errors shows ✗ and its count, the inspector its errors",
        )
        about = Text(
            "The step about to run is highlighted and the cursor follows it. Variables show what "
            "the running scenario sees, layer by layer; * marks what the last step changed. "
            "Scope events log every change of scope: scenario starts, extracts, overwrites, and "
            "the variables a feature clears when it ends.",
            style="dim",
        )
        with VerticalScroll() as scroll:
            scroll.border_title = "Help — esc closes"
            yield Static(keys)
            yield Static(Text(""))
            yield Static(legend)
            yield Static(Text(""))
            yield Static(about)

    def action_close(self) -> None:
        self.dismiss(None)
