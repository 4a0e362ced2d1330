"""Effective parameters, most specific first (docs/spec/parameters.md#resolution): the command line, the scenario's
own block, its feature's block, the file's block, the OpenAPI description (baseUrl only), the
built-in default. Every value keeps its provenance and the values it overrides.

A value reading `{{env.NAME}}` or `{{param.KEY}}` (a ValueTemplate) is resolved here, once per
node, against the environment and the node's other effective values, then validated by its key's
type; its provenance names the line and the source (`file line 4, from $API_URL`)."""

from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

from scenario_core.language import parameter_keys as params
from scenario_core.language.errors import Diagnostic, ScenarioError, UsageError
from scenario_core.language.nodes.blocks import FeatureNode, ParameterEntry, ScenarioFileNode, ScenarioNode
from scenario_core.language.parameter_keys import ParameterValue
from scenario_core.language.parameter_values import ParameterValueError
from scenario_core.support.patterns import on_first_use
from scenario_core.support.records import dataclass, field

COMMAND_LINE, SCENARIO, FEATURE, FILE, OPENAPI, DEFAULT = (
    "command-line",
    "scenario",
    "feature",
    "file",
    "openapi",
    "default",
)


@dataclass(frozen=True, slots=True)
class Setting:
    """One level's value for one key."""

    value: Any  # its key's type; a ValueTemplate until resolved (_Resolver._render)
    source: str
    line: int | None = None
    feature: str | None = None
    detail: str | None = None  # for OpenAPI: the description's path
    scenario: str | None = None  # for SCENARIO: the scenario's name
    via: str | None = None  # what a {{...}} value was read from: `$API_URL`, `param.region`

    def describe(self, before_line: str = " ") -> str:
        """`feature 'Pets' line 7`; with before_line=", " as step messages word it."""
        if self.source == SCENARIO:
            where = f"scenario '{self.scenario}'{before_line}line {self.line}"
        elif self.source == FEATURE:
            where = f"feature '{self.feature}'{before_line}line {self.line}"
        elif self.source == FILE:
            where = f"file{before_line}line {self.line}"
        elif self.source == OPENAPI:
            where = f"OpenAPI {Path(self.detail).name}" if self.detail else "OpenAPI"
        elif self.source == COMMAND_LINE:
            where = "command line"
        else:
            where = "default"
        return f"{where}, from {self.via}" if self.via else where

    def short(self) -> str:
        return {
            SCENARIO: f"scenario '{self.scenario}'",
            FEATURE: f"feature '{self.feature}'",
            COMMAND_LINE: "command line",
            OPENAPI: "OpenAPI",
        }.get(self.source, self.source)


@dataclass(frozen=True, slots=True)
class EffectiveValue:
    key: str
    winner: Setting
    overridden: tuple[Setting, ...]  # lower levels that also set the key, most specific first

    @property
    def value(self) -> Any:  # resolved: its key's type (a user key's scalar), or None
        return self.winner.value

    @property
    def source(self) -> str:
        return self.winner.source

    @property
    def line(self) -> int | None:
        return self.winner.line


@dataclass(frozen=True)
class EffectiveParameters(Mapping[str, EffectiveValue]):
    by_key: dict[str, EffectiveValue]  # not `values`: that would hide Mapping.values()
    feature: str | None = None  # the feature these were resolved for, if any
    scenario: str | None = None  # the scenario, when it has its own parameters: block

    def __getitem__(self, key: str) -> EffectiveValue:
        found = self.by_key.get(key)
        if found is None:
            found = self.by_key[params.canonical_key(key)]
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self.by_key)

    def __len__(self) -> int:
        return len(self.by_key)

    @property
    def timeout(self) -> int:
        seconds: int = self.by_key[params.TIMEOUT].value
        return seconds

    @property
    def base_url(self) -> str | None:
        url: str | None = self.by_key[params.BASE_URL].value
        return url

    @property
    def share(self) -> bool:
        shared: bool = self.by_key[params.SHARE].value
        return shared

    @property
    def environment(self) -> str | None:
        found = self.by_key.get(params.ENVIRONMENT)
        return found.value if found is not None else None

    @cached_property
    def headers(self) -> tuple[tuple[str, str], ...]:
        """(name, value) of every `header.NAME`: sent with each request of this scope."""
        return tuple(
            (name, v.value)
            for key, v in self.by_key.items()
            if (name := params.header_name(key)) is not None and v.value is not None
        )

    def to_json(self) -> dict[str, dict[str, object]]:
        out: dict[str, dict[str, object]] = {}
        for key, v in self.by_key.items():
            item: dict[str, object] = {"value": v.value, "source": v.source, "line": v.line}
            if v.winner.via:
                item["from"] = v.winner.via
            if not params.is_known(key):
                item["user"] = True  # a user parameter (docs/spec/parameters.md#user-parameters), read as {{param.KEY}}
            out[key] = item
        return out


