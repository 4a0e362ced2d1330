"""The footer: as many of the app's keys as fit the screen's width, whole, the most useful first.

Textual's footer lays every key out in a row and the screen's edge cuts the last one mid-word
(`R Re▏` at 120 columns) or hides `f`'s on/off state at 80. This one picks the keys by how much a
user needs them until the row is full, then shows them in their usual order; below 110 columns
they are compact. The command palette's key comes last (Ctrl+P works anyway; `?` lists every key).
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

# By how much a user needs them; actions not named here come after, in binding order.
PRIORITY = (
    "next_step",
    "continue_run",
    "break_on_failure",  # its state: `Break on fail ●`
    "help",
    "toggle_breakpoint",
    "history",
    "reveal_secrets",
    "stop",
    "restart",
    "reload",
    "toggle_maximize",
    "focus_next",
    "filter_tree",
    "edit",
    "quit",
)
COMPACT_BELOW = 110  # columns
PALETTE_EXTRA = 2  # the palette key's border and padding


def key_width(key: str, description: str, compact: bool) -> int:
    """The columns a key takes in the footer, with its gap to the next."""
    return len(key) + len(description) + (2 if compact else 3)


def fitting(keys: list[tuple[str, str, str]], width: int, compact: bool) -> list[int]:
    """The indexes of the (action, key, description) triples that fit `width`, most needed
    first; each is whole or left out."""
    rank = {action: index for index, action in enumerate(PRIORITY)}
    order = sorted(range(len(keys)), key=lambda i: (rank.get(keys[i][0].split("(")[0], len(PRIORITY)), i))
    chosen, used = [], 0
    for index in order:
        _, key, description = keys[index]
        needed = key_width(key, description, compact)
        if used + needed <= width:
            chosen.append(index)
            used += needed
    return sorted(chosen)


class KeyFooter(Footer):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._laid_out_for = 0

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        width = self.size.width or self.app.size.width
        self._laid_out_for = width
        compact = width < COMPACT_BELOW
        self.compact = compact
        active = self.screen.active_bindings
        shown: dict[str, tuple[Binding, bool, str]] = {}  # one key per action (f's two bindings: the one enabled shows)
        for _, binding, enabled, tooltip in active.values():
            if binding.show and binding.action not in shown:
                shown[binding.action] = (binding, enabled, tooltip)
        triples = [
            (action, self.app.get_key_display(binding), binding.description)
            for action, (binding, _, _) in shown.items()
        ]
        palette = active.get(self.app.COMMAND_PALETTE_BINDING) if self.app.ENABLE_COMMAND_PALETTE else None
        if palette is not None:
            triples.append(("command_palette", self.app.get_key_display(palette[1]), palette[1].description))
        budget = width - (PALETTE_EXTRA if palette is not None else 0)
        chosen = fitting(triples, budget, compact)
        entries = [(*entry, "") for entry in shown.values()]
        if palette is not None:  # its key is docked at the right
            entries.append((palette[1], palette[2], palette[3], "-command-palette"))
        for index in chosen:
            binding, enabled, tooltip, classes = entries[index]
            yield FooterKey(
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                disabled=not enabled,
                tooltip=tooltip or binding.description,
                classes=classes,
            ).data_bind(compact=Footer.compact)

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._laid_out_for and self._bindings_ready:
            self.call_after_refresh(self.recompose)
