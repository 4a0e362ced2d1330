"""`include {{param.KEY}}` (newer BerryCrush): the fragment named by a parameter. Parameters are
fixed before a scenario runs (docs/spec/parameters.md#references-in-values), so each such include is resolved when the file
is built, per scenario, with the parameter blocks in force there: the scenario's (or outline's)
own, its feature's, the file's. The include then names that fragment, and everything after
(includes' checks, the plan, check's analysis, the editor) sees an ordinary include. A key
set nowhere, or whose value is not one word, is a located error."""

from __future__ import annotations

import re
from dataclasses import replace

from scenario_core.language.builder.context import BuildContext
from scenario_core.language.nodes.blocks import (
    BackgroundNode,
    FeatureNode,
    FragmentNode,
    ParametersNode,
    ScenarioNode,
)
from scenario_core.language.nodes.steps import ConditionalStep, DescribedStep, IncludeStep, Step
from scenario_core.language.nodes.walk import walk_steps

_PARAMETER = re.compile(r"\{\{\s*param\.([^{}\s]+)\s*\}\}")

Blocks = tuple[ParametersNode | None, ...]  # innermost first


def parameter_named(name: str) -> str | None:
    """KEY when a fragment name is written `{{param.KEY}}`."""
    match = _PARAMETER.fullmatch(name)
    return match.group(1) if match else None


def _has_parameter_includes(steps: tuple[Step, ...]) -> bool:
    return any(isinstance(s, IncludeStep) and s.parameter is not None for s in walk_steps(steps))


def _resolve(ctx: BuildContext, steps: tuple[Step, ...], blocks: Blocks, where: str) -> tuple[Step, ...]:
    """The steps with each `include {{param.KEY}}` naming its fragment (nested steps too)."""
    resolved: list[Step] = []
    for step in steps:
        if isinstance(step, IncludeStep) and step.parameter is not None:
            step = _named(ctx, step, blocks, where)
        elif isinstance(step, DescribedStep) and step.steps:
            step = replace(step, steps=_resolve(ctx, step.steps, blocks, where))
        elif isinstance(step, ConditionalStep):
            branches = tuple(replace(b, steps=_resolve(ctx, b.steps, blocks, where)) for b in step.branches)
            step = replace(step, branches=branches)
        resolved.append(step)
    return tuple(resolved)


def _named(ctx: BuildContext, step: IncludeStep, blocks: Blocks, where: str) -> IncludeStep:
    key = step.parameter
    assert key is not None
    entry = next((e for e in (b.get(key) for b in blocks if b is not None) if e is not None), None)
    if entry is None:
        ctx.error(
            step.location,
            f"include {{{{param.{key}}}}}: no parameter '{key}' is set for {where} "
            "(in its parameters:, its feature's or the file's)",
        )
        return step
    value = str(entry.value).strip()
    if not value or any(c.isspace() for c in value) or "{{" in value:
        ctx.error(
            step.location,
            f"include {{{{param.{key}}}}}: '{key}' is '{entry.raw}' (line {entry.line}), which is not a fragment name",
        )
        return step
    return replace(step, fragment=value)


def resolve_parameter_includes(
    ctx: BuildContext,
    items: list[FeatureNode | ScenarioNode],
    fragments: dict[str, FragmentNode],
    background: BackgroundNode | None,
    file_parameters: ParametersNode | None,
) -> tuple[list[FeatureNode | ScenarioNode], BackgroundNode | None]:
    """The file's blocks with every `include {{param.KEY}}` resolved where it stands. A
    fragment's own (it runs under any scenario) and a background's see the file's and the
    feature's blocks only."""

    def scenario(node: ScenarioNode, feature: ParametersNode | None) -> ScenarioNode:
        if not _has_parameter_includes(node.steps):
            return node
        blocks = (node.parameters, feature, file_parameters)
        return replace(node, steps=_resolve(ctx, node.steps, blocks, f"scenario '{node.name}'"))

    def block(node: BackgroundNode | None, blocks: Blocks, where: str) -> BackgroundNode | None:
        if node is None or not _has_parameter_includes(node.steps):
            return node
        return replace(node, steps=_resolve(ctx, node.steps, blocks, where))

    for name, fragment in list(fragments.items()):
        if fragment.location.file == ctx.filename and _has_parameter_includes(fragment.steps):
            steps = _resolve(ctx, fragment.steps, (file_parameters,), f"fragment '{name}' (the file's parameters)")
            fragments[name] = replace(fragment, steps=steps)
    resolved: list[FeatureNode | ScenarioNode] = []
    for item in items:
        if isinstance(item, FeatureNode):
            own = item.parameters
            item = replace(
                item,
                background=block(item.background, (own, file_parameters), f"feature '{item.name}''s background"),
                scenarios=tuple(scenario(s, own) for s in item.scenarios),
            )
        else:
            item = scenario(item, None)
        resolved.append(item)
    return resolved, block(background, (file_parameters,), "the file's background")