class ParameterError(ScenarioError):
    """A parameter value that cannot be resolved: an unset environment variable, a cycle of
    `{{param.KEY}}`, a substituted value that does not fit its key. `partial`: the parameters
    with that value left out (the next level's value), so a run can still report the scenario."""

    def __init__(self, diagnostic: Diagnostic, partial: "EffectiveParameters | None" = None):
        super().__init__(str(diagnostic))
        self.diagnostic = diagnostic
        self.partial = partial

    @property
    def message(self) -> str:
        """The message with its line, as a scenario that cannot start reports it."""
        return f"{self.diagnostic.message} (parameters, line {self.diagnostic.location.line})"


@dataclass(frozen=True)
class RunOverrides:
    """Settings from the command line; they apply to the whole run."""

    values: dict[str, ParameterValue] = field(default_factory=dict)

    @classmethod
    def from_cli(
        cls, param: Sequence[str] | None = None, base_url: str | None = None, openapi: str | Sequence[str] | None = None
    ) -> "RunOverrides":
        """`openapi`: `--openapi PATH` (the `default` description) or `NAME=PATH`, repeatable.
        `--param KEY=VALUE` with a key this tool does not know sets a user key (a string, only
        read by `{{param.KEY}}`), unless the key is a near miss of a known one (`timout`)."""
        values: dict[str, ParameterValue] = {}
        for item in param or ():
            key, sep, raw = item.partition("=")
            key, raw = key.strip(), raw.strip()
            shown = item if len(item) <= 60 else item[:59] + "…"  # one readable line
            if not sep:
                raise UsageError(f"--param {item}: expected KEY=VALUE, e.g. --param timeout=10")
            if "{{" in raw:
                raise UsageError(
                    f"--param {shown}: a command-line value is taken as written; "
                    "let the shell expand environment variables ($NAME)"
                )
            if params.spec_for(key) is None:
                if not params.is_user_key(key):
                    raise UsageError(f"--param {item}: {params.unknown_key_message(key)}")
                try:
                    values[key] = params.parse_user_value(key, raw)
                except ParameterValueError as problem:
                    raise UsageError(f"--param {shown}: {problem}") from None
                continue
            try:
                values[key] = params.parse_value(key, raw)
            except ParameterValueError as problem:
                raise UsageError(f"--param {shown}: {problem}") from None
        if base_url is not None:
            try:
                values[params.BASE_URL] = params.parse_value(params.BASE_URL, base_url)
            except ParameterValueError as problem:
                raise UsageError(f"--base-url {base_url}: {problem}") from None
            if isinstance(values[params.BASE_URL], params.ValueTemplate):
                raise UsageError(f"--base-url {base_url}: a command-line value is taken as written")
        for item in [openapi] if isinstance(openapi, str) else openapi or ():
            name, sep, path = item.partition("=")
            if not sep or not _DESCRIPTION_NAME().fullmatch(name):
                name, path = params.DEFAULT_DESCRIPTION, item
            if not path:
                raise UsageError(f"--openapi {item}: expected PATH or NAME=PATH")
            key = params.OPENAPI if name == params.DEFAULT_DESCRIPTION else f"{params.BINDING}{name}.location"
            values[key] = os.path.abspath(path)
        return cls(values)


