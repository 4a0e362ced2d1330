"""The JSON report (docs/spec/cli.md#json-report), rendered from a RunRecorder and masked, and written atomically."""

from __future__ import annotations

import json
import os
from typing import Any

from scenario_core.report.failures import cut_body, step_message
from scenario_core.report.masking import Masker
from scenario_core.report.recorder import RunRecorder
from scenario_core.report.records import RESPONSE_BODY_LIMIT, Exchange, ScenarioRecord, ScopeEvent
from scenario_core.report.writing import atomic_write
from scenario_core.run import events as ev
from scenario_core.support.json_depth import cut_depth


def json_report(recorder: RunRecorder, masker: Masker | None = None, comparer: Any = None) -> dict[str, Any]:
    """The report of docs/spec/cli.md#json-report; `"interrupted"` is always present (false on a complete run), `"coverage"`
    when the run collected it (--coverage); with a `comparer` (report.compare, `run --compare`), each
    step that sent a request has `changes` against the earlier report."""
    masker = masker or Masker(enabled=False)
    counts = recorder.counts()
    coverage = {"coverage": recorder.coverage.to_json()} if recorder.coverage is not None else {}
    return {
        "summary": {
            "scenarios": sum(counts.values()),
            "passed": counts[ev.PASSED],
            "failed": counts[ev.FAILED],
            "skipped": counts[ev.SKIPPED],
            "duration_s": round(recorder.elapsed, 3),
        },
        "files": [
            {
                "path": file.path,
                **({"environment": file.environment} if file.environment is not None else {}),
                "scenarios": [_json_scenario(s, masker, file.environment, comparer) for s in file.scenarios],
            }
            for file in recorder.files
        ],
        "interrupted": recorder.interrupted,
        **coverage,
    }


def _json_scenario(
    scenario: ScenarioRecord, masker: Masker, file_environment: str | None = None, comparer: Any = None
) -> dict[str, Any]:
    return {
        "name": scenario.name,
        "feature": scenario.feature,
        "line": scenario.line,
        **({"outline": scenario.outline, "row": scenario.row} if scenario.row is not None else {}),
        # Only where it differs from the file's (a feature or the scenario set its own).
        **({"environment": scenario.environment} if scenario.environment != file_environment else {}),
        # docs/spec/cli.md#scenario-status: error, counted as failed
        "status": "error" if scenario.local_error else scenario.status,
        "steps": [
            {
                "line": s.line,
                "keyword": s.keyword,
                "status": s.status,
                "message": step_message(scenario, s, masker),
                # after the fields of docs/spec/cli.md#json-report: the step as written (`call ^createPet`, `when: GET /pets`)
                "label": masker.text(s.label or f"{s.keyword}: {s.text}"),
                **({"operation": s.operation} if s.operation is not None else {}),
                **({"branch": s.branch} if s.branch is not None else {}),
                **(
                    {
                        "auto_tests": [
                            {**t, "message": masker.text(t["message"]), "description": masker.text(t["description"])}
                            for t in s.auto_tests
                        ]
                    }
                    if s.auto_tests
                    else {}
                ),
                **(json_exchange(s.exchange, masker, scenario.error_context.max_body_size) if s.exchange else {}),
                **(
                    {"changes": [c.to_json() for c in comparer.changes(scenario, s, masker)]}
                    if comparer is not None and s.exchange
                    else {}
                ),
            }
            for s in scenario.steps
        ],
        # Cut before masking: the Masker walks values recursively, and json.dumps dies on a
        # response nested 1000 levels deep, which would take the whole report with it.
        "variables": _jsonable(masker.variables({k: cut_depth(v) for k, v in scenario.variables.items()})),
        # after the fields of docs/spec/cli.md#json-report: how the scenario met the stores (docs/spec/scopes.md#scope-events)
        "scope_events": [json_scope_event(e, masker) for e in scenario.scope_events],
    }


def json_exchange(exchange: Exchange, masker: Masker, body_limit: int) -> dict[str, Any]:
    """A request step's `request` and `response` (None when none came), masked, each body cut at
    `body_limit` bytes (the scenario's errorContext.maxBodySize, 4096 by default)."""

    def body(text: str | None, size: int | None) -> str | None:
        return cut_body(text, masker, body_limit, size) if text else None

    request = {
        "method": exchange.method,
        "url": masker.text(exchange.url),
        "headers": [list(pair) for pair in masker.headers(exchange.request_headers)],
        "body": body(exchange.request_body, exchange.request_body_size),
    }
    if exchange.operation is not None:
        request["operation"] = exchange.operation
    return {"request": request, "response": json_response(exchange, masker)}


def json_response(exchange: Exchange, masker: Masker) -> dict[str, Any] | None:
    """A step's `response` (None when none came), masked: the body as its JSON value when it is
    JSON and whole, else as text cut at RESPONSE_BODY_LIMIT bytes (then `body_cut` says so).
    Also what `--compare` compares (report.compare)."""
    if exchange.status is None:
        return None
    body, cut = response_body(exchange.body, exchange.body_size, masker)
    return {
        "status": exchange.status,
        "reason": exchange.reason,
        "headers": [list(pair) for pair in masker.headers(exchange.response_headers)],
        "body": body,
        **({"body_cut": True} if cut else {}),
        "elapsed_s": round(exchange.elapsed, 4) if exchange.elapsed is not None else None,
    }


def response_body(text: str | None, size: int | None, masker: Masker) -> tuple[Any, bool]:
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


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def json_scope_event(event: ScopeEvent, masker: Masker) -> dict[str, Any]:
    """One ScopeEvent as JSON: `event` first, then only the fields its kind has; values masked
    (by the variable's name too: an extracted `token` is never shown)."""

    def value(raw: Any) -> Any:
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


def _jsonable(value: Any) -> Any:
    """Variables hold JSON values or run variables; anything else is shown as text rather than
    failing the whole report. Iterative; expects a value already cut to MAX_DEPTH."""
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError, RecursionError):
        pass
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, root, 0)]
    while stack:
        item, parent, key = stack.pop()
        if isinstance(item, dict):
            copy: Any = {}
            for k, v in item.items():
                copy[str(k)] = None
                stack.append((v, copy, str(k)))
        elif isinstance(item, (list, tuple)):
            copy = [None] * len(item)
            stack.extend((v, copy, i) for i, v in enumerate(item))
        elif item is None or isinstance(item, (str, int, float, bool)):
            copy = item
        else:
            copy = str(item)
        parent[key] = copy
    return root[0]


def write_json_report(
    path: str | os.PathLike[str], recorder: RunRecorder, masker: Masker | None = None, comparer: Any = None
) -> None:
    text = json.dumps(json_report(recorder, masker, comparer), indent=2, ensure_ascii=False) + "\n"
    atomic_write(path, text.encode("utf-8", "backslashreplace"))  # a lone surrogate (argv) as its escape
