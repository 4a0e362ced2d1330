"""The screen's layout: the split between the tree and the panels on its right (the tree takes a
share of the screen's width, so it grows with the terminal; `<` and `>` narrow and widen it, and
neither side is squeezed below a usable width), and `z`, which fills the screen with one panel."""

from __future__ import annotations

from textual import events
from textual.app import App

TREE_SHARE = 0.48  # of the screen's width, at first
SHARE_STEP = 0.05  # what one `<` or `>` takes or gives
MIN_SHARE, MAX_SHARE = 0.2, 0.8
MIN_TREE = 26  # columns: a label, its status and its line number still fit
MIN_PANELS = 30  # columns left to the variables, scope log and inspector


def tree_width(screen_width: int, share: float) -> int:
    """The tree column's width in `screen_width` columns for `share` of it."""
    return max(MIN_TREE, min(int(screen_width * share), screen_width - MIN_PANELS))


class LayoutMixin(App[int]):
    """The app's layout actions (its keys are in keys.py)."""

    tree_share = TREE_SHARE

    def on_resize(self, event: events.Resize) -> None:
        self.apply_tree_width(event.size.width)

    def apply_tree_width(self, screen_width: int | None = None) -> None:
        width = tree_width(screen_width or self.size.width, self.tree_share)
        self.query_one("#left").styles.width = width

    def action_widen_tree(self) -> None:
        self._change_share(+SHARE_STEP)

    def action_narrow_tree(self) -> None:
        self._change_share(-SHARE_STEP)

    def _change_share(self, step: float) -> None:
        before = tree_width(self.size.width, self.tree_share)
        self.tree_share = min(MAX_SHARE, max(MIN_SHARE, self.tree_share + step))
        self.apply_tree_width()
        if tree_width(self.size.width, self.tree_share) == before:
            self.bell()  # at its bound: nothing changed

    def action_toggle_maximize(self) -> None:
        screen = self.screen
        if screen.maximized is not None:
            screen.minimize()
        elif screen.focused is not None:
            screen.maximize(screen.focused)
