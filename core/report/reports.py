"""Run reports, built by consuming the executor's events (nothing is re-run or re-decided here):
the JSON report of cli.md and a JUnit XML report for CI servers (Jenkins, GitLab).

A RunRecorder is fed every event as it comes; at the end (or when the run was interrupted)
`json_report` / `junit_report` render what it recorded, masked by a Masker, and
`write_json_report` / `write_junit_report` write it atomically.

Decisions:
- Scenarios appear in the order their ScenarioFinished came, which is source order; on an
  interrupted run, scenarios not reached are absent (the events say nothing about them), and
  every file given is still listed.
- The summary counts the recorded ScenarioFinished statuses, so it always matches the listing.
- Masking is applied when rendering, not when recording: by then the Masker knows every secret of
  the run, including one extracted after a message that mentioned it.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scenario_core.language.nodes.steps import step_label
from scenario_core.language.parameter_keys import (
    ENVIRONMENT,
    ERROR_MAX_BODY,
    ERROR_REQUEST_BODY,
    ERROR_RESPONSE_BODY,
)
from scenario_core.language.parameter_keys import (
    SPECS as PARAMETER_SPECS,
)
from scenario_core.report.masking import Masker
from scenario_core.run import events as ev
from scenario_core.support.json_depth import cut_depth
from scenario_core.support.printable import xml_safe

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

# xml.etree, secrets and stat are imported where they are used: most runs write no report, and
# start-up time is what a CI job calling `run` many times pays for.

BODY_LINES = 5  # lines of a response body in a failure summary
BODY_CHARS = 300


@dataclass(frozen=True, slots=True)
class ErrorContext:
    """The errorContext.* parameters of a scenario: which bodies a failed step's report shows,
    and where they are cut (bytes)."""

    request_body: bool = PARAMETER_SPECS[ERROR_REQUEST_BODY].default
    response_body: bool = PARAMETER_SPECS[ERROR_RESPONSE_BODY].default
    max_body_size: int = PARAMETER_SPECS[ERROR_MAX_BODY].default

    @classmethod
    def from_parameters(cls, parameters: Any) -> "ErrorContext":
        def value(key: str) -> Any:
            found = parameter_value(parameters, key)
            return PARAMETER_SPECS[key].default if found is None else found

        return cls(value(ERROR_REQUEST_BODY), value(ERROR_RESPONSE_BODY), value(ERROR_MAX_BODY))


def parameter_value(parameters: Any, key: str) -> Any:
    found = parameters.get(key) if parameters is not None else None
    return found.value if found is not None else None


# ---------------------------------------------------------------- records


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

    def kept(self, limit: int) -> "Exchange":
        """A copy holding only the heads of its bodies that a report cut at `limit` bytes shows."""

        def head(body: str | None) -> tuple[str | None, int | None]:
            if not body or len(body) <= limit * 4 + 64:  # whole: nothing to keep beside it
                return body, None
            return body_head(body, limit), len(body.encode("utf-8"))

        (request_body, request_size), (body, body_size) = head(self.request_body), head(self.body)
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
    auto_tests: list[dict[str, Any]] = field(default_factory=list)  # a call's generated requests
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
    variables: dict[str, Any] = field(default_factory=dict)
    failed_step: StepRecord | None = None
    exchange: Exchange | None = None  # the request/response the failure is about, if any
    finished: bool = False
    environment: str | None = None  # the `environment` parameter in force
    error_context: ErrorContext = field(default_factory=ErrorContext)
    store: str | None = None  # the sharing store it used ("file store", "feature 'Pets'"), None: isolated
    scope_events: list[ScopeEvent] = field(default_factory=list)


@dataclass
class ScopeEvent:
    """One change of scope around a scenario (semantics.md §3), raw: masked when rendered.

    kind: "created" (a store comes into use right before this scenario), "started" (the scenario
    starts with `store`, carrying `names`), "extracted" (`name` = `value` into `layers`),
    "overwritten" (`name` in `store`: `old` -> `value`), "cleared" (`store` dropped after this
    scenario, at a feature's or the file's end, with `names`)."""

    kind: str
    store: str | None = None
    names: tuple[str, ...] = ()
    name: str | None = None
    value: Any = None
    old: Any = None
    layers: tuple[str, ...] = ()
    line: int | None = None  # the extract: step's line
    phase: str | None = None  # the extracting step's phase (background steps never reach a store)
    at: str | None = None  # for "cleared": "feature end" or "file end"


@dataclass
class FileRecord:
    path: str
    scenarios: list[ScenarioRecord] = field(default_factory=list)
    environment: str | None = None  # the file node's `environment`


def step_text(step: Any) -> str:
    return getattr(step, "text", "") or ""


def body_head(body: str, limit: int) -> str:
    """What cut_body reads of a body to show `limit` bytes of it: a generous head."""
    return body[: limit * 4 + 64] if len(body) > limit * 4 + 64 else body


def cut_body(body: str, masker: Masker, limit: int, size: int | None = None) -> str:
    """The body masked, then cut at `limit` bytes (UTF-8), saying how much there was. `size`: the
    whole body's size in bytes when `body` is already only its head (body_head)."""
    whole = len(body.encode("utf-8"))
    size = whole if size is None else max(size, whole)
    # Mask before cutting (a cut through a secret would hide it from the Masker), but not a
    # 100 MB body for a 4 KB excerpt: a generous head of it.
    head = body_head(body, limit)
    masked = masker.text(head) or ""
    data = masked.encode("utf-8")
    if len(data) <= limit and len(head) == len(body) and size == whole:
        return masked
    return data[:limit].decode("utf-8", "ignore") + f" … ({size} bytes in all)"


