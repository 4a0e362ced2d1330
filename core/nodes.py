"""The syntax tree of a `.scenario` file: frozen dataclasses, every node located in its source.

Values that steps send or compare are kept as templates (segments of text and `{{NAME}}`
references) so the executor only substitutes; nothing is re-parsed at run time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union


@dataclass(frozen=True, slots=True)
class SourceLocation:
    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class Node:
    """Base of every syntax-tree node. Subclasses declare `location` as their last field."""

    __slots__ = ()
    location: SourceLocation

    @property
    def line(self) -> int:
        return self.location.line


# ---------------------------------------------------------------- templates


@dataclass(frozen=True, slots=True)
class VariableRef(Node):
    """A `{{NAME}}` reference. `in_string` tells, in JSON text, whether it stands inside a string
    (substituted by its text form) or bare (substituted by its JSON form, keeping its type)."""

    name: str
    in_string: bool
    location: SourceLocation


Segment = Union[str, VariableRef]


@dataclass(frozen=True, slots=True)
class TextTemplate(Node):
    """Text with `{{NAME}}` references: a path, a header or query value."""

    text: str
    segments: tuple[Segment, ...]
    location: SourceLocation

    @property
    def refs(self) -> tuple[VariableRef, ...]:
        return tuple(s for s in self.segments if isinstance(s, VariableRef))


@dataclass(frozen=True, slots=True)
class JsonTemplate(Node):
    """JSON text with `{{NAME}}` references: a request body or an assertion's expected value.
    `constant` holds the parsed value when there are no references."""

    text: str
    segments: tuple[Segment, ...]
    constant: Any
    location: SourceLocation

    @property
    def refs(self) -> tuple[VariableRef, ...]:
        return tuple(s for s in self.segments if isinstance(s, VariableRef))


# ---------------------------------------------------------------- parameters


@dataclass(frozen=True, slots=True)
class ParameterEntry(Node):
    """`key: value` in a parameters block; `value` is typed (bool, int, str) after validation."""

    key: str
    value: Any
    raw: str
    location: SourceLocation


@dataclass(frozen=True, slots=True)
class ParametersNode(Node):
    entries: tuple[ParameterEntry, ...]
    location: SourceLocation

    def get(self, key: str) -> ParameterEntry | None:
        for entry in self.entries:
            if entry.key == key:
                return entry
        return None


# ---------------------------------------------------------------- steps


@dataclass(frozen=True, slots=True)
class HeaderEntry(Node):
    name: str
    value: TextTemplate
    location: SourceLocation


@dataclass(frozen=True, slots=True)
class QueryEntry(Node):
    name: str
    value: TextTemplate
    location: SourceLocation


@dataclass(frozen=True, slots=True)
class OperationRef(Node):
    """`^getPetById`, optionally `using auth`: an operation of an OpenAPI description."""

    operation_id: str
    using: str | None
    location: SourceLocation

    @property
    def text(self) -> str:
        return f"using {self.using} ^{self.operation_id}" if self.using else f"^{self.operation_id}"


@dataclass(frozen=True, slots=True)
class CallParameter(Node):
    """`petId: 1` under an operation call: placed where the operation declares `petId` (path,
    query, header, cookie); `query_X` / `header_X` force the place. The value keeps its JSON type."""

    name: str
    value: JsonTemplate
    location: SourceLocation


@dataclass(frozen=True, slots=True)
class RequestStep(Node):
    """One request, in either dialect: `when: METHOD path` (method and url), or an operation call
    (`when: ^op`, BerryCrush's `call ^op`) whose method and path come from its description. Both
    may have `headers:`, `query:` and a body: JSON (`body:`), structured (`body:` over indented
    `name: value` lines, merged over the operation's schema defaults), or a file (`bodyFile:`)."""

    method: str | None
    url: TextTemplate | None
    headers: tuple[HeaderEntry, ...]
    query: tuple[QueryEntry, ...]
    body: JsonTemplate | None
    location: SourceLocation
    operation: OperationRef | None = None
    parameters: tuple[CallParameter, ...] = ()
    body_structured: bool = False  # body came from name: value lines (an object)
    body_file: TextTemplate | None = None
    keyword: str = field(default="when", init=False)

    @property
    def text(self) -> str:
        if self.operation is not None:
            return self.operation.text
        return f"{self.method} {self.url.text}"


# Assertion operators. `exists` / `not exists` take no operand.
COMPARISONS = ("==", "!=", "<=", ">=", "<", ">")
OPERATORS = COMPARISONS + ("contains", "not contains", "matches", "exists", "not exists")


@dataclass(frozen=True, slots=True)
class StatusAssertion(Node):
    """`status 201` (code) or `status 2xx` (class: 2)."""

    code: int | None
    klass: int | None
    location: SourceLocation


@dataclass(frozen=True, slots=True)
class JsonPathAssertion(Node):
    """`$.name == "Rex"`, `$.tags contains "a"`, `$.id exists`, ..."""

    path: str
    compiled: Any = field(compare=False, repr=False)
    operator: str
    expected: JsonTemplate | None
    location: SourceLocation


@dataclass(frozen=True, slots=True)
class HeaderAssertion(Node):
    """`header Content-Type contains "json"`; header names compare case-insensitively."""

    name: str
    operator: str
    expected: JsonTemplate | None
    location: SourceLocation


@dataclass(frozen=True, slots=True)
class BodyAssertion(Node):
    """`body contains "text"` / `body matches "re"` on the raw response text."""

    operator: str
    expected: JsonTemplate
    location: SourceLocation


@dataclass(frozen=True, slots=True)
class SchemaAssertion(Node):
    """`then: schema`: the last response matches the response schema its operation declares
    for its status and Content-Type."""

    location: SourceLocation


@dataclass(frozen=True, slots=True)
class TimeAssertion(Node):
    """`time < 500ms`: the response time, in milliseconds."""

    operator: str
    milliseconds: float
    location: SourceLocation


Assertion = Union[StatusAssertion, JsonPathAssertion, HeaderAssertion, BodyAssertion, TimeAssertion,
                  SchemaAssertion]


@dataclass(frozen=True, slots=True)
class AssertStep(Node):
    """`then: ASSERTION` on the last response."""

    text: str
    assertion: Assertion
    location: SourceLocation
    keyword: str = field(default="then", init=False)


@dataclass(frozen=True, slots=True)
class ExtractStep(Node):
    """`extract: NAME from $.json.path` or `extract: NAME from header Header-Name`."""

    name: str
    source: str  # "body" or "header"
    path: str  # the JSON path, or the header name
    compiled: Any = field(compare=False, repr=False)  # compiled JSON path; None for headers
    location: SourceLocation
    keyword: str = field(default="extract", init=False)

    @property
    def text(self) -> str:
        where = f"header {self.path}" if self.source == "header" else self.path
        return f"{self.name} from {where}"


@dataclass(frozen=True, slots=True)
class IncludeStep(Node):
    """`include: FRAGMENT`: the fragment's steps, as if written here."""

    fragment: str
    location: SourceLocation
    keyword: str = field(default="include", init=False)

    @property
    def text(self) -> str:
        return self.fragment


Step = Union[RequestStep, AssertStep, ExtractStep, IncludeStep]

# Limits of what includes may expand to, checked by `check` (builder.py) with a located error,
# so the executor never meets a file past them: includes nested deeper than this ...
MAX_INCLUDE_DEPTH = 32
# ... or a block (scenario, background, fragment) expanding to more steps than this.
MAX_PLANNED_STEPS = 10_000


# ---------------------------------------------------------------- blocks


@dataclass(frozen=True, slots=True)
class BackgroundNode(Node):
    steps: tuple[Step, ...]
    location: SourceLocation


@dataclass(frozen=True, slots=True)
class FragmentNode(Node):
    name: str
    steps: tuple[Step, ...]
    location: SourceLocation


@dataclass(frozen=True, slots=True)
class ScenarioNode(Node):
    name: str
    tags: frozenset[str]
    steps: tuple[Step, ...]
    location: SourceLocation


@dataclass(frozen=True, slots=True)
class FeatureNode(Node):
    name: str
    description: str | None
    background: BackgroundNode | None
    scenarios: tuple[ScenarioNode, ...]
    tags: frozenset[str]
    parameters: ParametersNode | None
    location: SourceLocation


@dataclass(frozen=True, slots=True)
class ScenarioFileNode(Node):
    scenarios: tuple[ScenarioNode, ...]  # standalone scenarios
    fragments: tuple[FragmentNode, ...]
    features: tuple[FeatureNode, ...]
    parameters: ParametersNode | None
    background: BackgroundNode | None  # the file-level background
    items: tuple[FeatureNode | ScenarioNode, ...]  # features and standalone scenarios in source order
    location: SourceLocation

    @property
    def path(self) -> str:
        return self.location.file

    def fragment(self, name: str) -> FragmentNode | None:
        for fragment in self.fragments:
            if fragment.name == name:
                return fragment
        return None
