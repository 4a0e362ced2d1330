"""What a scenario runs: its plan (the file background, the feature's background, its own steps,
`include:` expanded in place, a described step's directives in its place) and the `{{NAME}}`
references each step reads. Pure functions over the syntax tree: nothing here sends or awaits,
so a caller that only needs the plan (static analysis) does not load the executor."""

from __future__ import annotations

from typing import Sequence

from scenario_core.language.nodes.blocks import FeatureNode, ScenarioFileNode, ScenarioNode
from scenario_core.language.nodes.steps import (
    FINALLY,
    PLAIN_STEPS,
    AssertStep,
    DescribedStep,
    FailStep,
    IncludeStep,
    RequestStep,
    Step,
)
from scenario_core.run.assertions import assertion_refs
from scenario_core.run.events import BACKGROUND_FEATURE, BACKGROUND_FILE, SCENARIO, PlannedStep
from scenario_core.support.records import replace

# (name, where) for each `{{NAME}}` a step reads; `where` is how a message names the place.
StepRefs = tuple[tuple[str, str], ...]


def plan_scenario(
    file: ScenarioFileNode, feature: FeatureNode | None, scenario: ScenarioNode
) -> tuple[PlannedStep, ...]:
    """Every step a scenario runs, in order: the file background, the feature's background, then
    its own steps, with `include:` expanded in place (recursively) and a described step's
    directives in its place (each a step of the plan, its `parent` the described step). An include
    with arguments is a step of its own (it binds them); they are restored after its last step.
    So is an include of a fragment whose .fragment file does not parse (it fails, naming why).
    The directives of a `finally:` block (the scenario's last step) are marked `cleanup`."""
    planned: list[PlannedStep] = []

    def add(
        steps: Sequence[Step],
        phase: str,
        via: tuple[IncludeStep, ...],
        parent: DescribedStep | None,
        cleanup: bool = False,
    ) -> None:
        for step in steps:
            if type(step) in PLAIN_STEPS:  # the usual step: neither expanded nor a clean-up of its own
                planned.append(PlannedStep(step, phase, via, len(planned), parent, (), cleanup))
            elif isinstance(step, IncludeStep):
                fragment = file.fragment(step.fragment)
                # check has refused cycles and anything past MAX_INCLUDE_DEPTH / MAX_PLANNED_STEPS
                # (builder.py), so the expansion is complete: nothing is ever dropped here.
                if step.arguments or (fragment is not None and fragment.problem is not None):
                    planned.append(PlannedStep(step, phase, via, len(planned), parent, cleanup=cleanup))
                first = len(planned)
                if fragment is not None:
                    add(fragment.steps, phase, via + (step,), None, cleanup)
                if step.arguments:
                    last = planned[-1] if len(planned) > first else planned[first - 1]
                    planned[last.index] = replace(last, unbind=last.unbind + (step,))
            elif isinstance(step, DescribedStep) and step.steps:
                add(step.steps, phase, via, step, cleanup or step.keyword == FINALLY)
            else:
                # (every field by position: a plan is made of thousands of these)
                planned.append(PlannedStep(step, phase, via, len(planned), parent, (), cleanup or _is_cleanup(step)))

    if file.background is not None:
        add(file.background.steps, BACKGROUND_FILE, (), None)
    if feature is not None and feature.background is not None:
        add(feature.background.steps, BACKGROUND_FEATURE, (), None)
    add(scenario.steps, SCENARIO, (), None)
    return tuple(planned)


def _is_cleanup(step: Step) -> bool:
    """A `finally:` block without directives: a custom step, run as a clean-up step."""
    return isinstance(step, DescribedStep) and step.keyword == FINALLY


def step_refs(step: Step) -> StepRefs:
    """(name, where) for every `{{NAME}}` a step uses; `where` is how the message names the place."""
    if isinstance(step, RequestStep):
        return _request_refs(step)
    refs: list[tuple[str, str]] = []
    if isinstance(step, AssertStep):
        refs += [(r.name, step.text) for r in assertion_refs(step.assertion)]
    elif isinstance(step, FailStep):
        refs += [(r.name, f"fail {step.text}") for r in step.message.refs]
    elif isinstance(step, IncludeStep):
        for argument in step.arguments:
            refs += [(r.name, f"{argument.name} of include {step.fragment}") for r in argument.value.refs]
            if argument.name_template is not None:
                refs += [(r.name, f"{argument.name} of include {step.fragment}") for r in argument.name_template.refs]
    elif isinstance(step, DescribedStep):  # a custom step matches its description as rendered
        refs += [(r.name, f"'{step.text}'") for r in step.description.refs]
    return tuple(refs)


def _request_refs(step: RequestStep) -> StepRefs:
    text = step.text
    refs = [(r.name, text) for r in step.url.refs] if step.url is not None else []
    if step.operation is not None or step.raw is not None:
        for template in step.name_templates:
            refs += [(r.name, text) for r in template.refs]
    for parameter in step.parameters:
        refs += [(r.name, f"{parameter.name} of {text}") for r in parameter.value.refs]
        if parameter.name_template is not None:
            refs += [(r.name, f"{parameter.name} of {text}") for r in parameter.name_template.refs]
    if step.body_file is not None:
        refs += [(r.name, f"the bodyFile of {text}") for r in step.body_file.refs]
    for header in step.headers:
        refs += [(r.name, f"header {header.name} of {text}") for r in header.value.refs]
    for entry in step.query:
        refs += [(r.name, f"query {entry.name} of {text}") for r in entry.value.refs]
    if step.body is not None:
        refs += [(r.name, f"the body of {text}") for r in step.body.refs]
    if step.body_raw is not None:
        refs += [(r.name, f"the body of {text}") for r in step.body_raw.refs]
    if step.form is not None or step.multipart is not None:
        for field in (step.form or ()) + (step.multipart or ()):
            refs += [(r.name, f"{field.name} of {text}") for r in field.value.refs]
    return tuple(refs)