def error_context_lines(
    exchange: Exchange | None, context: ErrorContext, masker: Masker, one_line: bool = False
) -> list[str]:
    """`request body: …` and `response body: …` of a failed step, as errorContext.* says:
    masked, each cut at maxBodySize bytes; a body's own lines stay lines (`one_line`: one each)."""
    if exchange is None:
        return []
    lines: list[str] = []
    for wanted, label, body in (
        (context.request_body, "request body", exchange.request_body),
        (context.response_body, "response body", exchange.body),
    ):
        if wanted and body and body.strip():
            text = cut_body(body.strip(), masker, context.max_body_size)
            if not text:
                continue
            if one_line:
                lines.append(f"{label}: {' '.join(text.split())}")
                continue
            first, *rest = text.replace("\r\n", "\n").split("\n")
            lines.append(f"{label}: {first}")
            lines.extend(rest)
    return lines


def exchange_head(exchange: Exchange, masker: Masker) -> str:
    """`GET http://h/pets/1 → 404 Not Found (3 ms)`, masked."""
    # `^getPetById GET http://h/pets/1 → 404`: the operation by its id, the request as sent.
    head = f"^{exchange.operation.split(' (')[0]} " if exchange.operation is not None else ""
    head += f"{exchange.method} {masker.text(exchange.url)} → "
    if exchange.status is None:
        return head + "no response"
    head += f"{exchange.status} {exchange.reason}".rstrip()
    if exchange.elapsed is not None:
        head += f" ({exchange.elapsed * 1000:.0f} ms)"
    return head


def exchange_summary(exchange: Exchange, masker: Masker, lines: int = BODY_LINES) -> list[str]:
    """`GET http://h/pets/1 → 404 Not Found (3 ms)` and the body's first lines, masked."""
    out = [exchange_head(exchange, masker)]
    if exchange.status is None:
        return out
    body = (exchange.body or "").strip()
    if body:
        # Mask the whole body before cutting it: a cut through a secret would hide it from the Masker.
        head_text = body[: BODY_CHARS * 4]
        body = masker.text(head_text) + (" …" if len(body) > len(head_text) else "")
        cut = body[:BODY_CHARS]
        # Only a line feed starts a line: `\r`, `\u2028` and friends stay in the text, where the
        # printers show them as escapes instead of letting them fake a line of their own.
        body_lines = cut.replace("\r\n", "\n").split("\n")
        shown = body_lines[:lines]
        if len(body_lines) > lines or len(body) > BODY_CHARS:
            shown[-1] += " …"
        out.extend(shown)
    return out


