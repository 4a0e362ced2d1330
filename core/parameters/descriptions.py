"""The OpenAPI descriptions in force for a scenario, from its effective parameters: `openapi` is
the description named `default`, `binding.NAME.location` names others (the command line's
`--openapi NAME=PATH` sets the same keys). Paths written in a file are relative to it;
BerryCrush's `classpath:` locations are looked up on a standalone class path (support/class_path.py).

Loading goes through one cache per run (or TUI session): a description is read once however
many scenarios, features and checks use it, and a `Descriptions` index is built once per
distinct set of paths.
"""

from __future__ import annotations

from typing import Mapping

from scenario_core.language import parameter_keys as params
from scenario_core.openapi.loader import DEFAULT_CACHE, DescriptionCache, resolve_base_url
from scenario_core.openapi.operation_lookup import Descriptions, aliases_from_parameters
from scenario_core.openapi.operations import Operation
from scenario_core.parameters.resolution import COMMAND_LINE, DEFAULT, OPENAPI, EffectiveParameters
from scenario_core.support.class_path import written_location

# Where a `baseUrl` setting was written by the user rather than taken from a description or
# the default: it wins over the base URL of the description an operation comes from.
_WRITTEN = frozenset({COMMAND_LINE, "scenario", "feature", "file"})


def description_paths(parameters: EffectiveParameters, scenario_file: str) -> dict[str, str]:
    """{name: path}: `default` from `openapi`, NAME from `binding.NAME.location`; a relative path
    is the scenario file's folder's, a `classpath:` one is looked up on the standalone class path
    (support/class_path.py)."""
    paths: dict[str, str] = {}

    def place(name: str, key: str) -> None:
        value = parameters.get(key)
        if value is not None and value.value is not None:
            raw = str(value.value)
            paths[name] = raw if value.source == COMMAND_LINE else written_location(raw, scenario_file)

    place(params.DEFAULT_DESCRIPTION, params.OPENAPI)
    for key in parameters:
        parts = params.binding_parts(key)
        if parts is not None and parts[1] == "location":
            place(parts[0], key)
    return paths


class DescriptionSet:
    """Descriptions and aliases per distinct parameters, loaded through one cache."""

    def __init__(self, cache: DescriptionCache | None = None):
        # The process-wide cache by default: `check`, parameter resolution (a description's
        # servers[0] is a baseUrl level) and the run all read a description once between them.
        self.cache = cache or DEFAULT_CACHE
        self._indexes: dict[tuple[tuple[str, str], ...], Descriptions] = {}

    def for_parameters(self, parameters: EffectiveParameters, scenario_file: str) -> Descriptions:
        """Raises OpenApiError when a description cannot be read or is broken."""
        paths = description_paths(parameters, scenario_file)
        key = tuple(sorted(paths.items()))
        found = self._indexes.get(key)
        if found is None:
            found = self._indexes[key] = Descriptions({name: self.cache.load(path) for name, path in paths.items()})
        return found


# The run's set: `check` and the executor of one process share descriptions and their indexes.
SHARED = DescriptionSet()


def aliases(parameters: Mapping[str, object]) -> dict[str, dict[str, str]]:
    return aliases_from_parameters({k: v for k, v in parameters.items() if k.startswith(params.BINDING)})


def operation_base_url(operation: Operation, parameters: EffectiveParameters, descriptions: Descriptions) -> str | None:
    """Where an operation's path is joined: `binding.NAME.baseUrl` of its description, then a
    `baseUrl` the user wrote (command line, scenario, feature, file), then its description's
    first server (variables at their defaults), then whatever `baseUrl` resolved to."""
    name = operation.description_name
    binding = parameters.get(f"{params.BINDING}{name}.baseUrl")
    if binding is not None and binding.value:
        return str(binding.value)
    base_url = parameters[params.BASE_URL]
    if base_url.source in _WRITTEN and base_url.value:
        return str(base_url.value)
    description = descriptions[name] if name in descriptions else None
    found = resolve_base_url(description) if description is not None else None
    if found:
        return found
    return base_url.value if base_url.source in (OPENAPI, DEFAULT) else None
