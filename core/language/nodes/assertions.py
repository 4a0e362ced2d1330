"""The assertion nodes: what `then:` checks on a response and what BerryCrush's `assert` and `if`
check (conditions.py), `not`, `and` and `or` included."""

from __future__ import annotations

from typing import Any, Union

from scenario_core.language.nodes.base import JsonTemplate, Node, SourceLocation, TextTemplate, VariableRef
from scenario_core.support.records import dataclass, field

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


NO_RESPONSE = -1  # `status -1`: the code BerryCrush gives a request that got no response


@dataclass(frozen=True, slots=True)
class StatusAssertion(Node):
    """`status 201` (code), `status 2xx` (class: 2), `status 201-204` (low, high: an inclusive
    range) or `status 20x` (pattern: each x any digit); `status -1` (code NO_RESPONSE) expects
    that no response came (docs/spec/steps.md#expecting-no-response)."""

    code: int | None
    klass: int | None
    location: SourceLocation
    low: int | None = None
    high: int | None = None
    pattern: str | None = None

    @property
    def expects_no_response(self) -> bool:
        return self.code == NO_RESPONSE

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
class SourceAssertion(Node):
    """`cookie NAME OP V`, `regex "PATTERN" OP V`, `xpath "EXPR" OP V`: every operator a JSON
    path takes, on the value that source reads from the response (run/response_sources.py).
    `argument` is the cookie's name or the pattern or expression; `written` the source as written."""

    source: str  # "cookie", "regex" or "xpath"
    argument: str
    written: str
    operator: str
    expected: JsonTemplate | None
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
    SourceAssertion,
    TimeAssertion,
    SchemaAssertion,
    VariableAssertion,
    CustomAssertion,
    NotAssertion,
    AllOf,
    AnyOf,
]
