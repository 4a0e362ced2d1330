"""Walking the syntax tree: the simple conditions inside a condition, every step of a block
(nested ones included), every step block of a file, and the fragments its blocks include."""

from __future__ import annotations

from typing import Iterable, Iterator

from scenario_core.language.nodes.assertions import AllOf, AnyOf, Assertion, NotAssertion
from scenario_core.language.nodes.blocks import FeatureNode, ScenarioFileNode
from scenario_core.language.nodes.steps import ConditionalStep, DescribedStep, IncludeStep, Step


def leaf_conditions(condition: Assertion) -> Iterable[Assertion]:
    """The simple conditions inside a condition, in source order: what `not`, `and` and `or`
    (NotAssertion, AllOf, AnyOf) combine, at any depth; a simple condition is its own leaf."""
    if not isinstance(condition, (NotAssertion, AllOf, AnyOf)):
        return (condition,)  # the usual case: no generator to make
    return _leaves(condition)


def _leaves(condition: Assertion) -> Iterator[Assertion]:
    pending: list[Assertion] = [condition]
    while pending:
        node = pending.pop()
        if isinstance(node, NotAssertion):
            pending.append(node.condition)
        elif isinstance(node, (AllOf, AnyOf)):
            pending.extend(reversed(node.conditions))
        else:
            yield node


def walk_steps(steps: tuple[Step, ...]) -> Iterator[Step]:
    """Every step of a block, nested ones included (a described step's directives, the steps of
    each branch of a conditional), in source order; includes are not expanded. Most blocks nest
    nothing: they are iterated as they are, a third faster than through the walk (a check of
    50,000 lines walks the whole file seven times)."""
    for step in steps:
        if isinstance(step, _NESTING):
            return _nested_steps(steps)
    return iter(steps)


_NESTING = (DescribedStep, ConditionalStep)


def _nested_steps(steps: tuple[Step, ...]) -> Iterator[Step]:
    pending = list(reversed(steps))
    while pending:
        step = pending.pop()
        yield step
        if isinstance(step, DescribedStep):
            pending.extend(reversed(step.steps))
        elif isinstance(step, ConditionalStep):
            for branch in reversed(step.branches):
                pending.extend(reversed(branch.steps))


def step_blocks(file: ScenarioFileNode) -> list[tuple[Step, ...]]:
    """The step blocks of a file: fragments, backgrounds, scenarios (each outline's steps once)."""
    found = [f.steps for f in file.fragments]
    found += [file.background.steps] if file.background is not None else []
    seen: set[int] = set()
    for item in file.items:
        scenarios = item.scenarios if isinstance(item, FeatureNode) else (item,)
        if isinstance(item, FeatureNode) and item.background is not None:
            found.append(item.background.steps)
        for scenario in scenarios:
            if id(scenario.steps) not in seen:  # an outline's rows share their steps
                seen.add(id(scenario.steps))
                found.append(scenario.steps)
    return found


def included_fragments(file: "ScenarioFileNode") -> set[str]:
    """Names of the fragments this file's own blocks include, directly or through others."""
    blocks = [f.steps for f in file.fragments if f.location.file == file.path]
    blocks += [file.background.steps] if file.background is not None else []
    for item in file.items:
        if isinstance(item, FeatureNode):
            blocks += [item.background.steps] if item.background is not None else []
            blocks += [s.steps for s in item.scenarios]
        else:
            blocks.append(item.steps)
    pending = [s.fragment for steps in blocks for s in walk_steps(steps) if isinstance(s, IncludeStep)]
    used: set[str] = set()
    while pending:
        name = pending.pop()
        if name not in used:
            used.add(name)
            fragment = file.fragment(name)
            if fragment is not None:
                pending += [s.fragment for s in walk_steps(fragment.steps) if isinstance(s, IncludeStep)]
    return used
