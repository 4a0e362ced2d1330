"""Custom steps at check time: whether a file has any (so plugins must be loaded to check it), and
a diagnostic for each custom step or assertion no registered pattern matches, or several do."""

from __future__ import annotations

from typing import Iterator, Sequence, Union

from scenario_core.custom_steps.registry import Registry, ambiguous_message, no_match_message
from scenario_core.language.errors import Diagnostic
from scenario_core.language.nodes.assertions import CustomAssertion
from scenario_core.language.nodes.base import TextTemplate
from scenario_core.language.nodes.blocks import ScenarioFileNode
from scenario_core.language.nodes.steps import AssertStep, ConditionalStep, DescribedStep, Step
from scenario_core.language.nodes.walk import included_fragments, leaf_conditions
from scenario_core.language.typo_hints import assertion_typo, condition_typo

# What a registered pattern must match: a custom step (a DescribedStep without directives) or a
# custom assertion.
_Custom = Union[DescribedStep, CustomAssertion]


def _blocks(file: ScenarioFileNode) -> Iterator[Sequence[Step]]:
    if file.background is not None:
        yield file.background.steps
    for feature in file.features:
        if feature.background is not None:
            yield feature.background.steps
        for scenario in feature.scenarios:
            yield scenario.steps
    for scenario in file.scenarios:
        yield scenario.steps
    used = included_fragments(file)
    for fragment in file.fragments:  # a shared folder's fragment only where this file includes it
        if fragment.location.file == file.path or fragment.name in used:
            yield fragment.steps


def _custom_nodes(file: ScenarioFileNode) -> Iterator[_Custom]:
    """Every custom step (DescribedStep without directives) and custom assertion, in any block,
    inside described steps, conditional branches and composite conditions (not/and/or)."""
    for block in _blocks(file):
        yield from _custom_in(block)


def _custom_in(steps: Sequence[Step]) -> Iterator[_Custom]:
    for step in steps:
        if isinstance(step, DescribedStep):
            if step.custom:
                yield step
            else:
                yield from _custom_in(step.steps)
        elif isinstance(step, AssertStep):
            yield from (c for c in leaf_conditions(step.assertion) if isinstance(c, CustomAssertion))
        elif isinstance(step, ConditionalStep):
            for branch in step.branches:
                if branch.condition is not None:
                    yield from (c for c in leaf_conditions(branch.condition) if isinstance(c, CustomAssertion))
                yield from _custom_in(branch.steps)


def uses_custom_steps(file: ScenarioFileNode) -> bool:
    """Whether the file has a custom step or assertion (so plugins must be loaded to check it):
    the builder notes it while parsing, so this costs nothing on a large file."""
    noted = getattr(file, "custom_steps", None)
    return noted if noted is not None else next(_custom_nodes(file), None) is not None


def _text_of(node: _Custom) -> TextTemplate | str:
    if isinstance(node, DescribedStep):
        return node.description
    text = node.text
    return text if isinstance(text, (TextTemplate, str)) else str(text)


def custom_diagnostics(file: ScenarioFileNode, registry: Registry) -> list[Diagnostic]:
    """A custom step or assertion no registered pattern matches, or that several match (when
    its text has no references: with them, only the run knows the text)."""
    problems: list[Diagnostic] = []
    for node in _custom_nodes(file):
        kind = "step" if isinstance(node, DescribedStep) else "assertion"
        template = _text_of(node)
        text = template.text if isinstance(template, TextTemplate) else template
        location = template.location if isinstance(template, TextTemplate) else node.location
        candidates = registry.candidates(kind, template)
        if not candidates:
            problems.append(Diagnostic(location, _typo_message(node, text.strip(), registry)))
        elif len(candidates) > 1 and (isinstance(template, str) or not template.refs):
            problems.append(Diagnostic(location, ambiguous_message(kind, text.strip(), candidates)))
    return problems


def _typo_message(node: _Custom, text: str, registry: Registry) -> str:
    """Why nothing matches: a mistyped assertion word when the line reads with it corrected
    (`then: stauts 200`: did you mean `status`), else the custom-step hint."""
    if isinstance(node, DescribedStep):
        meant = assertion_typo(text) if node.keyword == "then" else None
        written = f"then: {meant}"
    else:
        meant = condition_typo(text)
        written = f"assert {meant}"
    if meant is None:
        return no_match_message("step" if isinstance(node, DescribedStep) else "assertion", text, registry)
    return f"unknown assertion '{text.split()[0]}'; did you mean '{meant.split()[0]}'? ({written})"
