"""`/`: which tree nodes a filter text keeps, and the input it is typed in.

The text matches a name (file, feature, scenario) or a tag, case-insensitively, anywhere in it;
`@smoke` matches tags only. A scenario shows when it or its feature matches (a feature's tags are
its scenarios' too); a feature or file shows when something in it does; everything under a shown
scenario shows. Parameters, backgrounds and fragments are hidden while a filter is on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from textual.binding import Binding
from textual.message import Message
from textual.widgets import Input

from scenario_core.language.nodes.blocks import FeatureNode, ScenarioFileNode, ScenarioNode
from scenario_tui.widgets.tree_items import BrokenFile, TreeItem


class TreeFilter:
    def __init__(self, text: str) -> None:
        text = text.strip().lower()
        self.tags_only = text.startswith("@")
        self.text = text.lstrip("@")

    def __bool__(self) -> bool:
        return bool(self.text)

    def _matches(self, name: str | None, tags: Iterable[str] = ()) -> bool:
        if any(self.text in tag.lower() for tag in tags or ()):
            return True
        return not self.tags_only and name is not None and self.text in name.lower()

    def _feature(self, feature: FeatureNode) -> bool:
        return self._matches(feature.name, feature.tags)

    def _scenario(self, scenario: ScenarioNode, feature: FeatureNode | None) -> bool:
        return self._matches(scenario.name, scenario.tags) or (feature is not None and self._feature(feature))

    def _file(self, file: ScenarioFileNode | BrokenFile) -> bool:
        if self._matches(Path(file.path).name):
            return True
        if not isinstance(file, ScenarioFileNode):  # a file that cannot run: by its name only
            return False
        return any(self._scenario(s, f) for s, f in file.scenarios_in_order())

    def shows(self, item: TreeItem, file_matches: bool) -> bool:
        """Whether `item` stays; `file_matches`: its file's name matches (then all of it stays)."""
        if item.kind == "file":
            return self._file(item.node)
        if file_matches:
            return True
        if item.kind == "feature":
            feature: FeatureNode = item.node
            return self._feature(feature) or any(self._scenario(s, None) for s in feature.scenarios)
        if item.kind == "scenario":
            return self._scenario(item.node, item.feature)
        if item.kind in ("parameters", "fragment") or (item.kind == "background" and item.scenario is None):
            return False
        return True  # under a scenario that shows

    def file_name_matches(self, file: ScenarioFileNode | BrokenFile) -> bool:
        return self._matches(Path(file.path).name)


class FilterInput(Input):
    """The filter's input, above the tree: typing filters, Enter goes back to the tree, Escape clears."""

    DEFAULT_CSS = """
    FilterInput {
        display: none;
        height: 3;
        border: round $accent;
        &.-shown { display: block; }
    }
    """
    BINDINGS = [Binding("escape", "clear_filter", "Clear filter"), Binding("enter", "done", "Back to the tree")]

    class Done(Message):
        """Leave the input; `cleared`: the filter was emptied too."""

        def __init__(self, cleared: bool) -> None:
            super().__init__()
            self.cleared = cleared

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(placeholder="filter: name or @tag — Esc clears", id=id)

    def action_clear_filter(self) -> None:
        self.value = ""
        self.post_message(self.Done(cleared=True))

    def action_done(self) -> None:
        self.post_message(self.Done(cleared=not self.value.strip()))
