"""The screen's layout: the split between the tree and the panels on its right (the tree takes a
share of the screen's width, so it grows with the terminal; `<` and `>` narrow and widen it, and
neither side is squeezed below a usable width), and `z`, which fills the screen with one panel."""

from __future__ import annotations

from textual.app import App
from textual.screen import Screen

TREE_SHARE = 0.48  # of the screen's width, at first
SHARE_STEP = 0.05  # what one `<` or `>` takes or gives
MIN_SHARE, MAX_SHARE = 0.2, 0.8
MIN_TREE = 26  # columns: a label, its status and its line number still fit
MIN_PANELS = 30  # columns left to the variables, scope log and inspector


def tree_width(screen_width: int, share: float) -> int:
    """The tree column's width in `screen_width` columns for `share` of it."""
    return max(MIN_TREE, min(int(screen_width * share), screen_width - MIN_PANELS))


class TreeSplit:
    """The tree's share of the screen's width (`<`, `>`), owned by the app, which calls `apply`
    on a resize."""

    def __init__(self, app: App[int]) -> None:
        self.app = app
        self.share = TREE_SHARE

    def apply(self, screen_width: int | None = None) -> None:
        width = tree_width(screen_width or self.app.size.width, self.share)
        self.app.query_one("#left").styles.width = width

    def widen(self) -> None:
        self._change_share(+SHARE_STEP)

    def narrow(self) -> None:
        self._change_share(-SHARE_STEP)

    def _change_share(self, step: float) -> None:
        screen_width = self.app.size.width
        before = tree_width(screen_width, self.share)
        self.share = min(MAX_SHARE, max(MIN_SHARE, self.share + step))
        self.apply()
        if tree_width(screen_width, self.share) == before:
            self.app.bell()  # at its bound: nothing changed


def toggle_maximize(screen: Screen[object]) -> None:
    """`z`: the focused panel fills the screen, or the layout comes back."""
    if screen.maximized is not None:
        screen.minimize()
    elif screen.focused is not None:
        screen.maximize(screen.focused)