class RunRecorder:
    """Keeps what the reports and the run summary need, event by event."""

    def __init__(self) -> None:
        self.files: list[FileRecord] = []
        self.requests = 0
        self.interrupted = False
        self.duration: float | None = None
        self.finished = False
        self.last: ScenarioRecord | None = None  # the scenario that finished last
        self._started = time.perf_counter()
        self._by_path: dict[str, FileRecord] = {}
        self._current: ScenarioRecord | None = None
        self._current_node: Any = None
        self._step_index = -1
        self._last: Exchange | None = None
        self._file_path: str | None = None  # the file running now
        self._pending_scope: list[ScopeEvent] = []  # stores created before the next scenario starts
        self._phase: str | None = None

    # ---- feeding

    def feed(self, event: ev.Event) -> None:
        handler = self._HANDLERS.get(type(event))
        if handler is not None:
            handler(self, event)

    def _run_started(self, e: ev.RunStarted) -> None:
        for file in e.files:
            self._file(file.path)

    def _file(self, path: str) -> FileRecord:
        record = self._by_path.get(path)
        if record is None:
            record = self._by_path[path] = FileRecord(path)
            self.files.append(record)
        return record

    def _file_started(self, e: ev.FileStarted) -> None:
        self._file(e.file.path).environment = parameter_value(e.parameters, ENVIRONMENT)
        self._file_path = e.file.path

    def _scenario_started(self, e: ev.ScenarioStarted) -> None:
        self._current = ScenarioRecord(
            e.file.path, e.scenario.name, e.feature.name if e.feature else None, e.scenario.location.line
        )
        self._current.environment = parameter_value(e.parameters, ENVIRONMENT)
        self._current.error_context = ErrorContext.from_parameters(e.parameters)
        self._current_node = e.scenario
        self._step_index, self._last = -1, None
        self._branch, self._auto = None, []
        self._current.store = ev.store_label(e.store) if e.store is not None else None
        self._current.scope_events = self._pending_scope + [
            ScopeEvent("started", self._current.store, tuple(e.carried))
        ]
        self._pending_scope = []

    def _scope_created(self, e: ev.ScopeCreated) -> None:
        self._pending_scope.append(ScopeEvent("created", ev.store_label(e.store)))

    def _scope_cleared(self, e: ev.ScopeCleared) -> None:
        # After the feature's (or file's) last scenario finished: it goes with that scenario, which
        # is where a reader of the report meets the boundary.
        file = self._by_path.get(self._file_path) if self._file_path is not None else None
        if file is None or not file.scenarios:
            return
        at = "file end" if e.store.feature is None else "feature end"
        file.scenarios[-1].scope_events.append(ScopeEvent("cleared", ev.store_label(e.store), tuple(e.names), at=at))

    def _variable_extracted(self, e: ev.VariableExtracted) -> None:
        if self._current is not None:
            self._current.scope_events.append(
                ScopeEvent(
                    "extracted",
                    name=e.name,
                    value=e.value,
                    layers=tuple(e.layers),
                    line=e.step.location.line,
                    phase=self._phase,
                )
            )

    def _variable_overwritten(self, e: ev.VariableOverwritten) -> None:
        if self._current is not None:
            self._current.scope_events.append(
                ScopeEvent(
                    "overwritten",
                    e.layer,
                    name=e.name,
                    value=e.new,
                    old=e.old,
                    line=e.step.location.line,
                    phase=self._phase,
                )
            )

    def _step_started(self, e: ev.StepStarted) -> None:
        self._step_index = e.index
        self._phase = e.phase
        self._branch, self._auto = None, []

    def _branch_taken(self, e: ev.BranchTaken) -> None:
        branches = getattr(e.step, "branches", ())
        if e.branch is None:
            self._branch = "none"
        elif e.branch < len(branches):
            chosen = branches[e.branch]
            self._branch = f"{chosen.keyword} {chosen.text}".rstrip()

    def _auto_test_ran(self, e: ev.AutoTestRan) -> None:
        self._auto.append(
            {
                "kind": e.kind,
                "type": e.test_type,
                "description": e.description,
                "status": ev.PASSED if e.passed else ev.FAILED,
                "message": e.message,
            }
        )

    def _request_sent(self, e: ev.RequestSent) -> None:
        self.requests += 1
        self._last = Exchange(self._step_index, e.method, e.url, e.headers, e.body, operation=e.operation)

    def _response_received(self, e: ev.ResponseReceived) -> None:
        last = self._last
        if last is not None:
            last.status, last.reason, last.response_headers = e.status, e.reason, e.headers
            last.body, last.elapsed = e.body, e.elapsed

    def _step_finished(self, e: ev.StepFinished) -> None:
        scenario = self._current
        if scenario is None:
            return
        last = self._last
        own = last if last is not None and last.index == e.index and e.status != ev.SKIPPED else None
        operation = own.operation if own is not None else None
        step = StepRecord(
            e.step.location.line,
            e.step.keyword,
            step_text(e.step),
            e.status,
            e.message,
            e.phase,
            e.elapsed,
            tuple(i.location.line for i in e.via),
            operation,
            step_label(e.step),
            getattr(self, "_branch", None),
            list(getattr(self, "_auto", [])),
            own.kept(scenario.error_context.max_body_size) if own is not None else None,
        )
        scenario.steps.append(step)
        if e.status == ev.FAILED and scenario.failed_step is None:
            scenario.failed_step = step
            # A `then:`/`extract:` failure is about the last response; a `when:` failure only
            # about its own request (none when it failed before sending, e.g. undefined variable).
            if last is not None and (e.step.keyword not in ("when", "call") or last.index == e.index):
                scenario.exchange = last

    def _scenario_finished(self, e: ev.ScenarioFinished) -> None:
        scenario = self._current
        if scenario is None or self._current_node is not e.scenario:
            # Not started (not selected by tags): no steps.
            scenario = ScenarioRecord(
                e.file.path, e.scenario.name, e.feature.name if e.feature else None, e.scenario.location.line
            )
        scenario.status, scenario.message, scenario.elapsed = e.status, e.message, e.elapsed
        scenario.variables = e.snapshot.visible()
        scenario.finished = True
        self._file(e.file.path).scenarios.append(scenario)
        self.last = scenario
        self._current, self._current_node, self._last = None, None, None

    def _run_finished(self, e: ev.RunFinished) -> None:
        self.finish(e.interrupted, e.duration)

    _HANDLERS = {
        ev.RunStarted: _run_started,
        ev.FileStarted: _file_started,
        ev.ScenarioStarted: _scenario_started,
        ev.ScopeCreated: _scope_created,
        ev.ScopeCleared: _scope_cleared,
        ev.VariableExtracted: _variable_extracted,
        ev.VariableOverwritten: _variable_overwritten,
        ev.StepStarted: _step_started,
        ev.BranchTaken: _branch_taken,
        ev.AutoTestRan: _auto_test_ran,
        ev.RequestSent: _request_sent,
        ev.ResponseReceived: _response_received,
        ev.StepFinished: _step_finished,
        ev.ScenarioFinished: _scenario_finished,
        ev.RunFinished: _run_finished,
    }

    def finish(self, interrupted: bool, duration: float | None = None) -> None:
        """Close the record; also called by the runner when the stream ended without
        RunFinished (a second Ctrl+C), so the reports still say the run was interrupted."""
        if self.finished:
            self.interrupted = self.interrupted or interrupted
            return
        self.finished = True
        self.interrupted = interrupted
        self.duration = duration if duration is not None else time.perf_counter() - self._started

    # ---- reading

    @property
    def scenarios(self) -> list[ScenarioRecord]:
        return [s for f in self.files for s in f.scenarios]

    @property
    def running(self) -> ScenarioRecord | None:
        return self._current

    def counts(self) -> dict[str, int]:
        counts = {ev.PASSED: 0, ev.FAILED: 0, ev.SKIPPED: 0}
        for scenario in self.scenarios:
            counts[scenario.status] = counts.get(scenario.status, 0) + 1
        return counts

    @property
    def elapsed(self) -> float:
        return self.duration if self.duration is not None else time.perf_counter() - self._started


