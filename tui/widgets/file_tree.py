"""The file as a tree, in source order, with each node's live run status and breakpoints.

Children are built when a node is first expanded, so a file with 10,000 scenarios paints at
once. What each node stands for and its key come from tree_items; its text from tree_labels.
"""

from __future__ import annotations

from typing import AbstractSet, ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.actions import SkipAction
from textual.binding import Binding
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from scenario_core.language.nodes.blocks import FeatureNode, ScenarioFileNode, ScenarioNode
from scenario_core.language.nodes.steps import IncludeStep, Step
from scenario_tui.widgets.static_warnings import StaticWarnings
from scenario_tui.widgets.tree_filter import FilterInput, TreeFilter
from scenario_tui.widgets.tree_items import (
    CURRENT_ICON,
    FAILED,
    PENDING,
    STATUS_ICONS,
    BrokenFile,
    Key,
    TreeItem,
    TreeItems,
)
from scenario_tui.widgets.tree_labels import fit_label, plain_label, styled_label

WARNING_ICON = "⚠"

# Files up to this many scenarios open expanded down to their scenarios.
SMALL_FILE = 200


class FileTree(Tree[TreeItem]):
    """The tree of one `.scenario` file."""

    DEFAULT_CSS = """
    FileTree {
        background: $surface;
        /* component colours: the $text-* variants, which the theme makes legible on its background */
        scrollbar-size-vertical: 1;
        overflow-x: hidden;
        & > .file-tree--pending { color: $foreground-muted; }
        & > .file-tree--running { color: $text-warning; text-style: bold; }
        & > .file-tree--passed { color: $text-success; }
        & > .file-tree--failed { color: $text-error; text-style: bold; }
        & > .file-tree--skipped { color: $foreground-muted; }
        & > .file-tree--kind { color: $text-accent; }
        & > .file-tree--dim { color: $foreground-muted; }
        & > .file-tree--tag { color: $text-secondary; }
        & > .file-tree--breakpoint { color: $text-error; }
        & > .file-tree--warning { color: $text-warning; }
        & > .file-tree--current { background: $warning 30%; text-style: bold; }
    }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = Tree.COMPONENT_CLASSES | {
        "file-tree--pending",
        "file-tree--running",
        "file-tree--passed",
        "file-tree--failed",
        "file-tree--skipped",
        "file-tree--kind",
        "file-tree--dim",
        "file-tree--tag",
        "file-tree--breakpoint",
        "file-tree--current",
        "file-tree--warning",
    }
    BINDINGS = [
        Binding("enter", "select_cursor", "Inspect", show=False),
        Binding("right", "expand_or_first_child", "Expand", show=False),
        Binding("left", "collapse_or_parent", "Collapse", show=False),
        Binding("escape", "clear_filter", "Clear the filter", show=False),
    ]
    ICON_NODE = "▸ "
    ICON_NODE_EXPANDED = "▾ "

    class BreakpointsChanged(Message):
        """A breakpoint was set or removed on `item`; `breakpoints` holds them all."""

        def __init__(self, item: TreeItem | None, added: bool, breakpoints: frozenset[Key]) -> None:
            super().__init__()
            self.item, self.added, self.breakpoints = item, added, breakpoints

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self._shapes: dict[int, str] = {}
        self.show_root = False
        self.guide_depth = 2
        self.statuses: dict[Key, str] = {}
        self._failed_under: dict[Key, int] = {}  # a node's key -> the failed nodes under it
        self.breakpoints: set[Key] = set()
        self.current: Key | None = None  # the step about to run
        self._by_key: dict[Key, TreeNode[TreeItem]] = {}
        self.items = TreeItems()
        self.filter = TreeFilter("")  # `/`: off while empty
        self._open_before: set[Key] = set()  # expanded when the filter went on
        self.warnings = StaticWarnings()  # shown once the analysis has run (after the first paint)
        self._view: tuple[int, int, int] | None = None  # top line, height, width when last drawn

    # ------------------------------------------------------------ loading

    def load(
        self, files: list[ScenarioFileNode | BrokenFile], keep: bool = False, shapes: dict[int, str] | None = None
    ) -> None:
        """Show `files`, one root each. With `keep`, restore expansion and cursor where the keys
        still exist. `shapes`: id(step) -> `POST /pets` for operation calls, shown beside `^createPet`."""
        self._shapes = shapes or {}
        self.items.index(files)
        self._rebuild(keep)
        self.statuses.clear()
        self._failed_under.clear()
        if not keep:
            self.breakpoints.clear()
        self.current = None

    def show_warnings(self, warnings: StaticWarnings) -> None:
        self.warnings = warnings
        self._invalidate_labels()

    def set_filter(self, text: str) -> int:
        """Keep only what matches `text` (tree_filter.py); "" shows everything again. How many
        scenarios show."""
        was_on, self.filter = bool(self.filter), TreeFilter(text)
        if self.filter and not was_on:  # what was open before filtering opens again when it is cleared
            self._open_before = {key for key, node in self._by_key.items() if node.is_expanded}
        self._rebuild(keep=True, open_all=bool(self.filter), reopen=set() if self.filter else self._open_before)
        if not self.filter:
            return self.scenario_count
        return sum(1 for key in self.items.scenario_keys() if key in self._by_key)

    def _rebuild(self, keep: bool, open_all: bool = False, reopen: AbstractSet[Key] = frozenset()) -> None:
        """Build the nodes again from the items; with `keep`, as expanded as they were (and
        `reopen` too). `open_all`: every shown file and feature opens (a filter's matches)."""
        expanded = {key for key, node in self._by_key.items() if node.is_expanded} | reopen if keep else set()
        cursor = self.cursor_node.data.key if keep and self.cursor_node and self.cursor_node.data else None
        self._by_key.clear()
        self.clear()
        root = self.root  # hidden: the suite; each file is a root of its own under it
        root.data = TreeItem("suite", (), None)
        self._by_key[()] = root
        self._build_children(root)
        root.expand()
        first = root.children[0] if root.children else root
        if keep:
            for key in sorted(expanded, key=len):  # parents first; keys that are gone are skipped
                if all(key[:depth] in expanded for depth in range(1, len(key))):  # not inside a collapsed one
                    self._reveal(key, expand_last=True)
        if not keep or open_all:
            small = open_all or self.scenario_count <= SMALL_FILE
            for file_node in list(root.children):
                if not file_node.allow_expand:
                    continue
                file_node.expand()
                self._build_children(file_node)
                if small:
                    for item_node in list(file_node.children):
                        if item_node.data and item_node.data.kind == "feature":
                            self._build_children(item_node)
                            item_node.expand()
        target = self._nearest(cursor) if cursor else None
        self._move_to(target or first)

    def file_key(self, file: ScenarioFileNode) -> Key | None:
        """The key of `file`'s root (for the run's FileStarted / FileFinished)."""
        return self.items.file_key(file)

    @property
    def scenario_count(self) -> int:
        return self.items.scenario_count

    # ------------------------------------------------------------ children, built on demand

    def _build_children(self, node: TreeNode[TreeItem]) -> None:
        item = node.data
        if item is None or item.built:
            return
        item.built = True
        # What TreeNode.add does, without invalidating the whole tree once per child: with
        # 10,000 scenarios that alone would cost a quarter of a second.
        children = node._children
        for child in self.items.children_of(item):
            if self.filter and not self._kept(child):
                continue
            tree_node = self._add_node(node, Text(self._plain_label(child), no_wrap=True), child)
            tree_node._allow_expand = self.items.has_children(child)
            children.append(tree_node)
            self._by_key[child.key] = tree_node
        node._updates += 1
        self._invalidate()

    def _kept(self, item: TreeItem) -> bool:
        file = self.items.file_of(item.key)
        return self.filter.shows(item, file is not None and self.filter.file_name_matches(file))

    def _on_tree_node_expanded(self, event: Tree.NodeExpanded[TreeItem]) -> None:
        self._build_children(event.node)

    # ------------------------------------------------------------ → and ←, as in a file manager

    def action_expand_or_first_child(self) -> None:
        """→ opens a closed node; on an open one it moves to its first child."""
        node = self.cursor_node
        if node is None or not node.allow_expand:
            return
        if not node.is_expanded:
            node.expand()  # NodeExpanded builds its children
        elif node.children:
            self.move_cursor(node.children[0])

    def action_clear_filter(self) -> None:
        """Esc in a filtered tree clears the filter, as Esc in its input does."""
        if not self.filter:
            raise SkipAction()
        self.post_message(FilterInput.Done(cleared=True))

    def action_collapse_or_parent(self) -> None:
        """← closes an open node; on a closed one (or a leaf) it moves to its parent."""
        node = self.cursor_node
        if node is None:
            return
        if node.allow_expand and node.is_expanded:
            node.collapse()
        elif node.parent is not None and node.parent is not self.root:  # the suite's root is hidden
            self.move_cursor(node.parent)

    # ------------------------------------------------------------ finding nodes

    def node_for(self, key: Key) -> TreeNode[TreeItem] | None:
        return self._by_key.get(key)

    def _reveal(self, key: Key, expand_last: bool = False) -> TreeNode[TreeItem] | None:
        """Build and expand the ancestors of `key`; its node, or None when it does not exist."""
        node = self._by_key.get(())
        if node is None:
            return None
        for depth in range(1, len(key) + 1):
            self._build_children(node)
            if not node.is_expanded:
                node.expand()
            child = self._by_key.get(key[:depth])
            if child is None:
                return None
            node = child
        if expand_last and node.allow_expand:
            self._build_children(node)
            node.expand()
        return node

    def _nearest(self, key: Key) -> TreeNode[TreeItem] | None:
        for depth in range(len(key), 0, -1):  # a file's root at least: the suite's is hidden
            node = self._reveal(key[:depth])
            if node is not None:
                return node
        return None

    def reveal(self, key: Key) -> None:
        """Expand down to `key` and put the cursor on it."""
        node = self._reveal(key)
        if node is not None:
            self._move_to(node)

    def _move_to(self, node: TreeNode[TreeItem]) -> None:
        _ = self._tree_lines  # new nodes get their line numbers when the lines are rebuilt
        self.move_cursor(node)

    def scenario_key(self, scenario: ScenarioNode) -> Key | None:
        return self.items.scenario_key(scenario)

    def feature_key(self, feature: FeatureNode) -> Key | None:
        return self.items.feature_key(feature)

    def step_keys(
        self, scenario: ScenarioNode, phase: str, via: tuple[IncludeStep, ...], step: Step, feature: FeatureNode | None
    ) -> tuple[Key | None, list[Key]]:
        """The key of a running step under its scenario, and the keys of its definitions."""
        return self.items.step_keys(scenario, phase, via, step, feature)

    # ------------------------------------------------------------ status and breakpoints

    def set_status(self, key: Key | None, status: str) -> None:
        if key is None or (old := self.statuses.get(key)) == status:
            return
        self.statuses[key] = status
        self._changed(key)
        if FAILED in (old, status):  # a collapsed node shows ✗ while something under it failed
            self._count_failure(key, 1 if status == FAILED else -1)

    def _count_failure(self, key: Key, by: int) -> None:
        for length in range(1, len(key)):
            above = key[:length]
            count = self._failed_under.get(above, 0) + by
            self._failed_under[above] = count
            if count in (0, 1):  # its ✗ comes or goes
                self._changed(above)

    def _changed(self, key: Key | None) -> None:
        """A node's label changed: draw its line again (with the next frame, once per frame)."""
        node = self._by_key.get(key) if key is not None else None
        if node is None:
            return
        node._updates += 1  # part of its rendered line's cache key (and of its children's)
        lines = self._tree_lines_cached
        line = node._line
        if lines is None or not 0 <= line < len(lines) or lines[line].node is not node:
            return  # not shown (inside a collapsed node): drawn when it is
        # a run changes nodes far from the screen all the time: repaint only what shows (the view
        # as last drawn: a scroll since then redraws it all anyway; asking the widget its size and
        # offset for each change was most of what a status change cost)
        top, height, width = self._view if self._view is not None else self._view_now()
        if top <= line < top + height:
            self.refresh(Region(0, line - top, width, height - (line - top)))

    def _view_now(self) -> tuple[int, int, int]:
        size = self.size
        return self.scroll_offset.y, size.height, size.width

    def render_lines(self, crop: Region) -> list[Strip]:
        self._view = self._view_now()
        return super().render_lines(crop)

    def clear_statuses(self, prefix: Key | None = None) -> None:
        if prefix is None:
            self.statuses.clear()
            self.current = None
        else:
            n = len(prefix)
            for key in [k for k in self.statuses if k[:n] == prefix]:
                del self.statuses[key]
        self._failed_under.clear()
        for key, status in self.statuses.items():
            if status == FAILED:
                self._count_failure(key, 1)
        self._invalidate_labels()

    def set_current(self, key: Key | None, follow: bool = True) -> None:
        previous, self.current = self.current, key
        self._changed(previous)
        if key is not None:
            if follow:
                self.reveal(key)
            self._changed(key)

    def toggle_breakpoint(self, key: Key | None = None) -> bool | None:
        """Toggle a breakpoint on `key` (default: the cursor's node); whether it is now set."""
        if key is None:
            node = self.cursor_node
            if node is None or node.data is None:
                return None
            key = node.data.key
        found = self._by_key.get(key)
        item = found.data if found is not None else None
        if key in self.breakpoints:
            self.breakpoints.discard(key)
            now = False
        else:
            self.breakpoints.add(key)
            now = True
        self._changed(key)
        self.post_message(self.BreakpointsChanged(item, now, frozenset(self.breakpoints)))
        return now

    def _invalidate_labels(self) -> None:
        self._rerender()  # lines render again; their list is not rebuilt

    def process_label(self, label: str | Text) -> Text:
        # Labels are Text already, one line each: skip Tree's split (a copy per node).
        if isinstance(label, Text) and "\n" not in label.plain:
            return label
        return super().process_label(label)

    # ------------------------------------------------------------ labels

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"file-tree--{name}", partial=True)

    def _plain_label(self, item: TreeItem) -> str:
        return plain_label(item, self._shapes)

    def _label_text(self, item: TreeItem) -> Text:
        return styled_label(item, self._shapes)

    def label_for(self, node: TreeNode[TreeItem]) -> Text:
        """What the node shows: breakpoint, status icon, then its text (also used by tests)."""
        item = node.data
        text = Text(no_wrap=True, overflow="ellipsis")
        if item is None:
            return text
        status = self.statuses.get(item.key)
        if item.key in self.breakpoints:
            text.append("● ", self._style("breakpoint"))
        definition = (
            item.kind in ("parameters", "fragment")
            or (item.kind == "background" and item.phase is None)
            or (item.kind == "step" and item.scenario is None)
        )  # no run status of their own
        if item.key == self.current:
            text.append(CURRENT_ICON + " ", self._style("running"))
        elif item.broken is not None:
            text.append(STATUS_ICONS[FAILED] + " ", self._style(FAILED))
        elif not definition and (status or item.kind != "file"):
            shown = status or PENDING
            text.append(STATUS_ICONS[shown] + " ", self._style(shown))
        collapsed = node.allow_expand and not node.is_expanded
        if collapsed and status != FAILED and self._failed_under.get(item.key):
            text.append(STATUS_ICONS[FAILED] + " ", self._style(FAILED))  # a failure inside it
        if self.warnings.of(item):  # static analysis: a problem to expect before any run
            text.append(WARNING_ICON + " ", self._style("warning"))
        elif collapsed and (count := self.warnings.under(item)):  # what it holds, shown collapsed
            text.append(f"{WARNING_ICON}{count if count > 1 else ''} ", self._style("warning"))
        text.append_text(self._label_text(item))
        if item.key == self.current:
            text.stylize(self._style("current"))
        return text

    def render_label(self, node: TreeNode[TreeItem], base_style: Style, style: Style) -> Text:
        return self._label_line(node, base_style, style, fit=True)

    def _label_line(self, node: TreeNode[TreeItem], base_style: Style, style: Style, fit: bool) -> Text:
        """The toggle icon and the label; with `fit`, cut with `…` to the room its guides leave."""
        label = self.label_for(node)
        toggle = len(self.ICON_NODE) if node._allow_expand else 0
        if fit:
            depth = 0 if self.show_root else -1  # the hidden root's children have no guide
            parent = node.parent
            while parent is not None:
                depth, parent = depth + 1, parent.parent
            room = self.scrollable_content_region.width - depth * self.guide_depth - toggle
            item = node.data
            line = item.node.location.line if item is not None and item.kind != "file" else None
            label = fit_label(label, room, line)
        label.stylize(style)
        if toggle:
            prefix = (self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE, base_style + Style(bold=True))
            return Text.assemble(prefix, label)
        return label

    # Tree rebuilds its whole list of lines on every resize and style update; with 10,000
    # scenarios that is 50 ms each, several times before the first paint. The lines do not depend
    # on size or style: only their rendering does.

    def _on_resize(self, event: events.Resize) -> None:
        event.prevent_default()
        self._line_cache.grow(event.size.height)
        self._rerender()

    def notify_style_update(self) -> None:
        super(Tree, self).notify_style_update()
        self._rerender()

    def _rerender(self) -> None:
        self._line_cache.clear()
        self._updates += 1
        self.refresh()

    def get_label_width(self, node: TreeNode[TreeItem]) -> int:
        # Cheaper than rendering every label: status and toggle icons are 2 cells each.
        return node._label.cell_len + 6

    def rendered_lines(self) -> list[str]:
        """The plain text of every line the tree shows (expanded nodes only), whole, for tests and tools."""
        lines = []
        for line in self._tree_lines:
            depth = len(line.path) - 1
            lines.append("  " * depth + self._label_line(line.node, Style(), Style(), fit=False).plain)
        return lines