_DESCRIPTION_NAME = on_first_use(r"[A-Za-z_][A-Za-z0-9_-]*")


class _Levels:
    """Every level's settings of one node, key by key, and where each block entry was written."""

    def __init__(
        self,
        file: ScenarioFileNode,
        feature: FeatureNode | None,
        scenario: ScenarioNode | None,
        overrides: RunOverrides,
    ):
        self.by_key: dict[str, list[Setting]] = {}
        self.where: dict[int, ParameterEntry] = {}  # id(setting) -> the entry that wrote it
        self.problems: list[Diagnostic] = []
        for key, value in overrides.values.items():
            self.by_key.setdefault(params.canonical_key(key), []).append(Setting(value, COMMAND_LINE))
        feature_name = feature.name if feature is not None else None
        scenario_name = scenario.name if scenario is not None else None
        blocks = [
            (scenario.parameters if scenario is not None else None, SCENARIO),
            (feature.parameters if feature is not None else None, FEATURE),
            (file.parameters, FILE),
        ]
        for block, source in blocks:
            for entry in block.entries if block is not None else ():
                if source == SCENARIO and entry.key == params.SHARE:
                    continue  # sharing is the feature's or the file's (the builder refuses it here)
                value = entry.value
                if isinstance(value, str) and "{{" in value and not params.is_known(entry.key):
                    try:  # a user key, kept by the builder as written
                        value = params.parse_template(entry.key, value)
                    except ParameterValueError as problem:
                        self.problems.append(Diagnostic(entry.location, str(problem)))
                        continue
                setting = Setting(
                    value,
                    source,
                    entry.line if entry.taken_at is None else entry.taken_at,
                    feature_name if source != FILE else None,
                    None,
                    scenario_name if source == SCENARIO else None,
                    # taken in with `<< NAME`: the `<<` line is this file's, the value's is there
                    None if entry.taken_at is None else f"{Path(entry.location.file).name} line {entry.line}",
                )
                self.by_key.setdefault(params.canonical_key(entry.key), []).append(setting)
                self.where[id(setting)] = entry


def parameter_text(value: object) -> str:
    """How a parameter's value reads as text: inside another's value, and wherever a step reads
    `{{param.KEY}}` (true, 30, 500ms, names joined by commas)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ", ".join(value)
    return str(value)


class _Resolver:
    """Resolves each key once (ValueTemplates against the environment and the other keys),
    noticing cycles; a key that fails falls back to its next level, the first problem is kept."""

    def __init__(self, levels: _Levels, file: ScenarioFileNode, overrides: RunOverrides, environ: Mapping[str, str]):
        self.levels, self.file, self.overrides, self.environ = levels, file, overrides, environ
        self.done: dict[str, EffectiveValue | None] = {}
        self.visiting: list[str] = []
        self.problem: Diagnostic | None = levels.problems[0] if levels.problems else None

    def get(self, key: str) -> EffectiveValue | None:
        if key in self.done:
            return self.done[key]
        if key in self.visiting:
            cycle = self.visiting[self.visiting.index(key) :] + [key]
            raise UnresolvedTemplate(f"parameters read each other in a cycle: {' → '.join(cycle)}")
        self.visiting.append(key)
        try:
            found = self._resolve(key)
        finally:
            self.visiting.pop()
        self.done[key] = found
        return found

    def _resolve(self, key: str) -> EffectiveValue | None:
        found = list(self.levels.by_key.get(key, ()))
        spec = params.SPECS.get(key)
        if key == params.BASE_URL:
            found += self._openapi_level()
        if spec is not None:
            found.append(Setting(spec.default, DEFAULT))
        if not found:
            return None
        winner = found[0]
        if isinstance(winner.value, params.ValueTemplate):
            try:
                winner = self._render(key, winner)
            except UnresolvedTemplate as failure:
                entry = self.levels.where.get(id(found[0]))
                if self.problem is None and entry is not None:
                    self.problem = Diagnostic(entry.location, str(failure))
                if self.visiting[:-1]:  # a key reading this one cannot be resolved either
                    raise
                rest = [s for s in found[1:] if not isinstance(s.value, params.ValueTemplate)]
                return EffectiveValue(key, rest[0], tuple(rest[1:])) if rest else None
        return EffectiveValue(key, winner, tuple(found[1:]))

    def _render(self, key: str, setting: Setting) -> Setting:
        template: params.ValueTemplate = setting.value
        value = render_template(key, template, self.environ, self.get)
        return Setting(
            value, setting.source, setting.line, setting.feature, setting.detail, setting.scenario, template.sources()
        )

    def _openapi_level(self) -> list[Setting]:
        openapi = self.get(params.OPENAPI)
        if openapi is None or openapi.value is None:
            return []
        base = Path(self.file.path).parent
        path = openapi.value if openapi.source == COMMAND_LINE else str(base / openapi.value)
        from scenario_core.openapi.loader import base_url_from  # only files that name a description load YAML

        url = base_url_from(path)
        return [Setting(url, OPENAPI, None, None, path)] if url else []


class UnresolvedTemplate(Exception):
    """A ValueTemplate that cannot be resolved; the message is the user's line."""


