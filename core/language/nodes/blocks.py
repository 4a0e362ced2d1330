"""The blocks of a file and the file itself: parameters blocks, backgrounds, fragments, scenarios
(an outline's rows among them), features, and the `ScenarioFileNode` at the root."""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

from scenario_core.language.nodes.base import Node, SourceLocation
from scenario_core.language.nodes.steps import Step
from scenario_core.support.records import dataclass

if TYPE_CHECKING:
    from scenario_core.language.errors import Diagnostic
    from scenario_core.language.parameter_keys import ParameterValue


@dataclass(frozen=True, slots=True)
class ParameterEntry(Node):
    """`key: value` in a parameters block; `value` is typed (bool, int, str) after validation."""

    key: str
    value: ParameterValue
    raw: str
    location: SourceLocation
    # Taken in from another file's named block: the line of the `<< NAME` that took it in
    taken_at: int | None = None


@dataclass(frozen=True, slots=True)
class ParametersNode(Node):
    entries: tuple[ParameterEntry, ...]
    location: SourceLocation

    def get(self, key: str) -> ParameterEntry | None:
        for entry in self.entries:
            if entry.key == key:
                return entry
        return None


@dataclass(frozen=True, slots=True)
class NamedParametersNode(Node):
    """`parameters: NAME` at file level (a .fragment file's or a .scenario file's): a block that
    any `parameters:` block takes in with a `<< NAME` line (docs/spec/berrycrush.md#named-parameter-blocks)."""

    name: str
    block: ParametersNode
    location: SourceLocation  # the `parameters: NAME` line
    problem: Diagnostic | None = None  # the first error of its .fragment file when that file does not parse


@dataclass(frozen=True, slots=True)
class BackgroundNode(Node):
    steps: tuple[Step, ...]
    location: SourceLocation


@dataclass(frozen=True, slots=True)
class FragmentNode(Node):
    name: str
    steps: tuple[Step, ...]
    location: SourceLocation
    # A fragment of a .fragment file that does not parse: no steps, and the file's first error
    # (a Diagnostic), which each include of it reports as an error of its scenario only.
    problem: Diagnostic | None = None


@dataclass(frozen=True, slots=True)
class OutlineRow:
    """Where an outline's scenario comes from: the outline, its examples row (1-based) and the
    row's cells, which are variables of the scenario layer (never written to a store)."""

    outline: str
    outline_line: int
    row: int
    variables: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class ScenarioNode(Node):
    name: str
    tags: frozenset[str]
    steps: tuple[Step, ...]
    location: SourceLocation
    parameters: ParametersNode | None = None  # the scenario's (or outline's) own block
    outline: OutlineRow | None = None  # set on each scenario an outline's examples row makes
    description: str | None = None  # `description:` lines in its body (BerryCrush samples write them)


@dataclass(frozen=True, slots=True)
class FeatureNode(Node):
    name: str
    description: str | None
    background: BackgroundNode | None
    scenarios: tuple[ScenarioNode, ...]
    tags: frozenset[str]
    parameters: ParametersNode | None
    location: SourceLocation


@dataclass(frozen=True, slots=True)
class ScenarioFileNode(Node):
    scenarios: tuple[ScenarioNode, ...]  # standalone scenarios
    fragments: tuple[FragmentNode, ...]
    features: tuple[FeatureNode, ...]
    parameters: ParametersNode | None
    background: BackgroundNode | None  # the file-level background
    items: tuple[FeatureNode | ScenarioNode, ...]  # features and standalone scenarios in source order
    location: SourceLocation
    # A custom step or assertion somewhere (plugins are needed to check it); None: not noted.
    custom_steps: bool | None = None
    # User parameters (docs/spec/parameters.md#user-parameters) that nothing in the file reads as {{param.KEY}}.
    unread_user_keys: tuple[tuple[str, SourceLocation], ...] = ()
    # Errors local to one scenario (docs/spec/steps.md#errors-local-to-one-scenario), set by load_valid: what ends that scenario.
    local_errors: tuple[Diagnostic, ...] = ()
    # `parameters: NAME` blocks written in this file (a .fragment file's are what includes see).
    named_parameters: tuple[NamedParametersNode, ...] = ()

    @property
    def path(self) -> str:
        return self.location.file

    def fragment(self, name: str) -> FragmentNode | None:
        for fragment in self.fragments:
            if fragment.name == name:
                return fragment
        return None

    def scenarios_in_order(self) -> list[tuple[ScenarioNode, FeatureNode | None]]:
        """Every scenario (each outline row) with its feature, in source order: the run's order."""
        found: list[tuple[ScenarioNode, FeatureNode | None]] = []
        for item in self.items:
            if isinstance(item, FeatureNode):
                found += [(scenario, item) for scenario in item.scenarios]
            else:
                found.append((item, None))
        return found


# The blocks a file sees from outside it (.fragment files' fragments and named parameters blocks),
# and a file read again with its own named blocks known (parser.py).
ExternalBlocks = tuple[Union[FragmentNode, NamedParametersNode], ...]
