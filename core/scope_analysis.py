"""Static scope analysis (semantics.md §3, issue #14 §1): for every `{{NAME}}` of a file, whether
NAME is always, sometimes or never visible there, decided from the syntax tree alone (no HTTP),
and the warnings `check`, the TUI and the language server show before anything runs.

Public interface: `analyze(file, overrides, run_variables) -> Analysis`; `Reference`; the
visibility values ALWAYS / SOMETIMES / NEVER and the warning codes below.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from .errors import Diagnostic
from .analysis_walk import ALWAYS, NEVER, SOMETIMES  # noqa: F401 (re-exported)
from .nodes import ScenarioFileNode, SourceLocation
from .resolution import RunOverrides

# Warning codes (Diagnostic.code), stable for tools: `check --format json|github`, the LSP.
NEVER_VISIBLE = "never-visible"  # a {{NAME}} no run can resolve at that point
NO_RESPONSE = "no-response"  # then:/extract:/assert/if that needs a response, with no request before it
NO_BASE_URL = "no-base-url"  # a relative path where no level sets baseUrl
DUPLICATE_SCENARIO = "duplicate-scenario"  # two scenarios of one name in a feature (or standalone)
UNUSED_FRAGMENT = "unused-fragment"  # one of the file's own fragments that nothing includes
UNUSED_VARIABLE = "unused-variable"  # a name extracted and read nowhere in the file
CODES = (NEVER_VISIBLE, NO_RESPONSE, NO_BASE_URL, DUPLICATE_SCENARIO, UNUSED_FRAGMENT, UNUSED_VARIABLE)


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
    references: list[Reference] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)  # warnings, in file order

    def at_line(self, line: int) -> list[Diagnostic]:
        """The warnings on one line (a step's tree mark, its inspector)."""
        return [d for d in self.diagnostics if d.location.line == line]

    def within(self, location: SourceLocation) -> list[Diagnostic]:
        """The warnings inside a node's span (a step with its headers and body lines)."""
        return [d for d in self.diagnostics
                if d.location.file == location.file and location.line <= d.location.line <= location.end_line]

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
    from .analysis_report import Report

    return Report(file, overrides or RunOverrides(), run_variables).analysis()
