"""`y`: the request as a curl command, shown whole in a box the user can select it from.

The command also goes to the terminal's clipboard by OSC 52, but nothing tells an app whether the
terminal took it (many do not; tmux needs `set -g set-clipboard on`), so the box says "copied if
your terminal supports OSC 52" and never claims more."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

OSC52_NOTE = (
    "Copied if your terminal supports OSC 52 (tmux: set -g set-clipboard on). "
    "If not, select it below with your terminal's own selection (Shift+drag in most terminals)."
)


class CurlView(ModalScreen[None]):
    DEFAULT_CSS = """
    CurlView {
        align: center middle;
        & > Vertical {
            width: 94%;
            height: auto;
            max-height: 90%;
            border: round $primary;
            border-title-color: $text;
            border-subtitle-color: $text-muted;
            background: $surface;
            padding: 0 1;
            & > Static { width: 1fr; color: $text-muted; margin-bottom: 1; }
            & > TextArea { height: auto; max-height: 20; border: none; padding: 0; }
        }
    }
    """
    BINDINGS = [Binding("escape", "close", "Close"), Binding("y", "close", "Close", show=False)]

    def __init__(self, command: str, masked: bool) -> None:
        super().__init__()
        self.command = command
        self.note = OSC52_NOTE + (" Secrets are masked: v reveals them, then y again." if masked else "")

    def compose(self) -> ComposeResult:
        with Vertical(id="curl") as box:
            box.border_title = "The request as curl"
            box.border_subtitle = "Escape closes"
            yield Static(self.note, id="curl-note")
            yield TextArea(self.command, read_only=True, soft_wrap=True, show_line_numbers=False, id="curl-command")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_close(self) -> None:
        self.dismiss(None)
