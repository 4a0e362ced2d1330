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


# What `auto: [...]` under a call may name (berrycrush.md §3.6); auto_tests.py generates them.
AUTO_KINDS = ("invalid", "security", "multi")


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
    # BerryCrush's auto tests under a call (`auto: [invalid security]`, `excludes: [XSS]`).
    auto: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()
    keyword: str = "when"  # "call" for BerryCrush's directive
    body_raw: TextTemplate | None = None  # a `"""` block: sent as written, references rendered
    # `multiTestSequentialCount: 5` / `multiTestConcurrentCount: 2` under the call (auto: [multi])
    repeats: tuple[tuple[str, int], ...] = ()

    @property
    def text(self) -> str:
        if self.operation is not None:
            return self.operation.text
        return f"{self.method} {self.url.text}"


# Assertion operators. `exists` / `not exists` / `notEmpty` take no operand. Our `then:` writes
# the first row; BerryCrush's conditions (`assert`, `if`; conditions.py) use the words of the second
# (`equals` compares text forms too: 1 equals "1") and negate any of them as `not OP`.
COMPARISONS = ("==", "!=", "<=", ">=", "<", ">")
OPERATORS = COMPARISONS + (
    "contains",
    "not contains",
    "matches",
    "exists",
    "not exists",
    "hasSize",
    "startsWith",
    "endsWith",
    "notEmpty",
    "in",
)
CONDITION_OPERATORS = (
    "equals",
    "<=",
    ">=",
    "<",
    ">",
    "contains",
    "in",
    "matches",
    "startsWith",
    "endsWith",
    "hasSize",
    "exists",
    "notEmpty",
    "empty",
)


@dataclass(frozen=True, slots=True)
class StatusAssertion(Node):
    """`status 201` (code), `status 2xx` (class: 2), `status 201-204` (low, high: an inclusive
    range) or `status 20x` (pattern: each x any digit)."""

    code: int | None
    klass: int | None
    location: SourceLocation
    low: int | None = None
    high: int | None = None
    pattern: str | None = None

    @property
    def expectation(self) -> int | str:
        """What the assertion expects, as messages show it."""
        if self.code is not None:
            return self.code
        if self.klass is not None:
            return f"{self.klass}xx"
        if self.pattern is not None:
            return self.pattern
        return f"{self.low}-{self.high}"


@dataclass(frozen=True, slots=True)
class JsonPathAssertion(Node):
    """`$.name == "Rex"`, `$.tags contains "a"`, `$.id exists`, ...; `condition` when written as
    BerryCrush's condition: `matches` is then a whole-value match, JSON null does not exist, and a
    path that matched nothing reads as null for equals, exists, notEmpty and empty."""

    path: str
    compiled: Any = field(compare=False, repr=False)
    operator: str
    expected: JsonTemplate | None
    location: SourceLocation
    condition: bool = False


@dataclass(frozen=True, slots=True)
class HeaderAssertion(Node):
    """`header Content-Type contains "json"`; header names compare case-insensitively.
    `condition` as for JsonPathAssertion (an absent header reads as null)."""

    name: str
    operator: str
    expected: JsonTemplate | None
    location: SourceLocation
    condition: bool = False


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


@dataclass(frozen=True, slots=True)
class VariableAssertion(Node):
    """BerryCrush's `{{x}} OP V` (and, after `if`, `test.type equals invalid`): a variable's value
    under a condition operator; needs no response."""

    ref: VariableRef
    operator: str
    expected: JsonTemplate | None
    location: SourceLocation


@dataclass(frozen=True, slots=True)
class CustomAssertion(Node):
    """Any other text after `assert`: checked by a Python assertion registered for a pattern that
    matches it (the executor's)."""

    text: TextTemplate
    location: SourceLocation


@dataclass(frozen=True, slots=True)
class NotAssertion(Node):
    """`not COND` where COND has no operator to negate (status, schema, responseTime, custom).
    A condition that cannot be evaluated (no response, wrong types) fails negated too."""

    condition: Assertion
    text: str  # COND as written
    location: SourceLocation


