"""`check`'s view of operation calls: every `when: ^op` is resolved against the descriptions in
force where it is written, before anything runs. An unknown or ambiguous operation, a `using`
of an unknown description, a child the operation does not declare and a missing required path
parameter are located errors, each with the names that exist.

A fragment is checked with the file's parameters (it may be included anywhere); a feature's
background and scenarios with the feature's.
"""

from __future__ import annotations

from typing import Iterable, Iterator, Mapping, Union

from scenario_core.language.errors import Diagnostic
from scenario_core.language.nodes.blocks import FeatureNode, ScenarioFileNode, ScenarioNode
from scenario_core.language.nodes.steps import RequestStep, Step
from scenario_core.language.nodes.walk import included_fragments, walk_steps
from scenario_core.openapi.description_check import operation_problems
from scenario_core.openapi.documents import OpenApiError
from scenario_core.openapi.operation_lookup import Descriptions, OperationLookupError
from scenario_core.openapi.request_builder import RequestBuildError, build_request
from scenario_core.parameters.descriptions import SHARED, DescriptionSet, aliases
from scenario_core.parameters.resolution import EffectiveParameters, ParameterError, RunOverrides, resolve_parameters

# A group's calls are checked against: its descriptions, its operation aliases, its parameters.
_Resolved = tuple[Descriptions, dict[str, dict[str, str]], EffectiveParameters]

# Stands in for a child whose value is only known at run time: placement does not depend on it.
_RUN_TIME_VALUE = "1"


def _calls(steps: Iterable[Step]) -> Iterable[RequestStep]:
    """Operation calls of a block, those under described steps and in if branches included."""
    return (
        s
        for s in walk_steps(tuple(steps))
        if isinstance(s, RequestStep) and (s.operation is not None or s.raw is not None)
    )


def _groups(
    file: ScenarioFileNode,
) -> list[tuple[FeatureNode | None, ScenarioNode | None, list[RequestStep]]]:
    """Operation calls by the parameters they are checked with: the file's, each feature's, and
    each scenario's (outline row's) that has its own block (it may name descriptions)."""
    groups: list[tuple[FeatureNode | None, ScenarioNode | None, list[RequestStep]]] = []
    top: list[RequestStep] = []
    used = included_fragments(file)
    for fragment in file.fragments:
        # A .fragment file's fragment is checked only where this file includes it: a shared
        # fragments/ folder holds fragments for other specs too (`call using auth ^login`).
        if fragment.location.file == file.path or fragment.name in used:
            top += _calls(fragment.steps)
    if file.background is not None:
        top += _calls(file.background.steps)
    for item in file.items:
        if isinstance(item, FeatureNode):
            steps = list(_calls(item.background.steps)) if item.background is not None else []
            for scenario in item.scenarios:
                if scenario.parameters is not None:
                    groups.append((item, scenario, list(_calls(scenario.steps))))
                else:
                    steps += _calls(scenario.steps)
            groups.append((item, None, steps))
        elif item.parameters is not None:
            groups.append((None, item, list(_calls(item.steps))))
        else:
            top += _calls(item.steps)
    groups.insert(0, (None, None, top))
    return groups


def _resolved(
    file: ScenarioFileNode, overrides: RunOverrides | None, descriptions: DescriptionSet | None
) -> Iterator[tuple[list[RequestStep], Union[_Resolved, OpenApiError]]]:
    """(calls, (descriptions index, aliases, parameters)) per group of calls, or (calls, why)
    when its descriptions cannot be read."""
    descriptions = descriptions or SHARED
    for feature, scenario, calls in _groups(file):
        if not calls:
            continue
        try:
            try:
                parameters = resolve_parameters(file, feature, overrides, scenario)
            except ParameterError as error:  # reported where it stands (template_diagnostics)
                if error.partial is None:
                    continue
                parameters = error.partial  # the calls are still checked with the rest
            index = descriptions.for_parameters(parameters, file.path)
        except OpenApiError as error:
            yield calls, error
            continue
        yield calls, (index, aliases(parameters), parameters)


