"""Every node's effective parameters, in source order: what `params` prints and the TUI shows."""

from __future__ import annotations

from pathlib import Path

from scenario_core.language import parameter_keys as params
from scenario_core.language.nodes.blocks import FeatureNode, ScenarioFileNode, ScenarioNode
from scenario_core.parameters.resolution import EffectiveParameters, RunOverrides, resolve_parameters
from scenario_core.parameters.sharing import StoreRef, store_for
from scenario_core.support.records import dataclass


@dataclass(frozen=True)
class ParameterNode:
    kind: str  # "file", "feature" or "scenario"
    name: str
    line: int
    feature: str | None
    parameters: EffectiveParameters
    node: ScenarioFileNode | FeatureNode | ScenarioNode  # whose parameters they are

    @property
    def store(self) -> StoreRef | None:
        return store_for(self.parameters)

    @property
    def sharing(self) -> str:
        """`shares with feature 'Pets'`, `shares file-wide` or `isolated`."""
        store = self.store
        return store.describe() if store else "isolated"

    def to_json(self) -> dict[str, object]:
        values = self.parameters.to_json()
        for key, item in values.items():
            item["value"] = shown_value(self.parameters, key, item["value"])
        return {"kind": self.kind, "name": self.name, "line": self.line, "feature": self.feature, "parameters": values}


def is_secret_parameter(parameters: EffectiveParameters, key: str) -> bool:
    """A `header.NAME` whose header is secret (Authorization, X-Api-Key, ...) or listed in
    `secrets`, or a user key with a secret name: what the run masks, `params` masks too."""
    found = parameters.get(params.SECRETS)
    listed = {n.lower() for n in found.value} if found is not None and found.value else set()
    header = params.header_name(key)
    from scenario_core.support.secrets import is_secret_header, is_secret_variable

    if header is not None:
        return is_secret_header(header) or header.lower() in listed
    return not params.is_known(key) and (is_secret_variable(key) or key.lower() in listed)


def shown_value(parameters: EffectiveParameters, key: str, value: object) -> object:
    """A value as `params` and the TUI show it: a secret parameter's masked (the scheme of an
    Authorization value kept); a `{{env.NAME}}` value as written (the reference is no secret);
    a URL's password masked in any value (`baseUrl: http://user:pw@host`)."""
    from scenario_core.support.secrets import MASK, is_secret_header, mask_header_value, mask_userinfo

    if not isinstance(value, str):
        return value
    if not is_secret_parameter(parameters, key):
        return mask_userinfo(value)

    header = params.header_name(key)
    return mask_header_value(header, value) if header is not None and is_secret_header(header) else MASK


def parameter_nodes(file: ScenarioFileNode, overrides: RunOverrides | None = None) -> list[ParameterNode]:
    """The file, then every feature and scenario in source order; features resolved once, a
    scenario again only when it has its own parameters: block (docs/spec/parameters.md#resolution)."""
    file_params = resolve_parameters(file, None, overrides)
    nodes = [ParameterNode("file", Path(file.path).name, 1, None, file_params, file)]

    def own(feature: FeatureNode | None, scenario: ScenarioNode, inherited: EffectiveParameters) -> EffectiveParameters:
        return resolve_parameters(file, feature, overrides, scenario) if scenario.parameters is not None else inherited

    for item in file.items:
        if isinstance(item, FeatureNode):
            feature_params = resolve_parameters(file, item, overrides)
            nodes.append(ParameterNode("feature", item.name, item.line, item.name, feature_params, item))
            nodes.extend(
                ParameterNode("scenario", s.name, s.line, item.name, own(item, s, feature_params), s)
                for s in item.scenarios
            )
        elif isinstance(item, ScenarioNode):
            nodes.append(ParameterNode("scenario", item.name, item.line, None, own(None, item, file_params), item))
    return nodes