@dataclass(frozen=True, slots=True)
class AllOf(Node):
    """`A and B and ...` after `if`: evaluated left to right, stopping at the first that fails."""

    conditions: tuple[Assertion, ...]
    location: SourceLocation


@dataclass(frozen=True, slots=True)
class AnyOf(Node):
    """`A or B or ...` after `if`: evaluated left to right, stopping at the first that holds."""

    conditions: tuple[Assertion, ...]
    location: SourceLocation


Assertion = Union[
    StatusAssertion,
    JsonPathAssertion,
    HeaderAssertion,
    BodyAssertion,
    TimeAssertion,
    SchemaAssertion,
    VariableAssertion,
    CustomAssertion,
    NotAssertion,
    AllOf,
    AnyOf,
]


@dataclass(frozen=True, slots=True)
class AssertStep(Node):
    """`then: ASSERTION` on the last response."""

    text: str
    assertion: Assertion
    location: SourceLocation
    keyword: str = "then"  # "assert" for BerryCrush's directive


@dataclass(frozen=True, slots=True)
class ExtractStep(Node):
    """`extract: NAME from $.json.path` or `extract: NAME from header Header-Name`."""

    name: str
    source: str  # "body" or "header"
    path: str  # the JSON path, or the header name
    compiled: Any = field(compare=False, repr=False)  # compiled JSON path; None for headers
    location: SourceLocation
    keyword: str = "extract"
    arrow: bool = False  # written BerryCrush's way: `extract $.id => petId`

    @property
    def text(self) -> str:
        if self.arrow:
            return f"{self.path} => {self.name}"
        where = f"header {self.path}" if self.source == "header" else self.path
        return f"{self.name} from {where}"


@dataclass(frozen=True, slots=True)
class IncludeStep(Node):
    """`include: FRAGMENT` (ours) or `include FRAGMENT` (BerryCrush's, optionally with indented
    `name: value` arguments): the fragment's steps, as if written here. Arguments are variables
    of the scenario layer while the fragment runs; names that existed before get their old
    values back afterwards."""

    fragment: str
    location: SourceLocation
    arguments: tuple[CallParameter, ...] = ()
    keyword: str = "include"
    bare: bool = False  # written BerryCrush's way, without a colon: `include login`

    @property
    def text(self) -> str:
        return self.fragment


@dataclass(frozen=True, slots=True)
class FailStep(Node):
    """`fail "message"`: fails its scenario with the message ({{NAME}} references rendered)."""

    message: TextTemplate
    location: SourceLocation
    keyword: str = "fail"

    @property
    def text(self) -> str:
        return self.message.text


@dataclass(frozen=True, slots=True)
class ConditionalBranch(Node):
    """`if COND` / `else if COND` / `else` (condition None) and the directives it runs."""

    condition: Assertion | None
    text: str  # the condition as written; "" for else
    steps: tuple[Step, ...]
    location: SourceLocation
    keyword: str = "if"  # "if", "else if" or "else"


@dataclass(frozen=True, slots=True)
class ConditionalStep(Node):
    """`if` … `else if` … `else`: the first branch whose condition holds runs its steps."""

    branches: tuple[ConditionalBranch, ...]
    location: SourceLocation
    keyword: str = "if"

    @property
    def text(self) -> str:
        """`status 201 · else if status 200 · else`: the chain on one line."""
        return " · ".join(b.text if i == 0 else f"{b.keyword} {b.text}".rstrip() for i, b in enumerate(self.branches))