def operation_shapes(
    file: ScenarioFileNode, overrides: RunOverrides | None = None, descriptions: DescriptionSet | None = None
) -> dict[int, str]:
    """id(step) -> `POST /pets` for every operation call that resolves: what the TUI's tree shows
    beside `^createPet`. Calls that do not resolve are left out (check reports them)."""
    shapes: dict[int, str] = {}
    for calls, resolved in _resolved(file, overrides, descriptions):
        if isinstance(resolved, OpenApiError):
            continue
        index, known, _ = resolved
        for step in calls:
            if step.operation is None or step.operation.dynamic:  # a raw call, or names chosen at run time
                continue
            try:
                operation = index.find(step.operation.operation_id, step.operation.using, known)
            except OpenApiError:
                continue
            shapes[id(step)] = f"{operation.method} {operation.path}"
    return shapes


def operation_diagnostics(
    file: ScenarioFileNode, overrides: RunOverrides | None = None, descriptions: DescriptionSet | None = None
) -> list[Diagnostic]:
    problems: list[Diagnostic] = []
    described: set[tuple[int, str]] = set()  # operations whose schemas were checked: at their first call only
    for calls, resolved in _resolved(file, overrides, descriptions):
        if isinstance(resolved, OpenApiError):  # also reported where the description is named (resolution)
            problems.append(Diagnostic(calls[0].location, f"cannot check {calls[0].text}: {resolved}"))
            continue
        index, known, parameters = resolved
        for step in calls:
            if step.raw is not None:
                problems += _check_raw_call(step, index, parameters)
            else:
                problems += _check_call(step, index, known, described)
    return problems


def _check_call(
    step: RequestStep,
    index: Descriptions,
    known_aliases: Mapping[str, Mapping[str, str]],
    described: set[tuple[int, str]],
) -> list[Diagnostic]:
    ref = step.operation
    if ref is None:  # a request by path: no operation to check it against (_resolved gives none)
        return []
    if ref.dynamic:
        return _check_dynamic_call(step, index, known_aliases)
    try:
        operation = index.find(ref.operation_id, ref.using, known_aliases)
    except OperationLookupError as error:
        return [Diagnostic(ref.location, str(error))]
    key = (id(operation.source), operation.pointer)
    if key not in described:
        described.add(key)
        broken = [Diagnostic(ref.location, f"{ref.text}: {e}") for e in operation_problems(operation)]
        if broken:
            return broken  # building its request would only repeat them
    if any(p.name_template is not None for p in step.parameters):
        return []  # a child whose name a {{NAME}} chooses is placed, and checked, at run time
    children = [(p.name, p.value.constant if not p.value.refs else _RUN_TIME_VALUE) for p in step.parameters]
    children += [(f"query_{q.name}", _RUN_TIME_VALUE) for q in step.query]
    try:
        build_request(operation, children)
    except RequestBuildError as error:
        where = next((p.location for p in step.parameters if p.name == error.child), step.location)
        return [Diagnostic(where, f"{ref.text}: {' '.join(str(error).split())}")]
    except OpenApiError as error:
        return [Diagnostic(step.location, f"{ref.text}: {' '.join(str(error).split())}")]
    return []


def _check_dynamic_call(
    step: RequestStep, index: Descriptions, known_aliases: Mapping[str, Mapping[str, str]]
) -> list[Diagnostic]:
    """`call using {{spec}} ^op`: what is written as a name is checked (the operation exists in
    some description in force); a `{{NAME}}` is looked up at run time, where a name that
    resolves to no description or operation ends that scenario at this line."""
    ref = step.operation
    assert ref is not None
    if ref.id_template is not None:
        return []
    try:
        index.find(ref.operation_id, None, known_aliases)
    except OperationLookupError as error:
        if error.kind == "ambiguous":  # `using` will say which, at run time
            return []
        return [Diagnostic(ref.location, f"{ref.text}: {error}")]
    return []


def _check_raw_call(step: RequestStep, index: Descriptions, parameters: EffectiveParameters) -> list[Diagnostic]:
    """`call using NAME raw GET /`: a NAME written as a name needs a server, `binding.NAME.baseUrl`
    or a description NAME (run/raw_calls.py); a `{{NAME}}` is looked up at run time."""
    raw = step.raw
    assert raw is not None
    if raw.using is None or raw.using.refs:
        return []
    name = raw.using.text
    binding = parameters.get(f"binding.{name}.baseUrl")
    if (binding is not None and binding.value) or name in index:
        return []
    return [
        Diagnostic(
            raw.using.location,
            f"no server for '{name}': set binding.{name}.baseUrl, or name an OpenAPI description '{name}'",
        )
    ]
