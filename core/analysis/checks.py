"""The warnings of scope analysis that need no walk: duplicate scenario names, fragments never
included, variables extracted and read nowhere (scope_analysis.py has the codes)."""

from __future__ import annotations

from scenario_core.analysis.model import DUPLICATE_SCENARIO, UNREAD_USER_PARAMETER, UNUSED_FRAGMENT, UNUSED_VARIABLE
from scenario_core.analysis.walk import condition_refs, step_refs
from scenario_core.language.errors import WARNING, Diagnostic
from scenario_core.language.nodes.blocks import ScenarioFileNode, ScenarioNode
from scenario_core.language.nodes.steps import ConditionalStep, DescribedStep, ExtractStep, IncludeStep, WebhookStep
from scenario_core.language.nodes.walk import step_blocks, walk_steps


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
        (f"in feature '{f.name}'", f.scenarios) for f in file.features
    ]
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
                found.append(
                    Diagnostic(
                        location,
                        f"duplicate scenario name '{name}' {where}; the first is at line {first[name]}",
                        WARNING,
                        DUPLICATE_SCENARIO,
                    )
                )
            else:
                first[name] = line
    return found


def file_index(file: ScenarioFileNode) -> tuple[set[str], set[str], dict[str, list[str]]]:
    """One pass over the file's blocks: the names of its webhook: steps, the fragments that run
    (included by a background or scenario, or by a fragment that runs), and what each fragment
    includes."""
    webhooks: set[str] = set()
    includes: dict[str, list[str]] = {}  # fragment -> what it includes
    pending: list[str] = []
    for number, steps in enumerate(step_blocks(file)):  # the fragments' blocks come first
        found = includes.setdefault(file.fragments[number].name, []) if number < len(file.fragments) else pending
        for step in walk_steps(steps):
            if isinstance(step, IncludeStep):
                found.append(step.fragment)
            elif isinstance(step, WebhookStep):
                webhooks.add(step.name)
    reached: set[str] = set()
    while pending:
        name = pending.pop()
        if name not in reached:
            reached.add(name)
            pending += includes.get(name, ())
    return webhooks, reached, includes


def unused_fragments(file: ScenarioFileNode, reached: set[str], includes: dict[str, list[str]]) -> list[Diagnostic]:
    """The file's own fragments that never run (a .fragment file is shared by many files: not warned)."""
    found = []
    for fragment in file.fragments:
        if fragment.location.file != file.path or fragment.name in reached:
            continue
        by = sorted(name for name, included in includes.items() if name not in reached and fragment.name in included)
        message = f"fragment '{fragment.name}' is never included"
        if by:
            message += f" (only by {', '.join(repr(n) for n in by)}, never included either)"
        found.append(Diagnostic(fragment.location, message, WARNING, UNUSED_FRAGMENT))
    return found


def unused_variables(
    file: ScenarioFileNode, used: set[str], extracts: list[ExtractStep], reached: set[str]
) -> list[Diagnostic]:
    """Names an extract of this file writes (`extracts`: those the scenarios run) and no
    `{{NAME}}` of the file reads (`used`: what the runs read, to which the fragments that never
    run add theirs). Skipped when a custom step is there: its Python code may read any variable."""
    if file.custom_steps or (file.custom_steps is None and _has_custom(file)):
        return []
    for fragment in file.fragments:
        if fragment.name not in reached:
            for step in walk_steps(fragment.steps):
                used.update(r.name for r in step_refs(step))
                if isinstance(step, ConditionalStep):
                    used.update(
                        r.name for b in step.branches if b.condition is not None for r in condition_refs(b.condition)
                    )
                elif isinstance(step, DescribedStep):
                    used.update(r.name for r in step.description.refs)
    found: dict[tuple[int, int], Diagnostic] = {}
    for step in extracts:
        loc = step.location
        if step.name not in used and loc.file == file.path and (loc.line, loc.column) not in found:
            found[(loc.line, loc.column)] = Diagnostic(
                loc, f"'{step.name}' is extracted but never used in this file", WARNING, UNUSED_VARIABLE
            )
    return list(found.values())


def _has_custom(file: ScenarioFileNode) -> bool:
    return any(isinstance(s, DescribedStep) and s.custom for steps in step_blocks(file) for s in walk_steps(steps))


def unread_user_parameters(file: ScenarioFileNode) -> list[Diagnostic]:
    """User parameters (docs/spec/parameters.md#user-parameters) that nothing in the file reads as {{param.KEY}}:
    `check --strict` reports them, since a typo far from every known key is taken for one."""
    return [
        Diagnostic(
            location,
            f"user parameter '{key}' is read nowhere in this file as {{{{param.{key}}}}}",
            WARNING,
            UNREAD_USER_PARAMETER,
        )
        for key, location in file.unread_user_keys
    ]
