"""The steps of a block, in either dialect: requests (with their headers, query and operation
parameters), assertions, extracts, includes (and the limits of what they expand to), BerryCrush's
`fail`, `if` chains, webhooks and described steps; `step_label` shows a step as it was written."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Union

from scenario_core.language.nodes.assertions import Assertion
from scenario_core.language.nodes.base import JsonTemplate, Node, SourceLocation, TextTemplate
from scenario_core.support.records import dataclass, field

if TYPE_CHECKING:
    from scenario_core.language.parameter_keys import ValueTemplate


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
    # `call using {{spec}} {{op}}` (newer BerryCrush): a name chosen by a variable at run time;
    # `operation_id` / `using` then hold the text as written.
    id_template: TextTemplate | None = None
    using_template: TextTemplate | None = None

    @property
    def text(self) -> str:
        name = self.operation_id if self.id_template is not None else f"^{self.operation_id}"
        return f"using {self.using} {name}" if self.using else name

    @property
    def dynamic(self) -> bool:
        return self.id_template is not None or self.using_template is not None


@dataclass(frozen=True, slots=True)
class RawTarget(Node):
    """BerryCrush's `call [using NAME] raw METHOD /path`: a request by method and path to a
    description's (or binding's) server, with no operationId; each part may be a `{{NAME}}`.
    The path's `{name}` placeholders are filled by the call's children of that name."""

    method: TextTemplate
    path: TextTemplate
    using: TextTemplate | None
    location: SourceLocation

    @property
    def text(self) -> str:
        using = f"using {self.using.text} " if self.using is not None else ""
        return f"{using}raw {self.method.text} {self.path.text}"


@dataclass(frozen=True, slots=True)
class CallParameter(Node):
    """`petId: 1` under an operation call: placed where the operation declares `petId` (path,
    query, header, cookie); `query_X` / `header_X` force the place. The value keeps its JSON type."""

    name: str
    value: JsonTemplate
    location: SourceLocation
    # `{{pathVariable}}: {{value}}` (newer BerryCrush): the name chosen at run time; `name` is
    # then the text as written
    name_template: TextTemplate | None = None


@dataclass(frozen=True, slots=True)
class FormField(Node):
    """`name: value` under `form:` (urlencoded) or `multipart:` (a text part, or with `file` set,
    a file part: `value` is then the file's path and `media_type` the type written after it)."""

    name: str
    value: TextTemplate
    location: SourceLocation
    file: bool = False
    media_type: str | None = None


# What `auto: [...]` under a call may name (docs/spec/berrycrush.md#auto-tests); auto_tests.py generates them.
AUTO_KINDS = ("invalid", "security", "multi")


@dataclass(frozen=True, slots=True)
class RequestStep(Node):
    """One request, in either dialect: `when: METHOD path` (method and url), or an operation call
    (`when: ^op`, BerryCrush's `call ^op`) whose method and path come from its description. Both
    may have `headers:`, `query:` and one body: JSON (`body:`), structured (`body:` over indented
    `name: value` lines, merged over the operation's schema defaults), a triple-quoted block, a
    file (`bodyFile:`), a form (`form:`) or a multipart form (`multipart:`)."""

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
    repeats: tuple[tuple[str, int | ValueTemplate], ...] = ()  # a `{{env.N}}` count is read at run time
    raw: RawTarget | None = None  # `call using NAME raw GET /path`
    # `form:` (urlencoded) / `multipart:` (form-data) lines, in written order; None when not written
    form: tuple[FormField, ...] | None = None
    multipart: tuple[FormField, ...] | None = None

    @property
    def name_templates(self) -> tuple[TextTemplate, ...]:
        """What chooses, at run time, the operation or the raw call's target: `{{spec}}`,
        `{{op}}`, `{{method}}`, `{{path}}` (those written as such)."""
        found: list[TextTemplate | None] = []
        if self.operation is not None:
            found += [self.operation.using_template, self.operation.id_template]
        if self.raw is not None:
            found += [self.raw.using, self.raw.method, self.raw.path]
        return tuple(t for t in found if t is not None and t.refs)

    @property
    def text(self) -> str:
        if self.operation is not None:
            return self.operation.text
        if self.raw is not None:
            return self.raw.text
        assert self.url is not None  # a request that calls no operation has its method and URL
        return f"{self.method} {self.url.text}"


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
    source: str  # "body" (a JSON path), "header", "cookie", "text" (`body`), "regex" or "xpath"
    path: str  # the JSON path or the header name; for the other sources, the source as written
    compiled: Any = field(compare=False, repr=False)  # compiled JSON path; a cookie name, pattern or XPath
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
    # `include {{param.KEY}}`: the parameter whose value names the fragment, resolved when the
    # file is built, per scenario (builder/include_parameters.py); `fragment` is then its value.
    parameter: str | None = None

    @property
    def text(self) -> str:
        return self.fragment


# Limits of what includes may expand to, checked by `check` (builder/includes.py) with a
# located error, so the executor never meets a file past them: includes nested deeper than this ...
MAX_INCLUDE_DEPTH = 32
# ... or a block (scenario, background, fragment) expanding to more steps than this.
MAX_PLANNED_STEPS = 10_000


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
class UnreadableStep(FailStep):
    """A step whose JSON path or condition cannot be read (`extract: x from $.[[`, `then: $.a = 1`):
    an error local to its scenario (docs/spec/steps.md#errors-local-to-one-scenario). `check` reports it; the executor ends the
    scenario at this line before it sends anything. Kept in the tree so that scenario has its
    step; a `fail` with the error's message, should it ever run."""

    written: str = ""  # what follows the keyword, as written
    colon: bool = True  # the keyword was written with a colon (ours: `then:`, `extract:`)

    @property
    def text(self) -> str:
        return self.written


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


# A scenario's `finally:` block is a described step with this keyword, its last step: its
# directives run after the others, whether they passed or failed (run/plan.py marks them).
FINALLY = "finally"

Step = Union[RequestStep, AssertStep, ExtractStep, IncludeStep, FailStep, ConditionalStep, WebhookStep, DescribedStep]

# The plain steps, most of every file: one directive each, nothing nested or expanded, nothing that
# runs long but the request one sends (a plan takes them as they are; a run hands its events over
# before the other kinds).
PLAIN_STEPS = frozenset({RequestStep, AssertStep, ExtractStep})


# Keywords written with a colon (ours); BerryCrush's directives and described steps take none.
_COLON_KEYWORDS = frozenset(("when", "then", "extract", "include"))


def step_label(step: Step) -> str:
    """A step as a person wrote it: `when: POST /pets`, `call ^createPet`, `extract $.id => petId`."""
    keyword = step.keyword
    colon = keyword == FINALLY or (
        keyword in _COLON_KEYWORDS
        and not isinstance(step, DescribedStep)
        and not getattr(step, "arrow", False)
        and not (isinstance(step, IncludeStep) and step.bare)
        and not (isinstance(step, UnreadableStep) and not step.colon)
    )
    return f"{keyword}{':' if colon else ''} {step.text}"
