"""`check --coverage`: the operations no scenario calls, from the syntax tree alone (nothing is
sent). Every request step a scenario plans -- backgrounds, includes, a described step's directives,
both branches of every `if` -- counts as a call: an `^op` call by its reference, a
`when: METHOD path` request by method and path template (a `{{name}}` in the path stands for one
path segment); a call with `auto:` tests counts apart, as in a run. Responses, parameters and bodies are left at zero: only a run sees them."""

from __future__ import annotations

import re
from typing import Iterable, Sequence

from scenario_core.language.nodes.blocks import ScenarioFileNode
from scenario_core.language.nodes.steps import ConditionalStep, RequestStep, Step
from scenario_core.parameters.descriptions import SHARED
from scenario_core.parameters.resolution import RunOverrides, resolve_parameters
from scenario_core.report.coverage import Coverage
from scenario_core.report.coverage_collector import ContextKey, OperationsInForce, context_key
from scenario_core.run.plan import plan_scenario

TEMPLATE_REFERENCE = re.compile(r"\{\{[^}]*\}\}")


def _requests(steps: Iterable[Step]) -> Iterable[RequestStep]:
    for step in steps:
        if isinstance(step, RequestStep):
            yield step
        elif isinstance(step, ConditionalStep):
            for branch in step.branches:
                yield from _requests(branch.steps)


def static_coverage(files: Sequence[ScenarioFileNode], overrides: RunOverrides | None = None) -> Coverage:
    """The operations of every description in force, each `called` as many times as request
    steps call it. A scenario whose parameters or descriptions cannot be read adds nothing
    (`check` reports that problem itself)."""
    coverage = Coverage()
    contexts: dict[ContextKey, OperationsInForce | None] = {}
    for file in files:
        for feature, scenario in [(None, s) for s in file.scenarios] + [
            (f, s) for f in file.features for s in f.scenarios
        ]:
            try:
                params = resolve_parameters(file, feature, overrides, scenario)
                key = context_key(params, file.path)
                if key not in contexts:
                    contexts[key] = OperationsInForce(coverage, params, file.path, SHARED)
            except Exception:  # an unreadable description or parameter: check says so elsewhere
                continue
            context = contexts[key]
            if context is None:
                continue
            planned = (p.step for p in plan_scenario(file, feature, scenario))
            for step in _requests(planned):
                if step.operation is not None:
                    found = context.called(step, step.operation)
                elif step.url is not None and step.method:
                    written = TEMPLATE_REFERENCE.sub("x", step.url.text)
                    found = context.requested(step.method.upper(), written, relative="://" not in written)
                else:
                    found = None
                if found is not None and step.auto:  # generated requests only, as a run counts them
                    found[1].auto += 1
                elif found is not None:
                    found[1].called += 1
    return coverage
