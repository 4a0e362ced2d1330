"""Static scope analysis (docs/spec/scopes.md): for every `{{NAME}}` of a file, whether
NAME is always, sometimes or never visible there, decided from the syntax tree alone (no HTTP),
and the warnings `check`, the TUI and the language server show before anything runs.

Public interface: `analyze(file, overrides, run_variables) -> Analysis`; `visible_at(file, line,
...)` for completion; `Reference`; the visibility values ALWAYS / SOMETIMES / NEVER and the
warning codes (model.py). The work is in walk.py (the walk), report.py (references and
warnings from it) and checks.py (the warnings that need no walk).
"""

from __future__ import annotations

from typing import Iterable

from scenario_core.analysis.model import (  # noqa: F401 (the public interface)
    CODES,
    DUPLICATE_SCENARIO,
    NEVER_VISIBLE,
    NO_BASE_URL,
    NO_RESPONSE,
    UNUSED_FRAGMENT,
    UNUSED_VARIABLE,
    Analysis,
    Reference,
)
from scenario_core.analysis.walk import ALWAYS, NEVER, SOMETIMES
from scenario_core.language.nodes.blocks import ScenarioFileNode
from scenario_core.parameters.resolution import RunOverrides

__all__ = [
    "ALWAYS",
    "SOMETIMES",
    "NEVER",
    "CODES",
    "Reference",
    "Analysis",
    "analyze",
    "visible_at",
    "NEVER_VISIBLE",
    "NO_RESPONSE",
    "NO_BASE_URL",
    "DUPLICATE_SCENARIO",
    "UNUSED_FRAGMENT",
    "UNUSED_VARIABLE",
]


def analyze(
    file: ScenarioFileNode, overrides: RunOverrides | None = None, run_variables: Iterable[str] = ()
) -> Analysis:
    """Every reference's visibility and every warning of a valid file (see the module doc).
    `run_variables`: the names given with --var / --variables-file (always visible).
    Reads nothing but what resolving parameters reads (an OpenAPI description the file names,
    for its baseUrl); sends nothing."""
    from scenario_core.analysis.report import Report

    return Report(file, overrides or RunOverrides(), run_variables).analysis()


def visible_at(
    file: ScenarioFileNode, line: int, overrides: RunOverrides | None = None, run_variables: Iterable[str] = ()
) -> dict[str, str]:
    """The names a `{{` written at `line` could read -> ALWAYS or SOMETIMES (for completion):
    what is visible before the step that starts on `line`, or after the last step above it.
    A step that runs in several places (a fragment, an outline) gives what all of them see,
    ALWAYS only where every place has it."""
    from scenario_core.analysis.checks import file_index
    from scenario_core.analysis.report import Report
    from scenario_core.analysis.walk import Walk
    from scenario_core.language.nodes.walk import step_blocks, walk_steps

    best = None
    for steps in step_blocks(file):
        for step in walk_steps(steps):
            loc = step.location
            if loc.file == file.path and loc.line <= line and (best is None or loc.line > best.line):
                best = loc
    if best is None:
        return {name: ALWAYS for name in run_variables}
    report = Report(file, overrides or RunOverrides(), run_variables)
    webhooks, _, _ = file_index(file)
    walk = Walk(file, report.run_variables, report.store_of, lambda seen: None, webhooks)
    walk.probe = (best, best.line < line)
    walk.run()
    merged: dict[str, str] = {}
    for found in walk.captured:
        for name, status in found.items():
            merged[name] = status if merged.get(name, status) == status else SOMETIMES
    for name in merged:  # a name some places lack is only sometimes there
        if any(name not in found for found in walk.captured):
            merged[name] = SOMETIMES
    return dict(sorted(merged.items()))
