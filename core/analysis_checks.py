"""The warnings of scope analysis that need no walk: duplicate scenario names, fragments never
included, variables extracted and read nowhere (scope_analysis.py has the codes)."""

from __future__ import annotations

from .analysis_walk import blocks, step_refs
from .assertions import assertion_refs
from .errors import WARNING, Diagnostic
from .nodes import (
    ConditionalStep, DescribedStep, ExtractStep, FeatureNode, IncludeStep, ScenarioFileNode, ScenarioNode,
    walk_steps,
)

DUPLICATE_SCENARIO, UNUSED_FRAGMENT, UNUSED_VARIABLE = "duplicate-scenario", "unused-fragment", "unused-variable"


def _written(scenario: ScenarioNode) -> tuple[str, int, object]:
    """A scenario's name as written, its line, and its location: an outline's rows are one
    outline (their names differ by row, by design)."""
    row = scenario.outline
    if row is not None:
        return row.outline, row.outline_line, None
    return scenario.name, scenario.line, scenario.location


def duplicate_scenarios(file: ScenarioFileNode) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    groups: list[tuple[str, tuple[ScenarioNode, ...]]] = [
        (f"in feature '{f.name}'", f.scenarios) for f in file.features]
    groups.append(("among the file's standalone scenarios", file.scenarios))
    for where, scenarios in groups:
        first: dict[str, int] = {}
        lines: set[int] = set()
        for scenario in scenarios:
            name, line, _ = _written(scenario)
            if line in lines:
                continue  # another row of the same outline
            lines.add(line)
            if name in first:
                location = scenario.location
                if scenario.outline is not None:  # the outline's line, not its examples row's
                    location = type(location)(location.file, line, 1, line, 1)
                found.append(Diagnostic(location, f"duplicate scenario name '{name}' {where}; the first is at "
                                                  f"line {first[name]}", WARNING, DUPLICATE_SCENARIO))
            else:
                first[name] = line
    return found


def _includes(steps) -> list[str]:
    return [s.fragment for s in walk_steps(steps) if isinstance(s, IncludeStep)]


def reached_fragments(file: ScenarioFileNode) -> set[str]:
    """The fragments that run: included by a background or scenario, or by a fragment that runs."""
    roots = [file.background.steps] if file.background is not None else []
    seen: set[int] = set()
    for item in file.items:
        if isinstance(item, FeatureNode) and item.background is not None:
            roots.append(item.background.steps)
        for scenario in item.scenarios if isinstance(item, FeatureNode) else (item,):
            if id(scenario.steps) not in seen:
                seen.add(id(scenario.steps))
                roots.append(scenario.steps)
    pending = [name for steps in roots for name in _includes(steps)]
    reached: set[str] = set()
    while pending:
        name = pending.pop()
        if name not in reached:
            reached.add(name)
            fragment = file.fragment(name)
            if fragment is not None:
                pending += _includes(fragment.steps)
    return reached


def unused_fragments(file: ScenarioFileNode) -> list[Diagnostic]:
    """The file's own fragments that never run (a .fragment file is shared by many files: not warned)."""
    reached = reached_fragments(file)
    found = []
    for fragment in file.fragments:
        if fragment.location.file != file.path or fragment.name in reached:
            continue
        by = sorted({f.name for f in file.fragments if f.name not in reached and fragment.name in _includes(f.steps)})
        message = f"fragment '{fragment.name}' is never included"
        if by:
            message += f" (only by {', '.join(repr(n) for n in by)}, never included either)"
        found.append(Diagnostic(fragment.location, message, WARNING, UNUSED_FRAGMENT))
    return found


def unused_variables(file: ScenarioFileNode) -> list[Diagnostic]:
    """Names an extract of this file writes and no `{{NAME}}` of the file (or of a fragment it
    uses) reads. Skipped when a custom step is there: its Python code may read any variable."""
    used: set[str] = set()
    extracts: dict[tuple, ExtractStep] = {}
    reached = reached_fragments(file)
    for steps in blocks(file):
        for step in walk_steps(steps):
            if isinstance(step, DescribedStep):
                if step.custom:
                    return []
                used.update(r.name for r in step.description.refs)
            elif isinstance(step, ConditionalStep):
                for branch in step.branches:
                    if branch.condition is not None:
                        used.update(r.name for r in assertion_refs(branch.condition))
            used.update(r.name for r in step_refs(step))
    for fragment in file.fragments:
        if fragment.location.file == file.path and fragment.name not in reached:
            continue  # warned as a fragment never included
        _collect(fragment.steps, extracts, file.path)
    for steps in blocks(file)[len(file.fragments):]:
        _collect(steps, extracts, file.path)
    if file.custom_steps:
        return []
    return [Diagnostic(step.location, f"'{step.name}' is extracted but never used in this file",
                       WARNING, UNUSED_VARIABLE)
            for step in extracts.values() if step.name not in used]


def _collect(steps, extracts: dict, path: str) -> None:
    for step in walk_steps(steps):
        if isinstance(step, ExtractStep) and step.location.file == path:
            loc = step.location
            extracts.setdefault((loc.line, loc.column), step)
