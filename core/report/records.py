"""What a run leaves for its reports: plain records of files, scenarios, steps, exchanges and
scope events (filled by report.recorder), and the errorContext.* settings a scenario's failure
is shown with. Raw: masking is applied when a report is rendered, not here."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scenario_core.language.parameter_keys import ERROR_MAX_BODY, ERROR_REQUEST_BODY, ERROR_RESPONSE_BODY
from scenario_core.language.parameter_keys import SPECS as PARAMETER_SPECS
from scenario_core.run import events as ev
from scenario_core.support.records import dataclass, field, replace

if TYPE_CHECKING:
    from scenario_core.parameters.resolution import EffectiveParameters
    from scenario_core.report.json_shapes import AutoTestRecord


@dataclass(frozen=True, slots=True)
class ErrorContext:
    """The errorContext.* parameters of a scenario: which bodies a failed step's report shows,
    and where they are cut (bytes)."""

    request_body: bool = PARAMETER_SPECS[ERROR_REQUEST_BODY].default
    response_body: bool = PARAMETER_SPECS[ERROR_RESPONSE_BODY].default
    max_body_size: int = PARAMETER_SPECS[ERROR_MAX_BODY].default

    @classmethod
    def from_parameters(cls, parameters: EffectiveParameters | None) -> "ErrorContext":
        def value(key: str) -> Any:  # a parameter's value is of its spec's type
            found = parameter_value(parameters, key)
            return PARAMETER_SPECS[key].default if found is None else found

        return cls(value(ERROR_REQUEST_BODY), value(ERROR_RESPONSE_BODY), value(ERROR_MAX_BODY))


def parameter_value(parameters: EffectiveParameters | None, key: str) -> Any:
    """The value of parameter `key` in `parameters` (an event's parameters in force), or None:
    of the type its spec parses (parameter_keys.SPECS)."""
    found = parameters.get(key) if parameters is not None else None
    return found.value if found is not None else None


# Where a report cuts a step's response body (docs/formats.md#the-json-report-run---report-json-path):
# enough for `--compare` to see what changed, bounded so a report stays readable.
RESPONSE_BODY_LIMIT = 64 * 1024


@dataclass
class Exchange:
    """One request and, when it came, its response."""

    index: int  # the plan index of the step that sent it
    method: str
    url: str
    request_headers: tuple[tuple[str, str], ...]
    request_body: str | None
    status: int | None = None
    reason: str = ""
    response_headers: tuple[tuple[str, str], ...] = ()
    body: str | None = None
    elapsed: float | None = None
    operation: str | None = None  # `getPetById (GET /pets/{id})` for an operation call
    # Set on a step's own copy, whose bodies are kept only as far as a report shows them: the
    # whole bodies' sizes in bytes (a run of 10,000 requests must not hold 10,000 bodies).
    request_body_size: int | None = None
    body_size: int | None = None

    def kept(self, limit: int, response_limit: int = RESPONSE_BODY_LIMIT) -> "Exchange":
        """A copy holding only the heads of its bodies that a report shows: the request's cut at
        `limit` bytes, the response's at the larger of `limit` and `response_limit`."""

        def head(body: str | None, limit: int) -> tuple[str | None, int | None]:
            if not body or len(body) <= limit * 4 + 64:  # whole: nothing to keep beside it
                return body, None
            return body_head(body, limit), len(body.encode("utf-8"))

        request_body, request_size = head(self.request_body, limit)
        body, body_size = head(self.body, max(limit, response_limit))
        if request_size is None and body_size is None:
            return self
        return replace(self, request_body=request_body, body=body, request_body_size=request_size, body_size=body_size)


@dataclass
class StepRecord:
    line: int
    keyword: str
    text: str
    status: str
    message: str | None
    phase: str
    elapsed: float
    via: tuple[int, ...] = ()  # lines of the include: steps it came through
    operation: str | None = None  # the operation an operation call called
    label: str = ""  # the step as written: `when: POST /pets`, `assert status 201`
    branch: str | None = None  # an if chain: the branch that ran (`else if status 404`), or "none"
    auto_tests: list[AutoTestRecord] = field(default_factory=list)  # a call's generated requests
    exchange: Exchange | None = None  # the request this step sent (the last one, after auto tests)


@dataclass
class ScenarioRecord:
    path: str
    name: str
    feature: str | None
    line: int
    status: str = ev.SKIPPED
    message: str | None = None
    elapsed: float = 0.0
    steps: list[StepRecord] = field(default_factory=list)
    variables: dict[str, object] = field(default_factory=dict)
    failed_step: StepRecord | None = None
    exchange: Exchange | None = None  # the request/response the failure is about, if any
    finished: bool = False
    environment: str | None = None  # the `environment` parameter in force
    error_context: ErrorContext = field(default_factory=ErrorContext)
    store: str | None = None  # the sharing store it used ("file store", "feature 'Pets'"), None: isolated
    scope_events: list[ScopeEvent] = field(default_factory=list)
    # Ended by an error local to it (docs/spec/steps.md#errors-local-to-one-scenario): reported as `error`, counted as failed.
    local_error: bool = False
    outline: str | None = None  # an outline's scenario: the outline's name (the row's name has its cells)
    row: int | None = None  # and its examples row (1-based)


@dataclass
class ScopeEvent:
    """One change of scope around a scenario (docs/spec/scopes.md#scope-events), raw: masked when rendered.

    kind: "created" (a store comes into use right before this scenario), "started" (the scenario
    starts with `store`, carrying `names`), "extracted" (`name` = `value` into `layers`),
    "overwritten" (`name` in `store`: `old` -> `value`), "cleared" (`store` dropped after this
    scenario, at a feature's or the file's end, with `names`)."""

    kind: str
    store: str | None = None
    names: tuple[str, ...] = ()
    name: str | None = None
    value: object = None
    old: object = None
    layers: tuple[str, ...] = ()
    line: int | None = None  # the extract: step's line
    phase: str | None = None  # the extracting step's phase (background steps never reach a store)
    at: str | None = None  # for "cleared": "feature end" or "file end"


@dataclass
class FileRecord:
    path: str
    scenarios: list[ScenarioRecord] = field(default_factory=list)
    environment: str | None = None  # the file node's `environment`
    base_url: str | None = None  # the file node's `baseUrl` (a feature may set its own)


def body_head(body: str, limit: int) -> str:
    """What cut_body reads of a body to show `limit` bytes of it: a generous head."""
    return body[: limit * 4 + 64] if len(body) > limit * 4 + 64 else body
