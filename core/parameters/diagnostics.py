"""What only resolution finds in a file, for `check`, the TUI and the editor: `{{env.NAME}}` /
`{{param.KEY}}` values that do not resolve, OpenAPI descriptions that cannot be read, operation
calls that do not resolve, includes of a fragment whose file does not parse. Also `load_valid`: every file loaded with all of these at once."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Mapping, Sequence, cast

from scenario_core.language import parameter_keys as params
from scenario_core.language.errors import SCENARIO_LOCAL_CODES, Diagnostic, InvalidFileError, UsageError
from scenario_core.language.fragment_files import broken_includes
from scenario_core.language.nodes.blocks import FeatureNode, ParametersNode, ScenarioFileNode, ScenarioNode
from scenario_core.language.nodes.walk import walk_steps
from scenario_core.parameters.local_errors import split_local, with_local_errors
from scenario_core.parameters.resolution import ParameterError, RunOverrides, resolve_parameters
from scenario_core.support.class_path import written_location

if TYPE_CHECKING:  # imported only by a file that names a description or calls an operation
    from scenario_core.parameters.descriptions import DescriptionSet


def has_templates(file: ScenarioFileNode) -> bool:
    """Whether any block of the file holds a `{{...}}` value (most files: none, nothing to check)."""
    return any(
        isinstance(e.value, params.ValueTemplate) or (isinstance(e.value, str) and "{{" in e.value)
        for block in _blocks(file)
        for e in block.entries
    )


def _blocks(file: ScenarioFileNode) -> list[ParametersNode]:
    blocks = [file.parameters] + [f.parameters for f in file.features]
    for item in file.items:
        for scenario in item.scenarios if isinstance(item, FeatureNode) else (item,):
            blocks.append(scenario.parameters)
    return [b for b in blocks if b is not None]


def template_diagnostics(
    file: ScenarioFileNode, overrides: RunOverrides | None = None, environ: Mapping[str, str] | None = None
) -> list[Diagnostic]:
    """Every `{{env.NAME}}` / `{{param.KEY}}` value that does not resolve, for each node that
    has one (the file, each feature, each scenario with its own block): an unset environment
    variable, a cycle, a value that does not fit its key once substituted."""
    if not has_templates(file):
        return []
    from scenario_core.openapi.documents import OpenApiError

    found: dict[tuple[str, int, int, str], Diagnostic] = {}
    nodes: list[tuple[FeatureNode | None, ScenarioNode | None]] = [(None, None)]
    for item in file.items:
        if isinstance(item, FeatureNode):
            nodes.append((item, None))
            nodes += [(item, s) for s in item.scenarios if s.parameters is not None]
        elif item.parameters is not None:
            nodes.append((None, item))
    for feature, scenario in nodes:
        try:
            resolve_parameters(file, feature, overrides, scenario, environ)
        except ParameterError as error:
            d = error.diagnostic
            found.setdefault((d.location.file, d.location.line, d.location.column, d.message), d)
        except OpenApiError:
            pass  # reported by parameter_diagnostics
    return list(found.values())


def parameter_diagnostics(
    file: ScenarioFileNode, overrides: RunOverrides | None = None, descriptions: DescriptionSet | None = None
) -> list[Diagnostic]:
    """Problems only resolution finds: a `{{env.NAME}}` / `{{param.KEY}}` value that does not
    resolve, an OpenAPI description that cannot be read, an operation call that does not resolve
    (`descriptions`: a DescriptionSet to load them through); and includes of a fragment whose
    .fragment file does not parse, which, like an unresolved call, end only their scenario."""
    return _resolution_diagnostics(file, overrides, descriptions) + broken_includes(file)


def _resolution_diagnostics(
    file: ScenarioFileNode, overrides: RunOverrides | None, descriptions: DescriptionSet | None
) -> list[Diagnostic]:
    problems: list[Diagnostic] = template_diagnostics(file, overrides)
    if (problems and _names_descriptions(file, problems)) or _mistypes_descriptions(file):
        return problems  # the calls are checked against descriptions that cannot be named
    named = [
        entry
        for block in _blocks(file)
        for entry in block.entries
        if _names_description(entry.key) and isinstance(entry.value, str)  # a {{...}} value: per node, at run time
    ]
    if not named and not (overrides and params.OPENAPI in overrides.values) and not calls_operations(file):
        return problems  # nothing OpenAPI: its layer (YAML, schemas) is never imported
    from scenario_core.openapi.loader import OpenApiError, base_url_from

    unreadable = False  # a description that cannot be read: its calls cannot be checked
    for entry in named:
        try:
            base_url_from(written_location(str(entry.value), file.path))
        except OpenApiError as error:
            problems.append(Diagnostic(entry.location, str(error)))
            unreadable = True
    if overrides and params.OPENAPI in overrides.values:
        try:
            base_url_from(cast(str, overrides.values[params.OPENAPI]))  # --openapi's path (from_cli)
        except OpenApiError as error:
            raise UsageError(f"--openapi: {error}") from None
    if not unreadable and calls_operations(file):
        from scenario_core.parameters.operation_check import (
            operation_diagnostics,
        )  # imports the OpenAPI layer only when needed

        problems += operation_diagnostics(file, overrides, descriptions)
    return problems


def _names_description(key: str) -> bool:
    """`openapi` or `binding.NAME.location`: a key that names an OpenAPI description."""
    return key == params.OPENAPI or (params.binding_parts(key) or ("", ""))[1] == "location"


def _names_descriptions(file: ScenarioFileNode, problems: list[Diagnostic]) -> bool:
    """Whether a problem stands on an entry that names an OpenAPI description: then no call can
    be checked; otherwise calls are checked anyway."""
    lines = {entry.location.line for block in _blocks(file) for entry in block.entries if _names_description(entry.key)}
    return any(p.location.line in lines for p in problems)


def _mistypes_descriptions(file: ScenarioFileNode) -> bool:
    """Whether an entry's key is a near miss of one that names a description (`opnapi:`, an error
    the syntax stage reports): the calls' descriptions are unknown, and checking them would only
    add `no OpenAPI description is loaded` to the typo's own error."""
    return any(
        not params.is_known(entry.key) and _names_description(params.near_miss(entry.key) or "")
        for block in _blocks(file)
        for entry in block.entries
    )