@dataclass(frozen=True, slots=True)
class WebhookStep(Node):
    """`webhook: NAME` with `hook: h` / `hooks: [a, b]`, `port: 0`, `scope: scenario|feature`:
    a loopback server the run starts; `{{NAME.h}}` is a hook's URL."""

    name: str
    hooks: tuple[str, ...]
    port: int
    scope: str  # "scenario" or "feature"
    location: SourceLocation
    keyword: str = "webhook"

    @property
    def text(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class DescribedStep(Node):
    """BerryCrush's step: `given/when/then/and/but` (colon or not) with a description, and the
    directives indented below it as steps (call -> RequestStep, assert -> AssertStep, extract ->
    ExtractStep, include -> IncludeStep, if -> ConditionalStep, fail -> FailStep, webhook ->
    WebhookStep). Without directives it is a custom step: a Python step registered for a pattern
    that matches the description (see custom_steps.py)."""

    keyword: str  # lower case, as the step line's keyword
    description: TextTemplate
    steps: tuple[Step, ...]
    location: SourceLocation

    @property
    def text(self) -> str:
        return self.description.text

    @property
    def custom(self) -> bool:
        return not self.steps


Step = Union[RequestStep, AssertStep, ExtractStep, IncludeStep, FailStep, ConditionalStep, WebhookStep, DescribedStep]


def leaf_conditions(condition: Assertion):
    """The simple conditions inside a condition, in source order: what `not`, `and` and `or`
    (NotAssertion, AllOf, AnyOf) combine, at any depth; a simple condition is its own leaf."""
    pending = [condition]
    while pending:
        node = pending.pop()
        if isinstance(node, NotAssertion):
            pending.append(node.condition)
        elif isinstance(node, (AllOf, AnyOf)):
            pending.extend(reversed(node.conditions))
        else:
            yield node


# Keywords written with a colon (ours); BerryCrush's directives and described steps take none.
_COLON_KEYWORDS = frozenset(("when", "then", "extract", "include"))


def step_label(step: Step) -> str:
    """A step as a person wrote it: `when: POST /pets`, `call ^createPet`, `extract $.id => petId`."""
    keyword = step.keyword
    colon = (
        keyword in _COLON_KEYWORDS
        and not isinstance(step, DescribedStep)
        and not getattr(step, "arrow", False)
        and not (isinstance(step, IncludeStep) and step.bare)
    )
    return f"{keyword}{':' if colon else ''} {step.text}"


def walk_steps(steps: tuple[Step, ...]):
    """Every step of a block, nested ones included (a described step's directives, the steps of
    each branch of a conditional), in source order; includes are not expanded."""
    pending = list(reversed(steps))
    while pending:
        step = pending.pop()
        yield step
        if isinstance(step, DescribedStep):
            pending.extend(reversed(step.steps))
        elif isinstance(step, ConditionalStep):
            for branch in reversed(step.branches):
                pending.extend(reversed(branch.steps))


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
class OutlineRow:
    """Where an outline's scenario comes from: the outline, its examples row (1-based) and the
    row's cells, which are variables of the scenario layer (never written to a store)."""

    outline: str
    outline_line: int
    row: int
    variables: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class ScenarioNode(Node):
    name: str
    tags: frozenset[str]
    steps: tuple[Step, ...]
    location: SourceLocation
    parameters: ParametersNode | None = None  # the scenario's (or outline's) own block
    outline: OutlineRow | None = None  # set on each scenario an outline's examples row makes


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
    # A custom step or assertion somewhere (plugins are needed to check it); None: not noted.
    custom_steps: bool | None = None

    @property
    def path(self) -> str:
        return self.location.file

    def fragment(self, name: str) -> FragmentNode | None:
        for fragment in self.fragments:
            if fragment.name == name:
                return fragment
        return None

    def scenarios_in_order(self) -> list[tuple[ScenarioNode, FeatureNode | None]]:
        """Every scenario (each outline row) with its feature, in source order: the run's order."""
        found: list[tuple[ScenarioNode, FeatureNode | None]] = []
        for item in self.items:
            if isinstance(item, FeatureNode):
                found += [(scenario, item) for scenario in item.scenarios]
            else:
                found.append((item, None))
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
