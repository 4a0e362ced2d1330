"""The JSON report (docs/spec/cli.md#json-report), rendered from a RunRecorder and masked, and written atomically."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, Iterable, NoReturn, Protocol, overload

from scenario_core.report.failures import cut_body, step_message
from scenario_core.report.masking import Masker
from scenario_core.report.recorder import RunRecorder
from scenario_core.report.records import RESPONSE_BODY_LIMIT, Exchange, ScenarioRecord, ScopeEvent, StepRecord
from scenario_core.report.writing import atomic_write
from scenario_core.run import events as ev
from scenario_core.support.json_depth import cut_depth

if TYPE_CHECKING:
    from scenario_core.report.json_shapes import (
        BodyCut,
        FileEnvironment,
        JsonReport,
        OutlineRow,
        ReportExchange,
        ReportFile,
        ReportRequest,
        ReportResponse,
        ReportScenario,
        ReportScopeEvent,
        ReportStep,
        ScenarioEnvironment,
    )

    class _Change(Protocol):
        def to_json(self) -> dict[str, object]: ...

    class Comparer(Protocol):
        """What the report asks of report.compare's Comparer (which imports this module)."""

        def changes(
            self, scenario: ScenarioRecord, step: StepRecord, masker: Masker | None = None
        ) -> Iterable[_Change]: ...

# Each report object's keys come in the order of docs/spec/cli.md#json-report, those written only
# sometimes too: spread from a typed part (OutlineRow, …) or, at the end, added after.


def json_report(recorder: RunRecorder, masker: Masker | None = None, comparer: Comparer | None = None) -> JsonReport:
    """The report of docs/spec/cli.md#json-report; `"interrupted"` is always present (false on a complete run), `"coverage"`
    when the run collected it (--coverage); with a `comparer` (report.compare, `run --compare`), each
    step that sent a request has `changes` against the earlier report."""
    masker = masker or Masker(enabled=False)
    counts = recorder.counts()
    coverage = recorder.coverage.to_json() if recorder.coverage is not None else None
    report: JsonReport = {
        "summary": {
            "scenarios": sum(counts.values()),
            "passed": counts[ev.PASSED],
            "failed": counts[ev.FAILED],
            "skipped": counts[ev.SKIPPED],
            "duration_s": round(recorder.elapsed, 3),
        },
        "files": [_json_file(file.path, file.environment, file.scenarios, masker, comparer) for file in recorder.files],
        "interrupted": recorder.interrupted,
    }
    if coverage is not None:
        report["coverage"] = coverage
    return report


def _json_file(
    path: str, environment: str | None, scenarios: list[ScenarioRecord], masker: Masker, comparer: Comparer | None
) -> ReportFile:
    own: FileEnvironment = {"environment": environment} if environment is not None else {}
    return {"path": path, **own, "scenarios": [_json_scenario(s, masker, environment, comparer) for s in scenarios]}


def _json_scenario(
    scenario: ScenarioRecord, masker: Masker, file_environment: str | None = None, comparer: Comparer | None = None
) -> ReportScenario:
    row: OutlineRow = {"outline": scenario.outline, "row": scenario.row} if scenario.row is not None else {}
    # Only where it differs from the file's (a feature or the scenario set its own).
    own: ScenarioEnvironment = {"environment": scenario.environment} if scenario.environment != file_environment else {}
    return {
        "name": scenario.name,
        "feature": scenario.feature,
        "line": scenario.line,
        **row,
        **own,
        # docs/spec/cli.md#scenario-status: error, counted as failed
        "status": "error" if scenario.local_error else scenario.status,
        "steps": [_json_step(scenario, s, masker, comparer) for s in scenario.steps],
        # Cut before masking: the Masker walks values recursively, and json.dumps dies on a
        # response nested 1000 levels deep, which would take the whole report with it.
        "variables": _jsonable(masker.variables({k: cut_depth(v) for k, v in scenario.variables.items()})),
        # after the fields of docs/spec/cli.md#json-report: how the scenario met the stores (docs/spec/scopes.md#scope-events)
        "scope_events": [json_scope_event(e, masker) for e in scenario.scope_events],
    }


def _json_step(scenario: ScenarioRecord, s: StepRecord, masker: Masker, comparer: Comparer | None) -> ReportStep:
    step: ReportStep = {
        "line": s.line,
        "keyword": s.keyword,
        "status": s.status,
        "message": step_message(scenario, s, masker),
        # after the fields of docs/spec/cli.md#json-report: the step as written (`call ^createPet`, `when: GET /pets`)
        "label": masker.text(s.label or f"{s.keyword}: {s.text}"),
    }
    if s.operation is not None:
        step["operation"] = s.operation
    if s.branch is not None:
        step["branch"] = s.branch
    if s.auto_tests:
        step["auto_tests"] = [
            {**t, "message": masker.text(t["message"]), "description": masker.text(t["description"])}
            for t in s.auto_tests
        ]
    if s.exchange:
        exchange = json_exchange(s.exchange, masker, scenario.error_context.max_body_size)
        step["request"], step["response"] = exchange["request"], exchange["response"]
    if comparer is not None and s.exchange:
        step["changes"] = [c.to_json() for c in comparer.changes(scenario, s, masker)]
    return step


