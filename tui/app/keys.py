"""The app's keys (its footer and help screen list them) and its command-palette entries: every
action is reachable both ways."""

from __future__ import annotations

from typing import Iterator, Protocol

from textual.app import SystemCommand
from textual.binding import Binding, BindingType

APP_BINDINGS: list[BindingType] = [
    Binding("n", "next_step", "Next"),
    Binding("c", "continue_run", "Continue"),
    Binding("b", "toggle_breakpoint", "Breakpoint"),
    Binding("r", "restart", "Restart"),
    Binding("s", "stop", "Stop"),
    Binding("question_mark", "help", "Help", key_display="?"),  # early: a narrow footer still shows it
    Binding("f", "break_on_failure(True)", "Break on fail ○"),  # one of the two shows: its state
    Binding("f", "break_on_failure(False)", "Break on fail ●"),
    Binding("g", "run_to_here", "Run to here", show=False),
    Binding("o", "run_only", "Only this", show=False),
    Binding("h", "history", "History"),
    Binding("l", "live_view", "Live view", show=False),
    Binding("v", "reveal_secrets", "Secrets"),
    Binding("R", "reload", "Reload"),
    Binding("z", "toggle_maximize", "Zoom"),
    Binding("less_than_sign", "narrow_tree", "Narrow tree", key_display="<", show=False),
    Binding("greater_than_sign", "widen_tree", "Widen tree", key_display=">", show=False),
    Binding("w", "toggle_wrap", "Wrap", show=False),
    Binding("y", "copy_curl", "Copy curl", show=False),
    Binding("j", "json_playground", "JSON path", show=False),
    Binding("p", "paste_curl", "Paste curl", show=False),
    Binding("equals_sign", "edit_variable", "Edit var", key_display="=", show=False),  # edit and continue
    Binding("a", "resend_step", "Send again", show=False),
    Binding("d", "response_diff", "Response changes", show=False),
    Binding("C", "coverage", "OpenAPI coverage of this run", show=False),
    Binding("tab", "focus_next", "Panels", key_display="Tab", priority=True),  # over the screen's hidden one
    Binding("slash", "filter_tree", "Filter", key_display="/"),
    Binding("e", "edit", "Edit"),
    Binding("q", "quit", "Quit"),
]


class Actions(Protocol):
    """The app's actions that the palette's commands call (the app has them)."""

    def action_next_step(self) -> None: ...
    def action_continue_run(self) -> None: ...
    def action_toggle_breakpoint(self) -> None: ...
    def action_restart(self) -> None: ...
    def action_stop(self) -> None: ...
    def action_reveal_secrets(self) -> None: ...
    def action_reload(self) -> None: ...
    def action_copy_curl(self) -> None: ...
    def action_json_playground(self) -> None: ...
    def action_paste_curl(self) -> None: ...
    def action_edit_variable(self) -> None: ...
    def action_resend_step(self) -> None: ...
    def action_response_diff(self) -> None: ...
    def action_load_report(self) -> None: ...
    def action_coverage(self) -> None: ...
    def action_toggle_wrap(self) -> None: ...
    def action_break_on_failure(self, on: bool) -> None: ...
    def action_run_to_here(self) -> None: ...
    def action_run_only(self) -> None: ...
    def action_history(self) -> None: ...
    def action_help(self) -> None: ...
    def action_widen_tree(self) -> None: ...
    def action_narrow_tree(self) -> None: ...


def app_commands(app: Actions) -> Iterator[SystemCommand]:
    yield SystemCommand("Next step", "Run the next step, then pause (n)", app.action_next_step)
    yield SystemCommand("Continue", "Run to the next breakpoint or the end (c)", app.action_continue_run)
    yield SystemCommand("Toggle breakpoint", "On the highlighted node (b)", app.action_toggle_breakpoint)
    yield SystemCommand("Restart", "Run again from a fresh state (r)", app.action_restart)
    yield SystemCommand("Stop", "Stop the run, cancelling a request in flight (s)", app.action_stop)
    yield SystemCommand(
        "Reveal or mask secrets", "Show tokens and auth headers, or mask them (v)", app.action_reveal_secrets
    )
    yield SystemCommand("Reload file", "Read the file again (R)", app.action_reload)
    yield SystemCommand(
        "Copy request as curl", "The inspected request, by OSC 52 and shown to select (y)", app.action_copy_curl
    )
    yield SystemCommand(
        "JSON path playground", "Try paths on the inspected response; write an extract (j)", app.action_json_playground
    )
    yield SystemCommand("Paste a curl command", "As a new step after the highlighted step (p)", app.action_paste_curl)
    yield SystemCommand(
        "Edit a variable", "While paused: set, change or delete one in a layer (=)", app.action_edit_variable
    )
    yield SystemCommand(
        "Re-send the current step",
        "While paused: run it again with the variables as they are (a)",
        app.action_resend_step,
    )
    yield SystemCommand(
        "Response changes",
        "The inspected response against the same step's in the previous run or a loaded report (d)",
        app.action_response_diff,
    )
    yield SystemCommand(
        "Compare responses with a JSON report",
        "Load a report of run --report-json: d then compares with its responses",
        app.action_load_report,
    )
    yield SystemCommand(
        "OpenAPI coverage", "What this run called of the descriptions in force, and the gaps (C)", app.action_coverage
    )
    yield SystemCommand("Wrap inspector lines", "Wrap long lines, or scroll sideways (w)", app.action_toggle_wrap)
    yield SystemCommand(
        "Break on failure", "Toggle: c pauses on a failing step (f)", lambda: app.action_break_on_failure(True)
    )
    yield SystemCommand("Run to here", "Continue until just before the highlighted step (g)", app.action_run_to_here)
    yield SystemCommand(
        "Run this scenario only", "A fresh run of the highlighted scenario alone (o)", app.action_run_only
    )
    yield SystemCommand(
        "History", "The steps that ran, each as it was right after it (h; l: live view)", app.action_history
    )
    yield SystemCommand("Widen the tree", "Give the tree more of the screen's width (>)", app.action_widen_tree)
    yield SystemCommand("Narrow the tree", "Give the panels more of the screen's width (<)", app.action_narrow_tree)
    yield SystemCommand("Help", "Keys and icons (?)", app.action_help)
