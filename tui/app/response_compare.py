"""`d`: the response of the step on view against the same step's earlier response — of the previous
run in this session (the history keeps it when `r` restarts), else of a JSON report loaded from
the command palette (`run --report-json` writes each step's response). The same step is the same
file, feature, scenario (and outline row) and the n-th request of that scenario. The diff itself
is response_diff's; this finds what to compare and opens the viewer."""

from __future__ import annotations

import json
import os
from typing import Any, Sequence

from textual.app import App

from scenario_core.language.errors import UsageError
from scenario_core.language.parser import read_input
from scenario_core.run.stepper import StepRun
from scenario_tui.app.history import History
from scenario_tui.widgets.display import Display
from scenario_tui.widgets.inspector_request import path_of
from scenario_tui.widgets.report_prompt import ReportPrompt
from scenario_tui.widgets.response_diff import Body, diff_lines
from scenario_tui.widgets.value_viewer import ValueViewer

Where = tuple[str, str | None, str, int | None]  # file, feature, scenario, outline row
REPORT_BYTES = 64 * 1024 * 1024


class ResponseCompare:
    """Part of the app: `d` and the palette's "Compare responses with a JSON report"."""

    def __init__(self, app: App[int], display: Display, history: History) -> None:
        self.app = app
        self.display = display
        self.history = history  # this run's steps, and the previous run's
        self.report: dict[tuple[Where, int], Body] = {}  # a loaded report's responses, by step
        self.report_name = ""

    def open(self, run: StepRun | None) -> None:
        """The diff of `run`'s response (a then:/extract:: the response it read), or why not."""
        runs, previous = self.history.runs, self.history.previous
        sent = _responding(run, runs)
        if sent is None or sent.response is None:
            self.app.notify("d compares a response: highlight a step that sent a request or read one.")
            return
        key = next(k for k, r in _keyed(runs).items() if r is sent)
        earlier = _keyed(previous).get(key)
        (file, feature, scenario, _), index = key
        in_report = self.report.get(key) or self.report.get(((file, feature, scenario, None), index))
        if earlier is not None:
            old, against = _body(earlier), "the previous run in this session"
        elif in_report is not None:
            old, against = in_report, f"the report {self.report_name}"
        else:
            self.app.notify(
                "No earlier response of this step to compare: r runs again (this run is kept to compare),"
                " or load a JSON report (command palette: compare with a report).",
                severity="warning",
            )
            return
        new = _body(sent)
        step = sent.step
        title = f"Response changes · {step.keyword} line {step.location.line} · {new.request}"
        self.app.push_screen(ValueViewer(self.display.line(title), lambda: diff_lines(old, new, against, self.display)))

    def ask_for_report(self) -> None:
        """The palette's command: the report's path, then `load`."""
        self.app.push_screen(ReportPrompt(), lambda path: self.load(path) if path else None)

    def load(self, path: str) -> None:
        """Read a JSON report's responses (`run --report-json`); a one-line notice either way."""
        try:
            data = json.loads(read_input(path, "JSON report", REPORT_BYTES))
            self.report = _responses(data)
        except UsageError as error:
            self.app.notify(str(error), severity="error")
            return
        except (ValueError, TypeError, KeyError, AttributeError) as error:
            self.app.notify(f"{path}: not a JSON report of run --report-json ({error})", severity="error")
            return
        self.report_name = os.path.basename(path)
        count = len(self.report)
        if not count:
            self.app.notify(
                f"{path}: the report holds no response (written before reports kept them?)", severity="warning"
            )
            return
        self.app.notify(f"{self.report_name}: {count} response{'s' if count != 1 else ''} to compare with (d)")


def _responding(run: StepRun | None, runs: Sequence[StepRun]) -> StepRun | None:
    """The run that received the response `run` shows: itself, or the request a check read."""
    if run is None or run.response is not None:
        return run
    if run.read_response is None:
        return None
    return next((r for r in reversed(runs) if r.response is run.read_response), None)


def _where(run: StepRun) -> Where:
    scenario = run.scenario
    row = scenario.outline.row if scenario.outline is not None else None
    return (_file(scenario.location.file), run.feature.name if run.feature else None, scenario.name, row)


def _keyed(runs: Sequence[StepRun]) -> dict[tuple[Where, int], StepRun]:
    """The runs that received a response, by where they ran and which request of that scenario's
    run each was (0: the first)."""
    found: dict[tuple[Where, int], StepRun] = {}
    counts: dict[Where, int] = {}
    for run in runs:
        if run.response is None:
            continue
        where = _where(run)
        index = counts.get(where, 0)
        counts[where] = index + 1
        found[(where, index)] = run
    return found


def _file(path: str) -> str:
    return os.path.basename(path)


def _body(run: StepRun) -> Body:
    response = run.response
    assert response is not None
    content_type = next((value for name, value in response.headers if name.lower() == "content-type"), "")
    request = f"{run.request.method} {path_of(run.request.url)}" if run.request is not None else ""
    return Body(response.status, response.body.encode("utf-8"), content_type, request)


def _responses(data: Any) -> dict[tuple[Where, int], Body]:
    """Each step response of a JSON report, by where it ran and which request of its scenario it was."""
    found: dict[tuple[Where, int], Body] = {}
    for file in data["files"]:
        for scenario in file["scenarios"]:
            where: Where = (_file(file["path"]), scenario.get("feature"), scenario["name"], scenario.get("row"))
            index = 0
            for step in scenario.get("steps", ()):
                response = step.get("response")
                if not isinstance(response, dict):
                    continue
                body = response.get("body")
                is_text = isinstance(body, str)
                content = (body if isinstance(body, str) else json.dumps(body)).encode("utf-8")
                headers = response.get("headers") or []
                content_type = next((v for n, v in headers if str(n).lower() == "content-type"), "")
                if not is_text and "json" not in content_type.lower():
                    content_type = "application/json"
                found[(where, index)] = Body(int(response["status"]), content, content_type)
                index += 1
    return found
