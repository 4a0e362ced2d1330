"""What the static scope analysis finds: the warning codes, a `Reference` (one `{{NAME}}` and its
visibility) and the `Analysis` of a file. Shared by the walk, the report and the checks."""

from __future__ import annotations

from dataclasses import dataclass, field

from scenario_core.language.errors import Diagnostic
from scenario_core.language.nodes.base import SourceLocation

# Warning codes (Diagnostic.code), stable for tools: `check --format json|github`, the LSP.
NEVER_VISIBLE = "never-visible"  # a {{NAME}} no run can resolve at that point
NO_RESPONSE = "no-response"  # then:/extract:/assert/if that needs a response, with no request before it
NO_BASE_URL = "no-base-url"  # a relative path where no level sets baseUrl
DUPLICATE_SCENARIO = "duplicate-scenario"  # two scenarios of one name in a feature (or standalone)
UNUSED_FRAGMENT = "unused-fragment"  # one of the file's own fragments that nothing includes
UNUSED_VARIABLE = "unused-variable"  # a name extracted and read nowhere in the file
# A user parameter nothing reads as {{param.KEY}}: reported by `check --strict` only (a BerryCrush
# file's user keys are often read by its Kotlin code, which check cannot see).
UNREAD_USER_PARAMETER = "unread-user-parameter"
UNSET_AUTO_TEST_NAME = "unset-auto-test-name"  # an if/assert reads test.X its call's auto: kinds never set
CODES = (
    NEVER_VISIBLE,
    NO_RESPONSE,
    NO_BASE_URL,
    DUPLICATE_SCENARIO,
    UNUSED_FRAGMENT,
    UNUSED_VARIABLE,
    UNREAD_USER_PARAMETER,
    UNSET_AUTO_TEST_NAME,
)


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
        return [d for d in self.diagnostics if d.location.line == line or self.anchors.get(d, d.location).line == line]

    def reference_at(self, line: int, column: int) -> Reference | None:
        """The reference whose `{{NAME}}` covers (line, column), 1-based: for hover and go-to."""
        for ref in self.references:
            loc = ref.location
            if loc.line == line and loc.column - 2 <= column <= loc.end_column + 2:
                return ref
        return None
