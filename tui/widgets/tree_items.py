"""What the tree's nodes stand for, built from the syntax tree: items, their keys, their children.

Every node has a *key* made of names and positions, not lines, so a reload keeps the
expansion and the cursor where the same nodes still exist. A suite shows one root per file;
a key starts with the file's index among them:

    (0,)                                           the first file
    (0, ("feature", "Pets", 0))                    a feature (0: first feature of that name)
    (0, ("feature", "Pets", 0), ("scenario", "create pet", 0))
    (... scenario ..., ("step", 2))                a scenario's own step (include: expands)
    (... scenario ..., ("background:file",), ("step", 0))   the backgrounds it runs first
    (0, ("background",), ("step", 0))              the file-level background's definition
    (0, ("fragment", "check pet", 0), ("step", 1)) a fragment's definition
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from rich.text import Text

from scenario_core.language.errors import Diagnostic
from scenario_core.language.nodes.base import Node
from scenario_core.language.nodes.blocks import FeatureNode, ScenarioFileNode, ScenarioNode
from scenario_core.language.nodes.steps import ConditionalBranch, ConditionalStep, DescribedStep, IncludeStep, Step
from scenario_core.run.events import BACKGROUND_FEATURE, BACKGROUND_FILE, SCENARIO
from scenario_core.run.step_runs import Key as Key  # re-exported

# A node's place (its file's number, then one part per level): defined with the step records
# that carry it (scenario_core.run.step_runs).


def file_number(key: Key) -> int:
    """The number of the file a (non-empty) key is under: its first part."""
    number = key[0]
    if not isinstance(number, int):
        raise TypeError(f"not a tree key: {key!r}")
    return number


PENDING, RUNNING, PASSED, FAILED, SKIPPED = "pending", "running", "passed", "failed", "skipped"
STATUS_ICONS = {PENDING: "○", RUNNING: "◉", PASSED: "✓", FAILED: "✗", SKIPPED: "–"}
CURRENT_ICON = "▶"  # the step about to run
KIND_ICONS = {
    "file": "▣",
    "parameters": "⚙",
    "background": "↺",
    "fragment": "§",
    "feature": "◆",
    "scenario": "◇",
    "step": "",
}


@dataclass(frozen=True)
class BrokenFile:
    """A file of the suite that cannot run: its root shows the error count, the inspector the errors."""

    path: str
    diagnostics: tuple[Diagnostic, ...] = ()
    message: str | None = None  # unreadable: gone, not UTF-8 ...

    @property
    def count(self) -> int:
        return len(self.diagnostics) or 1


@dataclass(eq=False)
class TreeItem:
    """What a tree node stands for."""

    kind: str  # suite (the hidden root), file, parameters, background, fragment, feature, scenario, step
    key: Key
    node: Any  # the syntax-tree node (a BrokenFile for a file that cannot run)
    feature: FeatureNode | None = None  # the enclosing feature, if any
    scenario: ScenarioNode | None = None  # for a scenario and the steps under it
    phase: str | None = None  # for a background group / step under a scenario
    label: str = ""
    built: bool = False  # children added
    styled: Text | None = field(default=None, repr=False)  # the styled label, built when first drawn

    @property
    def line(self) -> int:
        return 1 if self.kind == "file" else self.node.location.line

    @property
    def broken(self) -> BrokenFile | None:
        return self.node if isinstance(self.node, BrokenFile) else None


def _dup_keys(kind: str, names: Iterable[str]) -> list[tuple[str, str, int]]:
    seen: dict[str, int] = {}
    keys: list[tuple[str, str, int]] = []
    for name in names:
        count = seen.get(name, 0)
        seen[name] = count + 1
        keys.append((kind, name, count))
    return keys


def _index_of(block: tuple[Node, ...], step: Node) -> int:
    for index, candidate in enumerate(block):
        if candidate is step:
            return index
    return -1


def _indexes_of(block: tuple[Node, ...], step: Node) -> list[int]:
    """Where a step stands in a block: its index, or, for a directive of a described step
    (`call` under `when I create a pet`), the described step's index and its own."""
    index = _index_of(block, step)
    if index >= 0:
        return [index]
    for outer, candidate in enumerate(block):
        if isinstance(candidate, DescribedStep):
            inner = _index_of(candidate.steps, step)
            if inner >= 0:
                return [outer, inner]
    return []


