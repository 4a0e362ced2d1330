"""Errors local to one scenario (docs/spec/steps.md#errors-local-to-one-scenario): a described step no custom step matches, an
operation no description has, a call child the operation does not declare, an invalid JSON path or condition (the builder's UnreadableStep,
coded json-path / condition), an include of a fragment whose .fragment file does not parse.
`check` reports them like any error, but `run`, the TUI and the
pytest plugin do not refuse the file for them: the file carries them (ScenarioFileNode.
local_errors) and the executor ends each scenario that holds one at that line, before it sends
anything. An error in a background or a fragment is not local: it would end every scenario."""

from __future__ import annotations

from typing import Sequence

from scenario_core.language.errors import Diagnostic
from scenario_core.language.nodes.blocks import ScenarioFileNode, ScenarioNode
from scenario_core.language.nodes.steps import RequestStep
from scenario_core.language.nodes.walk import walk_steps
from scenario_core.support.records import replace


def _step_lines(scenario: ScenarioNode) -> set[int]:
    """The lines of a scenario's steps, with a call's `name: value` children: a child the
    operation does not declare is local to the scenario as its call would be."""
    lines: set[int] = set()
    for step in walk_steps(scenario.steps):
        lines.add(step.location.line)
        if isinstance(step, RequestStep):
            lines.update(child.location.line for child in step.parameters)
    return lines


def _shared_lines(file: ScenarioFileNode) -> set[int]:
    """Lines of the file's steps that run for more than one scenario: backgrounds, fragments."""
    shared = [f.steps for f in file.fragments if f.location.file == file.path]
    shared += [b.steps for b in (file.background, *(f.background for f in file.features)) if b is not None]
    lines: set[int] = set()
    for steps in shared:
        for step in walk_steps(steps):
            lines.add(step.location.line)
            if isinstance(step, RequestStep):
                lines.update(child.location.line for child in step.parameters)
    return lines


def split_local(file: ScenarioFileNode, diagnostics: Sequence[Diagnostic]) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """(local, the rest): a diagnostic is local when it stands on a step line of the file's own
    scenarios and of no background or fragment; each comes back marked `local`."""
    if not diagnostics:
        return [], []
    own: set[int] = set()
    for scenario, _ in file.scenarios_in_order():
        own |= _step_lines(scenario)
    own -= _shared_lines(file)
    local, rest = [], []
    for d in diagnostics:
        if d.location.file == file.path and d.location.line in own:
            local.append(replace(d, local=True))
        else:
            rest.append(d)
    return local, rest


def with_local_errors(file: ScenarioFileNode, local: Sequence[Diagnostic]) -> ScenarioFileNode:
    # In file order: `check` lists them so (docs/spec/cli.md#error-lines), and a scenario ends at its first one.
    ordered = sorted(local, key=lambda d: (d.location.line, d.location.column))
    return replace(file, local_errors=tuple(ordered)) if local else file


def local_error_of(file: ScenarioFileNode, scenario: ScenarioNode) -> Diagnostic | None:
    """The first error local to this scenario (an outline row: to its outline's steps), if any."""
    if not file.local_errors:
        return None
    lines = _step_lines(scenario)
    return next((d for d in file.local_errors if d.location.line in lines), None)


__all__ = ["split_local", "with_local_errors", "local_error_of"]
