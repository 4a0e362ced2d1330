"""Effective parameters, most specific first (semantics.md §2): command line, the feature's block,
the file's block, the OpenAPI description (baseUrl only), the built-in default. Every value keeps
its provenance and the values it overrides."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from . import parameters as params
from .errors import Diagnostic, UsageError
from .nodes import FeatureNode, ParametersNode, ScenarioFileNode

COMMAND_LINE, FEATURE, FILE, OPENAPI, DEFAULT = "command-line", "feature", "file", "openapi", "default"


@dataclass(frozen=True, slots=True)
class Setting:
    """One level's value for one key."""

    value: Any
    source: str
    line: int | None = None
    feature: str | None = None
    detail: str | None = None  # for OpenAPI: the description's path

    def describe(self, before_line: str = " ") -> str:
        """`feature 'Pets' line 7`; with before_line=", " as step messages word it."""
        if self.source == FEATURE:
            return f"feature '{self.feature}'{before_line}line {self.line}"
        if self.source == FILE:
            return f"file{before_line}line {self.line}"
        if self.source == OPENAPI:
            return f"OpenAPI {Path(self.detail).name}" if self.detail else "OpenAPI"
        if self.source == COMMAND_LINE:
            return "command line"
        return "default"

    def short(self) -> str:
        return {FEATURE: f"feature '{self.feature}'", COMMAND_LINE: "command line",
                OPENAPI: "OpenAPI"}.get(self.source, self.source)


@dataclass(frozen=True, slots=True)
class EffectiveValue:
    key: str
    winner: Setting
    overridden: tuple[Setting, ...]  # lower levels that also set the key, most specific first

    @property
    def value(self) -> Any:
        return self.winner.value

    @property
    def source(self) -> str:
        return self.winner.source

    @property
    def line(self) -> int | None:
        return self.winner.line


@dataclass(frozen=True)
class EffectiveParameters(Mapping[str, EffectiveValue]):
    values: dict[str, EffectiveValue]
    feature: str | None = None  # the feature these were resolved for, if any

    def __getitem__(self, key: str) -> EffectiveValue:
        return self.values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)

    @property
    def timeout(self) -> int:
        return self.values[params.TIMEOUT].value

    @property
    def base_url(self) -> str | None:
        return self.values[params.BASE_URL].value

    @property
    def share(self) -> bool:
        return self.values[params.SHARE].value

    def to_json(self) -> dict[str, dict[str, Any]]:
        return {key: {"value": v.value, "source": v.source, "line": v.line} for key, v in self.values.items()}


@dataclass(frozen=True)
class RunOverrides:
    """Settings from the command line; they apply to the whole run."""

    values: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_cli(cls, param: list[str] | None = None, base_url: str | None = None,
                 openapi: str | Sequence[str] | None = None) -> "RunOverrides":
        """`openapi`: `--openapi PATH` (the `default` description) or `NAME=PATH`, repeatable."""
        values: dict[str, Any] = {}
        for item in param or ():
            key, sep, raw = item.partition("=")
            key = key.strip()
            if not sep:
                raise UsageError(f"--param {item}: expected KEY=VALUE, e.g. --param timeout=10")
            if params.spec_for(key) is None:
                raise UsageError(f"--param {item}: {params.unknown_key_message(key)}")
            try:
                values[key] = params.parse_value(key, raw.strip())
            except params.ParameterValueError as problem:
                shown = item if len(item) <= 60 else item[:59] + "…"  # one readable line
                raise UsageError(f"--param {shown}: {problem}") from None
        if base_url is not None:
            try:
                values[params.BASE_URL] = params.parse_value(params.BASE_URL, base_url)
            except params.ParameterValueError as problem:
                raise UsageError(f"--base-url {base_url}: {problem}") from None
        for item in [openapi] if isinstance(openapi, str) else openapi or ():
            name, sep, path = item.partition("=")
            if not sep or not _DESCRIPTION_NAME.fullmatch(name):
                name, path = params.DEFAULT_DESCRIPTION, item
            if not path:
                raise UsageError(f"--openapi {item}: expected PATH or NAME=PATH")
            key = params.OPENAPI if name == params.DEFAULT_DESCRIPTION else f"{params.BINDING}{name}.location"
            values[key] = os.path.abspath(path)
        return cls(values)


_DESCRIPTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def _block_setting(block: ParametersNode | None, key: str, source: str, feature: str | None) -> Setting | None:
    entry = block.get(key) if block is not None else None
    if entry is None:
        return None
    return Setting(entry.value, source, entry.line, feature)


