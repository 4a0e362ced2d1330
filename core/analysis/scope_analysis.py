"""Static scope analysis (semantics.md §3, issue #14 §1): for every `{{NAME}}` of a file, whether
NAME is always, sometimes or never visible there, decided from the syntax tree alone (no HTTP),
and the warnings `check`, the TUI and the language server show before anything runs.

Public interface: `analyze(file, overrides, run_variables) -> Analysis`; `visible_at(file, line,
...)` for completion; `Reference`; the visibility values ALWAYS / SOMETIMES / NEVER and the
warning codes below. The work is in analysis_walk.py (the walk), analysis_report.py (references
and warnings from it) and analysis_checks.py (the warnings that need no walk).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from scenario_core.language.errors import Diagnostic
from scenario_core.analysis.walk import ALWAYS, NEVER, SOMETIMES
from scenario_core.language.nodes import ScenarioFileNode, SourceLocation
from scenario_core.parameters.resolution import RunOverrides

# Warning codes (Diagnostic.code), stable for tools: `check --format json|github`, the LSP.
NEVER_VISIBLE = "never-visible"  # a {{NAME}} no run can resolve at that point
NO_RESPONSE = "no-response"  # then:/extract:/assert/if that needs a response, with no request before it
NO_BASE_URL = "no-base-url"  # a relative path where no level sets baseUrl
DUPLICATE_SCENARIO = "duplicate-scenario"  # two scenarios of one name in a feature (or standalone)
UNUSED_FRAGMENT = "unused-fragment"  # one of the file's own fragments that nothing includes
UNUSED_VARIABLE = "unused-variable"  # a name extracted and read nowhere in the file
CODES = (NEVER_VISIBLE, NO_RESPONSE, NO_BASE_URL, DUPLICATE_SCENARIO, UNUSED_FRAGMENT, UNUSED_VARIABLE)

__all__ = ["ALWAYS", "SOMETIMES", "NEVER", "CODES", "Reference", "Analysis", "analyze", "visible_at",
           "NEVER_VISIBLE", "NO_RESPONSE", "NO_BASE_URL", "DUPLICATE_SCENARIO", "UNUSED_FRAGMENT", "UNUSED_VARIABLE"]


@dataclass(frozen=True, slots=True)
class Reference:
    """One `{{NAME}}` of the file. A reference inside a fragment (or an outline) is analysed once
    for every place it runs; its visibility is the merge of them (always in all -> ALWAYS, never
    in any -> NEVER, else SOMETIMES)."""

    name: str
    location: SourceLocation  # the span of NAME itself, inside `{{ }}`
    visibility: str  # ALWAYS | SOMETIMES | NEVER
    writers: tuple[SourceLocation, ...]  # the extract steps (or bindings) that write NAME and reach here
    explanation: str  # one line: where it comes from, or why it is not visible here
    step: SourceLocation | None = None  # the step that holds the reference


@dataclass(slots=True)
class Analysis:
    references: list[Reference] = field(default_factory=list)  # in file order
    diagnostics: list[Diagnostic] = field(default_factory=list)  # warnings, in file order
    # the node each warning is about: the step holding a reference (a header or body line below
    # it), the include that brings a fragment file's step, the scenario, the fragment
    anchors: dict[Diagnostic, SourceLocation] = field(default_factory=dict)

    def at_line(self, line: int) -> list[Diagnostic]:
        """The warnings of the node that starts on `line` (a step's tree mark, its inspector), and
        those written on that line."""
        return [d for d in self.diagnostics
                if d.location.line == line or self.anchors.get(d, d.location).line == line]

    def reference_at(self, line: int, column: int) -> Reference | None:
        """The reference whose `{{NAME}}` covers (line, column), 1-based: for hover and go-to."""
        for ref in self.references:
            loc = ref.location
            if loc.line == line and loc.column - 2 <= column <= loc.end_column + 2:
                return ref
        return None


def analyze(file: ScenarioFileNode, overrides: RunOverrides | None = None,
            run_variables: Iterable[str] = ()) -> Analysis:
    """Every reference's visibility and every warning of a valid file (see the module doc).
    `run_variables`: the names given with --var / --variables-file (always visible).
    Reads nothing but what resolving parameters reads (an OpenAPI description the file names,
    for its baseUrl); sends nothing."""
    import gc

    from scenario_core.analysis.report import Report

    # The analysis makes tens of thousands of small objects and no cycles; with a large tree
    # alive, the collector's passes over it cost as much as the analysis itself.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return Report(file, overrides or RunOverrides(), run_variables).analysis()
    finally:
        if collecting:
            gc.enable()


def visible_at(file: ScenarioFileNode, line: int, overrides: RunOverrides | None = None,
               run_variables: Iterable[str] = ()) -> dict[str, str]:
    """The names a `{{` written at `line` could read -> ALWAYS or SOMETIMES (for completion):
    what is visible before the step that starts on `line`, or after the last step above it.
    A step that runs in several places (a fragment, an outline) gives what all of them see,
    ALWAYS only where every place has it."""
    from scenario_core.analysis.checks import file_index
    from scenario_core.analysis.report import Report
    from scenario_core.analysis.walk import Walk, blocks
    from scenario_core.language.nodes import walk_steps

    best = None
    for steps in blocks(file):
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