# ---------------------------------------------------------------- JSON (cli.md)


def json_report(recorder: RunRecorder, masker: Masker | None = None) -> dict[str, Any]:
    """The cli.md report; `"interrupted"` is always present (false on a complete run)."""
    masker = masker or Masker(enabled=False)
    counts = recorder.counts()
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
                "scenarios": [_json_scenario(s, masker, file.environment) for s in file.scenarios],
            }
            for file in recorder.files
        ],
        "interrupted": recorder.interrupted,
    }


def _json_scenario(scenario: ScenarioRecord, masker: Masker, file_environment: str | None = None) -> dict[str, Any]:
    return {
        "name": scenario.name,
        "feature": scenario.feature,
        "line": scenario.line,
        # Only where it differs from the file's (a feature or the scenario set its own).
        **({"environment": scenario.environment} if scenario.environment != file_environment else {}),
        "status": scenario.status,
        "steps": [
            {
                "line": s.line,
                "keyword": s.keyword,
                "status": s.status,
                "message": step_message(scenario, s, masker),
                # after cli.md's fields: the step as written (`call ^createPet`, `when: GET /pets`)
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
            }
            for s in scenario.steps
        ],
        # Cut before masking: the Masker walks values recursively, and json.dumps dies on a
        # response nested 1000 levels deep, which would take the whole report with it.
        "variables": _jsonable(masker.variables({k: cut_depth(v) for k, v in scenario.variables.items()})),
        # after cli.md's fields: how the scenario met the stores (semantics.md §3)
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
    response = None
    if exchange.status is not None:
        response = {
            "status": exchange.status,
            "reason": exchange.reason,
            "headers": [list(pair) for pair in masker.headers(exchange.response_headers)],
            "body": body(exchange.body, exchange.body_size),
            "elapsed_s": round(exchange.elapsed, 4) if exchange.elapsed is not None else None,
        }
    return {"request": request, "response": response}


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


def write_json_report(path: str | os.PathLike, recorder: RunRecorder, masker: Masker | None = None) -> None:
    text = json.dumps(json_report(recorder, masker), indent=2, ensure_ascii=False) + "\n"
    atomic_write(path, text.encode("utf-8"))


# ---------------------------------------------------------------- JUnit XML


def junit_report(recorder: RunRecorder, masker: Masker | None = None) -> ET.ElementTree:
    """`<testsuites>` holding a `<testsuite>` per feature and one per file for its standalone
    scenarios, in order of first appearance; a `<testcase>` per scenario.

    classname is `PATH.FEATURE` (just PATH for standalone scenarios): Jenkins splits classname at
    its last dot into package and class, which gives package = the file, class = the feature.
    """
    import xml.etree.ElementTree as ET

    masker = masker or Masker(enabled=False)
    root = ET.Element("testsuites", name="scenario-tui")
    totals = {"tests": 0, "failures": 0, "skipped": 0, "time": 0.0}
    for file in recorder.files:
        groups: dict[str | None, list[ScenarioRecord]] = {}
        for scenario in file.scenarios:
            groups.setdefault(scenario.feature, []).append(scenario)
        for feature, scenarios in groups.items():
            suite = _junit_suite(root, file.path, feature, scenarios, masker)
            for key in ("tests", "failures", "skipped"):
                totals[key] += int(suite.get(key))
            totals["time"] += float(suite.get("time"))
    root.set("tests", str(totals["tests"]))
    root.set("failures", str(totals["failures"]))
    root.set("errors", "0")
    root.set("skipped", str(totals["skipped"]))
    root.set("time", f"{recorder.elapsed:.3f}")
    if recorder.interrupted:
        # Not a standard attribute, but readers ignore unknown ones; the interrupted scenario
        # itself is a <failure message="...interrupted">.
        root.set("interrupted", "true")
    # Names, messages and bodies come from files and servers: a NUL, an ESC or U+FFFE would make
    # the file unreadable for every CI server (ElementTree writes them as they are).
    for element in root.iter():
        if element.text:
            element.text = xml_safe(element.text)
        for name, value in element.attrib.items():
            element.set(name, xml_safe(value))
    ET.indent(root)
    return ET.ElementTree(root)


def _junit_suite(
    root: ET.Element, path: str, feature: str | None, scenarios: list[ScenarioRecord], masker: Masker
) -> ET.Element:
    import xml.etree.ElementTree as ET

    failures = sum(s.status == ev.FAILED for s in scenarios)
    skipped = sum(s.status == ev.SKIPPED for s in scenarios)
    elapsed = sum(s.elapsed for s in scenarios)
    suite = ET.SubElement(
        root,
        "testsuite",
        {
            "name": path if feature is None else f"{path} :: {feature}",
            "tests": str(len(scenarios)),
            "failures": str(failures),
            "errors": "0",
            "skipped": str(skipped),
            "time": f"{elapsed:.3f}",
            "file": path,
        },
    )
    classname = path if feature is None else f"{path}.{feature}"
    for scenario in scenarios:
        case = ET.SubElement(
            suite,
            "testcase",
            {
                "classname": classname,
                "name": scenario.name,
                "time": f"{scenario.elapsed:.3f}",
                "file": path,
                "line": str(scenario.line),
            },
        )
        if scenario.status == ev.FAILED:
            failure = ET.SubElement(
                case,
                "failure",
                {"message": masker.text(failure_message(scenario)) or "failed", "type": "ScenarioFailed"},
            )
            failure.text = "\n".join(failure_details(scenario, masker))
        elif scenario.status == ev.SKIPPED:
            ET.SubElement(case, "skipped", {"message": masker.text(scenario.message) or "skipped"})
    return suite


def failure_message(scenario: ScenarioRecord) -> str:
    step = scenario.failed_step
    if step is not None and step.message:
        return f"line {step.line}: {step.message}"
    return scenario.message or "failed"


def failure_step_lines(scenario: ScenarioRecord, masker: Masker) -> list[str]:
    """The failing step (`line 14  then: status 200`) and its message, masked."""
    step = scenario.failed_step
    if step is None:
        return [masker.text(scenario.message) or "failed"]
    where = f"line {step.line}"
    if step.via:
        where += " (included at line " + ", ".join(map(str, step.via)) + ")"
    return [
        f"{where}  {masker.text(step.label or f'{step.keyword}: {step.text}')}",
        masker.text(step.message) or "failed",
    ]


def step_message(scenario: ScenarioRecord, step: StepRecord, masker: Masker) -> str | None:
    """A step's message; for the failed step, followed by the bodies errorContext.* asks for,
    `… · request body: {…} · response body: {…}` (a message stays one line: line breaks and runs
    of spaces in a body become one space)."""
    message = masker.text(step.message)
    if step is scenario.failed_step and message is not None and scenario.exchange is not None:
        context = error_context_lines(scenario.exchange, scenario.error_context, masker, one_line=True)
        if context:
            message = " · ".join([message] + context)
    return message


def failure_details(scenario: ScenarioRecord, masker: Masker, body_lines: int = BODY_LINES) -> list[str]:
    """The failing step, its message, the request/response line and the bodies errorContext.*
    asks for: what a CI log shows."""
    lines = failure_step_lines(scenario, masker)
    if scenario.exchange is not None:
        lines.append(exchange_head(scenario.exchange, masker))
        lines.extend(error_context_lines(scenario.exchange, scenario.error_context, masker))
    return lines


def write_junit_report(path: str | os.PathLike, recorder: RunRecorder, masker: Masker | None = None) -> None:
    import xml.etree.ElementTree as ET

    tree = junit_report(recorder, masker)
    data = ET.tostring(tree.getroot(), encoding="utf-8", xml_declaration=True) + b"\n"
    atomic_write(path, data)


# ---------------------------------------------------------------- writing


class ReportPathError(OSError):
    """A report path that must not be written: not a regular file, or its directory is missing."""


# Temporary files are `.NAME.scenario-tui-PID-RANDOM.tmp` next to the report: the PID lets a
# later run remove the ones a killed run (kill -9) left behind, and only those.
_TEMP_PREFIX = ".scenario-tui-"


def report_target(path: str | os.PathLike) -> Path:
    """The file a report at PATH replaces: PATH itself, or the file a symlink points to (the
    link is kept). Raises ReportPathError for anything but a regular file or a path to be
    created in an existing directory: renaming over a device, a FIFO or a socket would replace
    the node itself (as root, /dev/null), and a symlink to a directory is no report file."""
    target = Path(os.path.realpath(path))
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise ReportPathError(f"{os.fspath(path)}: {error.strerror or error}") from None
    if mode is not None:
        import stat

        if stat.S_ISDIR(mode):
            raise ReportPathError(f"{os.fspath(path)} is a directory")
        if not stat.S_ISREG(mode):
            raise ReportPathError(f"{os.fspath(path)} is not a regular file (a device, FIFO or socket)")
    if not target.parent.is_dir():
        raise ReportPathError(f"{os.fspath(path)}: directory {target.parent} does not exist")
    return target


def atomic_write(path: str | os.PathLike, data: bytes) -> None:
    """Write to a temporary file in the same directory (so the rename never crosses file
    systems), fsync it, then os.replace it over PATH (over a symlink's target: the link stays):
    a reader sees the old file or the whole new one, never a partial one. The temporary file is
    removed whatever interrupts the write, Ctrl+C included; only kill -9 can leave one, and the
    next write to the same report removes it."""
    import secrets

    target = report_target(path)  # again: the path may have changed since the run started
    directory = target.parent
    _remove_stale_temporaries(target)
    temp = directory / f".{target.name}{_TEMP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}.tmp"
    # The name is chosen before the file exists, so the cleanup below knows it whatever line
    # an interrupt lands on (mkstemp would only return it after creating the file).
    fd = None
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, _mode_for(target))  # created 0600; a report is for sharing
        os.replace(temp, target)
    except BaseException as error:
        if not (fd is None and isinstance(error, FileExistsError)):  # that one is someone else's
            _unlink(temp)
        raise
    _fsync_directory(directory)


def _unlink(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _remove_stale_temporaries(target: Path) -> None:
    """Remove temporary files of this report left by scenario-tui processes that no longer run."""
    if os.name != "posix":  # os.kill(pid, 0) would terminate the process on Windows
        return
    import re

    pattern = re.compile(re.escape(f".{target.name}{_TEMP_PREFIX}") + r"(\d+)-[0-9a-f]{8}\.tmp")
    try:
        names = os.listdir(target.parent)
    except OSError:
        return
    for name in names:
        match = pattern.fullmatch(name)
        if match is None or int(match.group(1)) == os.getpid():
            continue
        try:
            os.kill(int(match.group(1)), 0)
            continue  # alive (or not ours to signal): it may be writing right now
        except ProcessLookupError:
            _unlink(target.parent / name)
        except (PermissionError, OverflowError, ValueError):
            continue


def _mode_for(target: Path) -> int:
    try:
        return target.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _fsync_directory(directory: Path) -> None:
    """Make the rename itself durable (POSIX); best effort elsewhere."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