def resolve_parameters(
    file: ScenarioFileNode,
    feature: FeatureNode | None = None,
    overrides: RunOverrides | None = None,
) -> EffectiveParameters:
    """The effective parameters of the file node (feature=None) or of a feature's scenarios.
    Raises OpenApiError when a named OpenAPI description cannot be read."""
    overrides = overrides or RunOverrides()
    base = Path(file.path).parent
    values: dict[str, EffectiveValue] = {}
    # `openapi` first: the baseUrl of its description is one of baseUrl's levels.
    for key in sorted(params.SPECS, key=lambda k: k != params.OPENAPI):
        spec = params.SPECS[key]
        levels: list[Setting | None] = [
            Setting(overrides.values[key], COMMAND_LINE) if key in overrides.values else None,
            _block_setting(feature.parameters, key, FEATURE, feature.name) if feature else None,
            _block_setting(file.parameters, key, FILE, None),
        ]
        if key == params.BASE_URL:
            openapi = values[params.OPENAPI].winner if params.OPENAPI in values else None
            if openapi is not None and openapi.value is not None:
                path = openapi.value if openapi.source == COMMAND_LINE else str(base / openapi.value)
                from .openapi import base_url_from  # only files that name a description load YAML

                url = base_url_from(path)
                levels.append(Setting(url, OPENAPI, None, None, path) if url else None)
        levels.append(Setting(spec.default, DEFAULT))
        found = [s for s in levels if s is not None]
        values[key] = EffectiveValue(key, found[0], tuple(found[1:]))
    ordered = {key: values[key] for key in params.SPECS}
    # binding.* keys are open-ended: each appears where some level sets it, after the fixed keys.
    bindings = sorted({k for k in overrides.values if k.startswith(params.BINDING)}
                      | {e.key for block in (feature.parameters if feature else None, file.parameters)
                         if block is not None for e in block.entries if e.key.startswith(params.BINDING)})
    for key in bindings:
        levels = [
            Setting(overrides.values[key], COMMAND_LINE) if key in overrides.values else None,
            _block_setting(feature.parameters, key, FEATURE, feature.name) if feature else None,
            _block_setting(file.parameters, key, FILE, None),
        ]
        found = [s for s in levels if s is not None]
        ordered[key] = EffectiveValue(key, found[0], tuple(found[1:]))
    return EffectiveParameters(ordered, feature.name if feature else None)


def parameter_diagnostics(file: ScenarioFileNode, overrides: RunOverrides | None = None,
                          descriptions=None) -> list[Diagnostic]:
    """Problems only resolution finds: an OpenAPI description that cannot be read, an operation
    call that does not resolve (`descriptions`: a DescriptionSet to load them through)."""
    problems: list[Diagnostic] = []
    named = [entry for block in [file.parameters] + [f.parameters for f in file.features] if block
             for entry in block.entries
             if entry.key == params.OPENAPI or (params.binding_parts(entry.key) or ("", ""))[1] == "location"]
    if not named and not (overrides and params.OPENAPI in overrides.values) and not calls_operations(file):
        return problems  # nothing OpenAPI: its layer (YAML, schemas) is never imported
    from .openapi import OpenApiError, base_url_from

    for entry in named:
        try:
            base_url_from(str(Path(file.path).parent / entry.value))
        except OpenApiError as error:
            problems.append(Diagnostic(entry.location, str(error)))
    if overrides and params.OPENAPI in overrides.values:
        try:
            base_url_from(overrides.values[params.OPENAPI])
        except OpenApiError as error:
            raise UsageError(f"--openapi: {error}") from None
    if not problems and calls_operations(file):
        from .operation_check import operation_diagnostics  # imports the OpenAPI layer only when needed

        problems += operation_diagnostics(file, overrides, descriptions)
    return problems


def calls_operations(file: ScenarioFileNode) -> bool:
    """Whether any step of the file calls an operation (so OpenAPI descriptions are needed)."""
    blocks = [f.steps for f in file.fragments] + ([file.background.steps] if file.background else [])
    for item in file.items:
        if isinstance(item, FeatureNode):
            blocks += [s.steps for s in item.scenarios] + ([item.background.steps] if item.background else [])
        else:
            blocks.append(item.steps)
    return any(getattr(step, "operation", None) is not None for steps in blocks for step in steps)