def calls_operations(file: ScenarioFileNode) -> bool:
    """Whether any step of the file calls an operation, or makes a raw call (`call using NAME raw
    GET /`: its NAME may be a description), so OpenAPI descriptions are needed."""
    blocks = [f.steps for f in file.fragments] + ([file.background.steps] if file.background else [])
    for item in file.items:
        if isinstance(item, FeatureNode):
            blocks += [s.steps for s in item.scenarios] + ([item.background.steps] if item.background else [])
        else:
            blocks.append(item.steps)
    return any(
        getattr(step, "operation", None) is not None or getattr(step, "raw", None) is not None
        for steps in blocks
        for step in walk_steps(steps)
    )


def _custom_step_diagnostics(node: ScenarioFileNode, plugins: Sequence[str]) -> list[Diagnostic]:
    # Plugins (and importlib.metadata's entry points) load only for a file that has a custom
    # step or assertion, or when --plugins asks: other files pay nothing.
    if not plugins and node.custom_steps is False:  # the builder noted none: no import at all
        return []
    from scenario_core.custom_steps.diagnostics import custom_diagnostics, uses_custom_steps
    from scenario_core.custom_steps.plugins import plugin_registry

    if not plugins and not uses_custom_steps(node):
        return []
    return custom_diagnostics(node, plugin_registry(plugins))


def read_all_stages(
    path: str,
    fragments: tuple[str, ...] | list[str],
    later_stages: Callable[[ScenarioFileNode], list[Diagnostic]],
) -> ScenarioFileNode:
    """Read a file and check it in one pass, every stage (docs/spec/steps.md#every-error-at-once):
    when the syntax stage finds errors, `later_stages` (parameters, environment, operations,
    custom steps) still run, on the tree read around the lines in error. Raises InvalidFileError
    holding every diagnostic, sorted; a file whose only errors are local to scenarios (docs/spec/steps.md#errors-local-to-one-scenario)
    loads, carrying them in `local_errors`."""
    from scenario_core.language.parser import load_file

    syntax: list[Diagnostic] = []
    try:
        node = load_file(path, fragments)
    except InvalidFileError as error:
        capped = any(d.code == "more" for d in error.diagnostics)  # a hundred errors already: enough
        if not isinstance(error.partial, ScenarioFileNode) or capped:
            raise
        node, syntax = error.partial, error.diagnostics
    structural = [d for d in syntax if d.code not in SCENARIO_LOCAL_CODES]
    candidates = [d for d in syntax if d.code in SCENARIO_LOCAL_CODES] + later_stages(node)
    local, rest = split_local(node, candidates)
    if structural or rest:  # in file order, every stage's together (docs/spec/cli.md#error-lines)
        found = sorted(structural + rest + local, key=lambda d: (d.location.line, d.location.column))
        raise InvalidFileError(found)
    return with_local_errors(node, local)


def load_valid(
    paths: Sequence[str],
    overrides: RunOverrides | None = None,
    plugins: Sequence[str] = (),
    fragments: tuple[str, ...] | list[str] = (),  # as load_file takes them (a str is not a list of them)
) -> list[ScenarioFileNode]:
    """Load every file; raise one InvalidFileError holding all their diagnostics, of every stage,
    except errors local to one scenario (docs/spec/steps.md#errors-local-to-one-scenario): a file with only those loads,
    carrying them in `local_errors` (`check` reports them; the executor ends their scenarios)."""

    def later_stages(node: ScenarioFileNode) -> list[Diagnostic]:
        return parameter_diagnostics(node, overrides) + _custom_step_diagnostics(node, plugins)

    files, problems = [], []
    for path in paths:
        try:
            files.append(read_all_stages(path, fragments, later_stages))
        except InvalidFileError as error:
            problems.extend(error.diagnostics)
    if problems:
        raise InvalidFileError(problems)
    return files
