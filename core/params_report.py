"""Every node's effective parameters, in source order: what `params` prints and the TUI shows."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .nodes import FeatureNode, ScenarioFileNode, ScenarioNode
from .resolution import EffectiveParameters, RunOverrides, resolve_parameters
from .sharing import StoreRef, store_for


@dataclass(frozen=True)
class ParameterNode:
    kind: str  # "file", "feature" or "scenario"
    name: str
    line: int
    feature: str | None
    parameters: EffectiveParameters
    node: Any

    @property
    def store(self) -> StoreRef | None:
        return store_for(self.parameters)

    @property
    def sharing(self) -> str:
        """`shares with feature 'Pets'`, `shares file-wide` or `isolated`."""
        store = self.store
        return store.describe() if store else "isolated"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "line": self.line, "feature": self.feature,
                "parameters": self.parameters.to_json()}


def parameter_nodes(file: ScenarioFileNode, overrides: RunOverrides | None = None) -> list[ParameterNode]:
    """The file, then every feature and scenario in source order; features resolved once, a
    scenario again only when it has its own parameters: block (semantics.md §2, level 2)."""
    file_params = resolve_parameters(file, None, overrides)
    nodes = [ParameterNode("file", Path(file.path).name, 1, None, file_params, file)]

    def own(feature: FeatureNode | None, scenario: ScenarioNode, inherited: EffectiveParameters) -> EffectiveParameters:
        return resolve_parameters(file, feature, overrides, scenario) if scenario.parameters is not None else inherited

    for item in file.items:
        if isinstance(item, FeatureNode):
            feature_params = resolve_parameters(file, item, overrides)
            nodes.append(ParameterNode("feature", item.name, item.line, item.name, feature_params, item))
            nodes.extend(ParameterNode("scenario", s.name, s.line, item.name, own(item, s, feature_params), s)
                         for s in item.scenarios)
        elif isinstance(item, ScenarioNode):
            nodes.append(ParameterNode("scenario", item.name, item.line, None, own(None, item, file_params), item))
    return nodes
