"""The shapes of the JSON report (docs/spec/cli.md#json-report) and of its `coverage` object, as
TypedDicts: what json_report and coverage write, and what the HTML report reads back.

Types only: import this module under `if TYPE_CHECKING:` (nothing here runs). Keys a report
writes only sometimes are NotRequired; values that are a user's or a server's (variables, a
response body, a change's old and new value) are `object`: whatever `json.dumps` writes."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    from typing_extensions import NotRequired, Required


class AutoTestRecord(TypedDict):
    """One generated request of a call's `auto:` tests, as a step records it."""

    kind: str  # invalid, security, multi
    type: str  # required, enum, SQL_INJECTION, …
    description: str
    status: str  # passed or failed
    message: str | None


class ReportSummary(TypedDict):
    scenarios: int
    passed: int
    failed: int
    skipped: int
    duration_s: float


class ReportRequest(TypedDict):
    method: str
    url: str
    headers: list[list[str]]  # [name, value] pairs
    body: str | None
    operation: NotRequired[str]


class ReportResponse(TypedDict):
    status: int
    reason: str
    headers: list[list[str]]
    body: object  # its JSON value when JSON and whole, else text; None when empty
    body_cut: NotRequired[bool]
    elapsed_s: float | None


class BodyCut(TypedDict, total=False):
    body_cut: bool


class ReportExchange(TypedDict):
    request: ReportRequest
    response: ReportResponse | None  # None: no response came


class ReportStep(TypedDict):
    line: int
    keyword: str
    status: str
    message: str | None
    label: str
    operation: NotRequired[str]
    branch: NotRequired[str]
    auto_tests: NotRequired[list[AutoTestRecord]]
    request: NotRequired[ReportRequest]
    response: NotRequired[ReportResponse | None]
    changes: NotRequired[list[dict[str, object]]]  # `run --compare`: report.compare.Change.to_json


class ReportScopeEvent(TypedDict, total=False):
    """One scope event; which keys it has depends on `event` (created, started, extracted,
    overwritten, cleared: report/json_report.py json_scope_event)."""

    event: Required[str]
    store: str | None
    carried: list[str]
    name: str | None
    value: object
    layers: list[str]
    line: int | None
    phase: str | None
    layer: str | None
    old: object
    new: object
    names: list[str]
    at: str | None


class OutlineRow(TypedDict, total=False):
    """An outline's scenario: the outline's name and the examples row (1-based)."""

    outline: str | None
    row: int | None


class ScenarioEnvironment(TypedDict, total=False):
    environment: str | None


class FileEnvironment(TypedDict, total=False):
    environment: str


class ReportScenario(TypedDict):
    name: str
    feature: str | None
    line: int
    outline: NotRequired[str | None]
    row: NotRequired[int | None]
    environment: NotRequired[str | None]
    status: str
    steps: list[ReportStep]
    variables: dict[str, object]
    scope_events: list[ReportScopeEvent]


class ReportFile(TypedDict):
    path: str
    environment: NotRequired[str]
    scenarios: list[ReportScenario]


class OperationCoverageJson(TypedDict):
    id: str | None
    method: str
    path: str
    called: int
    auto: int
    responses: dict[str, int]
    undocumented: dict[str, int]
    auto_responses: dict[str, int]
    parameters: dict[str, int]
    body: dict[str, int]


class DescriptionCoverageJson(TypedDict):
    path: str
    title: str
    operations: list[OperationCoverageJson]


class CoverageTotals(TypedDict):
    called: int
    total: int
    percent: float


class CoverageJson(TypedDict):
    operations: CoverageTotals
    descriptions: list[DescriptionCoverageJson]


class JsonReport(TypedDict):
    summary: ReportSummary
    files: list[ReportFile]
    interrupted: bool
    coverage: NotRequired[CoverageJson]