class TreeItems:
    """The keys of the files' scenarios, features and fragments, and each item's children."""

    def __init__(self) -> None:
        self.files: list[ScenarioFileNode | BrokenFile] = []
        self._scenario_keys: dict[int, Key] = {}
        self._feature_keys: dict[int, Key] = {}
        self._file_keys: dict[int, Key] = {}
        self._fragment_keys: list[dict[str, Key]] = []  # per file: a fragment's name -> its key
        self._counts: list[int] = []  # per file: its scenarios

    def index(self, files: list[ScenarioFileNode | BrokenFile]) -> None:
        self.files = list(files)
        self._scenario_keys.clear()
        self._feature_keys.clear()
        self._file_keys.clear()
        self._fragment_keys = []
        self._counts = []
        for number, file in enumerate(self.files):
            self._file_keys[id(file)] = (number,)
            self._fragment_keys.append({})
            before = len(self._scenario_keys)
            if isinstance(file, ScenarioFileNode):
                self._index_file(number, file)
            self._counts.append(len(self._scenario_keys) - before)

    def _index_file(self, number: int, file: ScenarioFileNode) -> None:
        root: Key = (number,)
        items = list(file.items)
        feature_keys = _dup_keys("feature", [f.name for f in items if isinstance(f, FeatureNode)])
        standalone = _dup_keys("scenario", [s.name for s in items if isinstance(s, ScenarioNode)])
        features = iter(feature_keys)
        scenarios = iter(standalone)
        for item in items:
            if isinstance(item, FeatureNode):
                fkey = root + (next(features),)
                self._feature_keys[id(item)] = fkey
                for scenario, skey in zip(item.scenarios, _dup_keys("scenario", [s.name for s in item.scenarios])):
                    self._scenario_keys[id(scenario)] = fkey + (skey,)
            else:
                self._scenario_keys[id(item)] = root + (next(scenarios),)
        fragments = self._fragment_keys[number]
        for fragment, part in zip(file.fragments, _dup_keys("fragment", [f.name for f in file.fragments])):
            fragments.setdefault(fragment.name, root + (part,))

    def roots(self) -> list[TreeItem]:
        """One item per file, in the order given."""
        return [TreeItem("file", (number,), file, label=Path(file.path).name) for number, file in enumerate(self.files)]

    @property
    def scenario_count(self) -> int:
        return len(self._scenario_keys)

    def scenario_count_of(self, key: Key) -> int:
        """The scenarios of the file whose root or descendant `key` is."""
        return self._counts[file_number(key)] if key and file_number(key) < len(self._counts) else 0

    def scenario_keys(self) -> Iterable[Key]:
        return self._scenario_keys.values()

    def file_of(self, key: Key) -> ScenarioFileNode | BrokenFile | None:
        return self.files[key[0]] if key and isinstance(key[0], int) and key[0] < len(self.files) else None

    def file_key(self, file: ScenarioFileNode) -> Key | None:
        return self._file_keys.get(id(file))

    def scenario_key(self, scenario: ScenarioNode) -> Key | None:
        return self._scenario_keys.get(id(scenario))

    def feature_key(self, feature: FeatureNode) -> Key | None:
        return self._feature_keys.get(id(feature))

    # ------------------------------------------------------------ children

    def _top_items(self, root: Key, file: ScenarioFileNode) -> list[TreeItem]:
        """The file's children in source order: parameters, background, fragments, features, scenarios."""
        entries: list[tuple[int, TreeItem]] = []
        if file.parameters is not None:
            entries.append(
                (
                    file.parameters.line,
                    TreeItem("parameters", root + (("parameters",),), file.parameters, label="parameters"),
                )
            )
        if file.background is not None:
            entries.append(
                (
                    file.background.line,
                    TreeItem("background", root + (("background",),), file.background, label="background"),
                )
            )
        for fragment in file.fragments:
            key = self._fragment_keys[file_number(root)].get(fragment.name)
            if key is not None and all(e.key != key for _, e in entries):
                if fragment.location.file != file.path:  # from a .fragment file: after the file's own nodes
                    entries.append(
                        (
                            1 << 30,
                            TreeItem("fragment", key, fragment, label=f"{fragment.name} ({fragment.location.file})"),
                        )
                    )
                else:
                    entries.append((fragment.line, TreeItem("fragment", key, fragment, label=fragment.name)))
        for item in file.items:
            if isinstance(item, FeatureNode):
                entries.append(
                    (item.line, TreeItem("feature", self._feature_keys[id(item)], item, feature=item, label=item.name))
                )
            else:
                entries.append(
                    (
                        item.line,
                        TreeItem("scenario", self._scenario_keys[id(item)], item, scenario=item, label=item.name),
                    )
                )
        entries.sort(key=lambda entry: entry[0])
        return [item for _, item in entries]

    def children_of(self, item: TreeItem) -> list[TreeItem]:
        if item.kind == "suite":
            return self.roots()
        file = self.file_of(item.key)
        if not isinstance(file, ScenarioFileNode):
            return []
        if item.kind == "file":
            return self._top_items(item.key, file)
        if item.kind == "parameters":
            return []
        if item.kind == "feature":
            feature: FeatureNode = item.node
            children = []
            if feature.parameters is not None:
                children.append(
                    TreeItem(
                        "parameters",
                        item.key + (("parameters",),),
                        feature.parameters,
                        feature=feature,
                        label="parameters",
                    )
                )
            if feature.background is not None:
                children.append(
                    TreeItem(
                        "background",
                        item.key + (("background",),),
                        feature.background,
                        feature=feature,
                        label="background",
                    )
                )
            children.extend(
                TreeItem("scenario", self._scenario_keys[id(s)], s, feature=feature, scenario=s, label=s.name)
                for s in feature.scenarios
            )
            return children
        if item.kind == "scenario":
            scenario: ScenarioNode = item.node
            children = []
            if file.background is not None:
                children.append(
                    TreeItem(
                        "background",
                        item.key + ((BACKGROUND_FILE,),),
                        file.background,
                        feature=item.feature,
                        scenario=scenario,
                        phase=BACKGROUND_FILE,
                        label="file background",
                    )
                )
            if item.feature is not None and item.feature.background is not None:
                children.append(
                    TreeItem(
                        "background",
                        item.key + ((BACKGROUND_FEATURE,),),
                        item.feature.background,
                        feature=item.feature,
                        scenario=scenario,
                        phase=BACKGROUND_FEATURE,
                        label="feature background",
                    )
                )
            children.extend(self._steps(item, scenario.steps, SCENARIO))
            return children
        if item.kind in ("background", "fragment"):
            return self._steps(item, item.node.steps, item.phase)
        if item.kind == "step" and isinstance(item.node, IncludeStep):
            fragment = file.fragment(item.node.fragment)
            return self._steps(item, fragment.steps, item.phase) if fragment else []
        if item.kind == "step" and isinstance(item.node, (DescribedStep, ConditionalBranch)):
            return self._steps(item, item.node.steps, item.phase)
        if item.kind == "step" and isinstance(item.node, ConditionalStep):
            return self._steps(item, item.node.branches, item.phase)
        return []

    def _steps(self, parent: TreeItem, steps: Iterable[Node], phase: str | None) -> list[TreeItem]:
        return [
            TreeItem(
                "step",
                parent.key + (("step", index),),
                step,
                feature=parent.feature,
                scenario=parent.scenario,
                phase=phase,
            )
            for index, step in enumerate(steps)
        ]

    def has_children(self, item: TreeItem) -> bool:
        if item.kind == "file":
            return item.broken is None
        if item.kind in ("suite", "feature", "scenario"):
            return True
        if item.kind in ("background", "fragment"):
            return bool(item.node.steps)
        if item.kind == "step" and isinstance(item.node, IncludeStep):
            file = self.file_of(item.key)
            return isinstance(file, ScenarioFileNode) and file.fragment(item.node.fragment) is not None
        if item.kind == "step" and isinstance(item.node, (DescribedStep, ConditionalBranch)):
            return bool(item.node.steps)
        return item.kind == "step" and isinstance(item.node, ConditionalStep)

    # ------------------------------------------------------------ where a running step is

    def step_keys(
        self, scenario: ScenarioNode, phase: str, via: tuple[IncludeStep, ...], step: Step, feature: FeatureNode | None
    ) -> tuple[Key | None, list[Key]]:
        """The key of a running step under its scenario, and the keys of its definitions (the
        background or fragment it is written in) for breakpoints set there."""
        skey = self.scenario_key(scenario)
        file = self.file_of(skey) if skey is not None else None
        if not isinstance(file, ScenarioFileNode) or skey is None:
            return None, []
        if phase == BACKGROUND_FILE:
            definition: Key | None
            block, path, definition = (
                (file.background.steps if file.background else ()),
                skey + ((phase,),),
                skey[:1] + (("background",),),
            )
        elif phase == BACKGROUND_FEATURE:
            fkey = self.feature_key(feature) if feature else None
            block = feature.background.steps if feature and feature.background else ()
            path = skey + ((phase,),)
            definition = fkey + (("background",),) if fkey else None
        else:
            block, path, definition = scenario.steps, skey, None
        definitions: list[Key] = [definition] if definition is not None else []
        for include in (*via, step):
            indexes = _indexes_of(block, include)
            if not indexes:
                return None, []
            for index in indexes:
                path = path + (("step", index),)
                definitions = [d + (("step", index),) for d in definitions]
            if isinstance(include, IncludeStep):
                fragment = file.fragment(include.fragment)
                block = fragment.steps if fragment else ()
                fragment_key = self._fragment_keys[file_number(skey)].get(include.fragment)
                if fragment_key is not None:
                    definitions.append(fragment_key)
        return path, definitions


def never_pauses(item: TreeItem | None) -> str | None:
    """Why a breakpoint on `item` could never fire (None: it can). A breakpoint pauses when the run
    enters a node's first step: a parameters block has none, a file that cannot run never starts."""
    if item is None:
        return "nothing is highlighted"
    if item.kind == "parameters":
        return "parameters are settings and never run — set it on a scenario or a step"
    if item.broken is not None:
        return "this file cannot run — fix its errors first"
    if item.kind in ("background", "fragment") and not item.node.steps:
        return f"this {item.kind} has no step to pause before"
    return None
