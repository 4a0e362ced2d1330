"""Which sharing store a scenario uses (docs/spec/scopes.md#which-store-applies): derived from where the effective
`shareVariablesAcrossScenarios` came from, so the table's rows need no special cases.

- true, set by the scenario's feature          -> that feature's own store
- true, set by the file, command line (or any  -> the file store
  other run-wide level)
- false, from any level                        -> none: the scenario is isolated
"""

from __future__ import annotations

from dataclasses import dataclass

from scenario_core.language.parameter_keys import SHARE
from scenario_core.parameters.resolution import FEATURE, EffectiveParameters


@dataclass(frozen=True, slots=True)
class StoreRef:
    """A sharing store: the file's (feature=None) or a feature's own."""

    feature: str | None = None
    feature_line: int | None = None

    @property
    def owner(self) -> str:
        return f"feature '{self.feature}'" if self.feature is not None else "file"

    def describe(self) -> str:
        return f"shares with {self.owner}" if self.feature is not None else "shares file-wide"


def store_for(parameters: EffectiveParameters, feature_line: int | None = None) -> StoreRef | None:
    share = parameters[SHARE]
    if not share.value:
        return None
    if share.source == FEATURE:
        return StoreRef(parameters.feature, feature_line)
    return StoreRef(None)