def render_template(
    key: str,
    template: params.ValueTemplate,
    environ: Mapping[str, str],
    value_of: Callable[[str], EffectiveValue | None],
) -> object:
    """`key`'s value written as `template`: its `{{env.NAME}}` read from `environ`, its
    `{{param.KEY}}` from `value_of` (the other keys' effective values), the text parsed as the
    key's spec says. Raises UnresolvedTemplate, one line naming what was missing or wrong."""

    def lookup(kind: str, name: str) -> str:
        if kind == params.ENV:
            value = environ.get(name)
            if value is None:
                raise UnresolvedTemplate(f"{key} reads {{{{env.{name}}}}}, but environment variable {name} is not set")
            return value
        other = value_of(params.canonical_key(name))
        if other is None:
            raise UnresolvedTemplate(f"{key} reads {{{{param.{name}}}}}, but no parameter '{name}' is set")
        if other.value is None:
            raise UnresolvedTemplate(f"{key} reads {{{{param.{name}}}}}, but {name} has no value here")
        return parameter_text(other.value)

    text = template.render(lookup)
    spec = params.spec_for(key)
    try:
        return spec.parse(key, text) if spec is not None else text
    except ParameterValueError as problem:
        raise UnresolvedTemplate(f"{problem} (read from {template.sources()})") from None


def _open_key_order(key: str) -> tuple[int, str]:
    return (0 if params.is_known(key) else 1, key)


def resolve_parameters(
    file: ScenarioFileNode,
    feature: FeatureNode | None = None,
    overrides: RunOverrides | None = None,
    scenario: ScenarioNode | None = None,
    environ: Mapping[str, str] | None = None,
) -> EffectiveParameters:
    """The effective parameters of the file node (feature=None), of a feature's scenarios, or of
    one scenario with its own block (`scenario`). Every known key, then the open families
    (binding.*, header.NAME, multiTest.X) and user keys that some level sets.
    Raises OpenApiError when a named OpenAPI description cannot be read, ParameterError when a
    `{{env.NAME}}` / `{{param.KEY}}` value cannot be resolved."""
    overrides = overrides or RunOverrides()
    levels = _Levels(file, feature, scenario, overrides)
    resolver = _Resolver(levels, file, overrides, os.environ if environ is None else environ)
    ordered: dict[str, EffectiveValue] = {}
    for key in list(params.SPECS) + sorted((k for k in levels.by_key if k not in params.SPECS), key=_open_key_order):
        try:
            found = resolver.get(key)
        except UnresolvedTemplate:  # reported once, by the key that holds the template
            found = None
        if found is not None:
            ordered[key] = found
    result = EffectiveParameters(
        ordered,
        feature.name if feature else None,
        scenario.name if scenario is not None and scenario.parameters else None,
    )
    if resolver.problem is not None:
        raise ParameterError(resolver.problem, result)
    return result