def json_exchange(exchange: Exchange, masker: Masker, body_limit: int) -> ReportExchange:
    """A request step's `request` and `response` (None when none came), masked, each body cut at
    `body_limit` bytes (the scenario's errorContext.maxBodySize, 4096 by default)."""

    def body(text: str | None, size: int | None) -> str | None:
        return cut_body(text, masker, body_limit, size) if text else None

    request: ReportRequest = {
        "method": exchange.method,
        "url": masker.text(exchange.url),
        "headers": [list(pair) for pair in masker.headers(exchange.request_headers)],
        "body": body(exchange.request_body, exchange.request_body_size),
    }
    if exchange.operation is not None:
        request["operation"] = exchange.operation
    return {"request": request, "response": json_response(exchange, masker)}


def json_response(exchange: Exchange, masker: Masker) -> ReportResponse | None:
    """A step's `response` (None when none came), masked: the body as its JSON value when it is
    JSON and whole, else as text cut at RESPONSE_BODY_LIMIT bytes (then `body_cut` says so).
    Also what `--compare` compares (report.compare)."""
    if exchange.status is None:
        return None
    body, cut = response_body(exchange.body, exchange.body_size, masker)
    cut_note: BodyCut = {"body_cut": True} if cut else {}
    return {
        "status": exchange.status,
        "reason": exchange.reason,
        "headers": [list(pair) for pair in masker.headers(exchange.response_headers)],
        "body": body,
        **cut_note,
        "elapsed_s": round(exchange.elapsed, 4) if exchange.elapsed is not None else None,
    }


def response_body(text: str | None, size: int | None, masker: Masker) -> tuple[object, bool]:
    """(the body as the report shows it, whether it was cut). A JSON body under the limit is its
    value, secrets masked by name and by learnt value; anything else is text."""
    if not text:
        return None, False
    if size is None and len(text) <= RESPONSE_BODY_LIMIT and text.lstrip()[:1] in ("{", "["):
        try:  # NaN and Infinity parse, but would make the report itself invalid JSON: kept as text
            value = json.loads(text, parse_constant=_no_constant)
        except (ValueError, RecursionError):
            pass
        else:
            return _jsonable(masker.value(cut_depth(value))), False
    whole = len(text.encode("utf-8"))
    shown = cut_body(text, masker, RESPONSE_BODY_LIMIT, size)
    return shown, size is not None or whole > RESPONSE_BODY_LIMIT or shown.endswith(f" ({whole} bytes in all)")


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


def json_scope_event(event: ScopeEvent, masker: Masker) -> ReportScopeEvent:
    """One ScopeEvent as JSON: `event` first, then only the fields its kind has; values masked
    (by the variable's name too: an extracted `token` is never shown)."""

    def value(raw: object) -> object:
        return _jsonable(masker.value(cut_depth(raw), event.name))

    kind = event.kind
    if kind == "created":
        return {"event": kind, "store": event.store}
    if kind == "started":
        return {"event": kind, "store": event.store, "carried": list(event.names)}
    if kind == "extracted":
        return {
            "event": kind,
            "name": event.name,
            "value": value(event.value),
            "layers": list(event.layers),
            "line": event.line,
            "phase": event.phase,
        }
    if kind == "overwritten":
        return {
            "event": kind,
            "name": event.name,
            "layer": event.store,
            "old": value(event.old),
            "new": value(event.value),
            "line": event.line,
            "phase": event.phase,
        }
    return {"event": kind, "store": event.store, "names": list(event.names), "at": event.at}


@overload
def _jsonable(value: dict[str, object]) -> dict[str, object]: ...
@overload
def _jsonable(value: object) -> object: ...
def _jsonable(value: object) -> object:
    """Variables hold JSON values or run variables; anything else is shown as text rather than
    failing the whole report (a dict stays a dict). Iterative; expects a value already cut to
    MAX_DEPTH."""
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError, RecursionError):
        pass
    root: list[object] = [None]
    # (source, container to fill, key or index in it): a dict and its key or a list and its
    # index, which no one type spells: the pair is always one or the other
    stack: list[tuple[object, Any, Any]] = [(value, root, 0)]
    while stack:
        item, parent, key = stack.pop()
        copy: object
        if isinstance(item, dict):
            fields: dict[str, object] = {}
            for k, v in item.items():
                fields[str(k)] = None
                stack.append((v, fields, str(k)))
            copy = fields
        elif isinstance(item, (list, tuple)):
            items: list[object] = [None] * len(item)
            stack.extend((v, items, i) for i, v in enumerate(item))
            copy = items
        elif item is None or isinstance(item, (str, int, float, bool)):
            copy = item
        else:
            copy = str(item)
        parent[key] = copy
    return root[0]


def write_json_report(
    path: str | os.PathLike[str], recorder: RunRecorder, masker: Masker | None = None, comparer: Comparer | None = None
) -> None:
    text = json.dumps(json_report(recorder, masker, comparer), indent=2, ensure_ascii=False) + "\n"
    atomic_write(path, text.encode("utf-8", "backslashreplace"))  # a lone surrogate (argv) as its escape
