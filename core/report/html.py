"""`run --report-html PATH`: the run as one self-contained HTML page -- a summary, every file,
feature and scenario with its steps, requests and responses, and per file the scope timeline:
the stores as lanes, what each scenario carried in, extracted and overwrote, and what was cleared
at each feature's and the file's end (docs/spec/scopes.md#scope-events).

Decisions:
- Rendered from `json_report`'s dict, so the page shows exactly what the JSON report holds, masked
  by the same Masker; nothing is decided twice.
- Self-contained and inert: inline CSS, no script (expanding is `<details>`), no external URL, and
  a Content-Security-Policy that forbids loading or running anything, should a page be opened
  from a hostile place.
- Everything that comes from a file or a server is HTML-escaped, after its control characters are
  written as escapes (`\\x1b`), as everywhere else in the tool (printable.py).
"""

from __future__ import annotations

import json
import os
from html import escape
from typing import TYPE_CHECKING, Iterable

from scenario_core.report.coverage_html import coverage_section
from scenario_core.report.html_overview import failure_list, run_facts, scenario_anchor
from scenario_core.report.json_report import json_report
from scenario_core.report.masking import Masker
from scenario_core.report.recorder import RunRecorder
from scenario_core.report.writing import atomic_write
from scenario_core.support.plural import counted
from scenario_core.support.printable import visible, visible_block

if TYPE_CHECKING:
    from scenario_core.report.json_shapes import (
        ReportFile,
        ReportRequest,
        ReportResponse,
        ReportScenario,
        ReportScopeEvent,
        ReportStep,
    )

VALUE_CHARS = 120  # a value in the timeline; the JSON report has it whole
BODY_CHARS = 16 * 1024  # a response body on the page; the JSON report keeps up to 64 KiB


def text(value: object) -> str:
    """One line from a file or a server, safe in HTML text and in a quoted attribute."""
    return escape(visible("" if value is None else str(value)), quote=True)


def block(value: str) -> str:
    """A body: its line breaks kept, every other control character an escape."""
    return escape(visible_block(value), quote=True)


def short_value(value: object) -> str:
    """A variable's value as JSON, cut for a table cell."""
    shown = json.dumps(value, ensure_ascii=False)
    if len(shown) > VALUE_CHARS:
        shown = shown[:VALUE_CHARS] + "…"
    return text(shown)


def html_report(recorder: RunRecorder, masker: Masker | None = None) -> str:
    report = json_report(recorder, masker)
    summary = report["summary"]
    parts = [_HEAD]
    parts.append("<header><h1>scenario-tui report</h1>")
    if report["interrupted"]:
        parts.append(
            '<div class="banner" id="interrupted">Run interrupted: scenarios not reached are not '
            "listed, the one running when it stopped is failed.</div>"
        )
    parts.append('<table class="summary" id="summary"><tr>')
    for key in ("scenarios", "passed", "failed", "skipped"):
        parts.append(f'<td class="{key}"><b data-count="{key}">{summary[key]}</b> {key}</td>')
    parts.append(f"<td><b>{summary['duration_s']:.2f}</b> s</td></tr></table>")
    parts.extend(run_facts(report, recorder, masker or Masker(enabled=False)))
    parts.extend(failure_list(report))
    parts.append("</header><main>")
    for index, file in enumerate(report["files"]):
        parts.extend(_file(file, index))
    if "coverage" in report:  # run --coverage
        parts.extend(coverage_section(report["coverage"]))
    parts.append("</main></body></html>\n")
    return "".join(parts)


def write_html_report(path: str | os.PathLike[str], recorder: RunRecorder, masker: Masker | None = None) -> None:
    atomic_write(path, html_report(recorder, masker).encode("utf-8", "backslashreplace"))


# ---------------------------------------------------------------- a file


def _file(file: ReportFile, index: int) -> Iterable[str]:
    scenarios = file["scenarios"]
    counts = {k: sum(s["status"] == k for s in scenarios) for k in ("passed", "failed", "skipped")}
    yield f'<section class="file" id="file-{index}"><h2>{text(file["path"])}</h2>'
    yield (
        f'<p class="counts">{counted(len(scenarios), "scenario")}: {counts["passed"]} passed, '
        f"{counts['failed']} failed, {counts['skipped']} skipped</p>"
    )
    if not scenarios:
        yield '<p class="empty">No scenario ran.</p></section>'
        return
    yield from _timeline(scenarios)
    feature: object = object()
    for number, scenario in enumerate(scenarios):
        if scenario["feature"] != feature:
            feature = scenario["feature"]
            if feature is not None:
                yield f'<h3 class="feature">feature: {text(feature)}</h3>'
            elif number:
                yield '<h3 class="feature">standalone scenarios</h3>'
        yield from _scenario(scenario, scenario_anchor(index, number))
    yield "</section>"


def _scenario(scenario: ReportScenario, anchor: str) -> Iterable[str]:
    status = scenario["status"]
    opened = " open" if status in ("failed", "error") else ""
    yield (
        f'<details class="scenario {status}" id="{anchor}"{opened}><summary><span class="badge {status}">{status}</span> '
        f'<span class="name">{text(scenario["name"])}</span> <span class="where">line {scenario["line"]}</span>'
        "</summary>"
    )
    if scenario["steps"]:
        yield '<ol class="steps">'
        for step in scenario["steps"]:
            yield from _step(step)
        yield "</ol>"
    else:
        yield '<p class="empty">No step ran (not selected by tags).</p>'
    if scenario["variables"]:
        yield '<table class="variables"><tr><th>variable at the end</th><th>value</th></tr>'
        for name, value in scenario["variables"].items():
            yield f"<tr><td>{text(name)}</td><td><code>{short_value(value)}</code></td></tr>"
        yield "</table>"
    yield "</details>"


def _step(step: ReportStep) -> Iterable[str]:
    status = step["status"]
    yield (
        f'<li class="step {status}"><span class="line">{step["line"]}</span> '
        f'<code class="label">{text(step["label"])}</code> <span class="badge {status}">{status}</span>'
    )
    if step.get("branch"):
        yield f' <span class="branch">took: {text(step["branch"])}</span>'
    if step["message"]:
        yield f'<div class="message">{text(step["message"])}</div>'
    request = step.get("request")
    if request is not None:
        response = step.get("response")
        head = f"{text(request['method'])} {text(request['url'])} → "
        if response is None:
            head += "no response"
        else:
            head += text(f"{response['status']} {response['reason']}".rstrip())
            if response["elapsed_s"] is not None:
                head += f" ({response['elapsed_s'] * 1000:.0f} ms)"
        yield f'<details class="exchange"><summary>{head}</summary>'
        yield from _message("request", request)
        if response is not None:
            yield from _message("response", response)
        yield "</details>"
    yield "</li>"


def _message(kind: str, message: ReportRequest | ReportResponse) -> Iterable[str]:
    yield f'<div class="{kind}"><h4>{kind}</h4><table class="headers">'
    for name, value in message["headers"]:
        yield f"<tr><td>{text(name)}</td><td>{text(value)}</td></tr>"
    yield "</table>"
    body = message["body"]
    if body is not None and body != "":
        if not isinstance(body, str):  # a JSON response body, as the JSON report holds it
            body = json.dumps(body, indent=2, ensure_ascii=False)
        if len(body) > BODY_CHARS:
            body = body[:BODY_CHARS] + f"\n… ({len(body):,} characters in all: the JSON report has the rest)"
        yield f'<pre class="body">{block(body)}</pre>'
    yield "</div>"


# ---------------------------------------------------------------- the scope timeline


def _lanes(scenarios: list[ReportScenario]) -> list[str]:
    """The file store, then each feature's own store, in order of first use."""
    lanes = ["file store"]
    for scenario in scenarios:
        for event in scenario["scope_events"]:
            store = event.get("store") or event.get("layer")
            if store and store != "scenario" and store not in lanes:
                lanes.append(store)
    return lanes


def _timeline(scenarios: list[ReportScenario]) -> Iterable[str]:
    lanes = _lanes(scenarios)
    width = len(lanes) + 2
    yield '<details class="timeline" open><summary>Scope timeline</summary><table class="timeline"><tr>'
    yield '<th>scenario</th><th class="lane-own">scenario layer</th>'
    for lane in lanes:
        yield f'<th class="lane" data-lane="{text(lane)}">{text(lane)}</th>'
    yield "</tr>"
    feature: object = object()
    for index, scenario in enumerate(scenarios):
        if scenario["feature"] != feature:
            feature = scenario["feature"]
            if feature is not None:
                yield (
                    f'<tr class="boundary begins"><td colspan="{width}">feature <b>{text(feature)}</b> begins</td></tr>'
                )
        yield from _timeline_row(scenario, lanes)
        following = scenarios[index + 1]["feature"] if index + 1 < len(scenarios) else object()
        cleared = [e for e in scenario["scope_events"] if e["event"] == "cleared"]
        if feature is not None and following != feature:
            yield from _boundary(
                f"feature <b>{text(feature)}</b> ends", [e for e in cleared if e["at"] == "feature end"], lanes
            )
        if index + 1 == len(scenarios):
            yield from _boundary("file ends", [e for e in cleared if e["at"] == "file end"], lanes)
    yield "</table></details>"


def _timeline_row(scenario: ReportScenario, lanes: list[str]) -> Iterable[str]:
    status = scenario["status"]
    cells: dict[str | None, list[str]] = {"scenario": [], **{lane: [] for lane in lanes}}
    last: dict[str | None, tuple[str, str | None]] = {}  # layer -> the last (kind, name) shown there
    store = None
    started = False
    for event in scenario["scope_events"]:
        kind = event["event"]
        if kind == "created":
            cells.setdefault(event["store"], []).append('<div class="created">created, empty</div>')
        elif kind == "started":
            started, store = True, event["store"]
            if store is not None:
                carried = ", ".join(text(n) for n in event["carried"])
                cells.setdefault(store, []).append(
                    f'<div class="carried">carried in: {carried}</div>'
                    if carried
                    else '<div class="carried">starts with nothing</div>'
                )
        elif kind == "extracted":
            where = " <i>(background)</i>" if event["phase"] != "scenario" else ""
            for layer in event["layers"]:
                if last.get(layer) == ("overwritten", event["name"]):
                    continue  # the overwrite line already says the new value
                cells.setdefault(layer, []).append(
                    f'<div class="extracted">+ {text(event["name"])} = <code>{short_value(event["value"])}</code>'
                    f'{where} <span class="where">line {event["line"]}</span></div>'
                )
                last[layer] = ("extracted", event["name"])
        elif kind == "overwritten":
            into = event["layer"]
            cells.setdefault(into, []).append(
                f'<div class="overwritten">{text(event["name"])}: <code>{short_value(event["old"])}</code> → '
                f'<code>{short_value(event["new"])}</code> <span class="where">line {event["line"]}</span></div>'
            )
            last[into] = ("overwritten", event["name"])
    own = cells["scenario"]
    if not started:
        own.insert(0, '<div class="idle">not run</div>')
    elif store is None:
        own.insert(0, '<div class="isolated">isolated: no store</div>')
    yield (
        f'<tr class="scenario {status}"><td><span class="badge {status}">{status}</span> '
        f'{text(scenario["name"])} <span class="where">line {scenario["line"]}</span></td>'
    )
    yield f'<td class="lane-own">{"".join(own)}</td>'
    for lane in lanes:
        active = " active" if lane == store else ""
        yield f'<td class="lane{active}" data-lane="{text(lane)}">{"".join(cells[lane])}</td>'
    yield "</tr>"


def _boundary(title: str, cleared: list[ReportScopeEvent], lanes: list[str]) -> Iterable[str]:
    by_store = {e["store"]: e["names"] for e in cleared}
    if not by_store:
        title += " · nothing cleared"
    yield f'<tr class="boundary ends"><td colspan="2">{title}</td>'
    for lane in lanes:
        if lane in by_store:
            names = ", ".join(text(n) for n in by_store[lane]) or "(it was empty)"
            yield f'<td class="lane cleared" data-lane="{text(lane)}">cleared: {names}</td>'
        else:
            yield f'<td class="lane" data-lane="{text(lane)}"></td>'
    yield "</tr>"


_HEAD = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>scenario-tui report</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 0 auto; max-width: 80em; padding: 0 1em 2em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; border-bottom: 1px solid #ccc; }
h3.feature { font-size: 1em; margin: 1em 0 .3em; }
code, pre { font-family: ui-monospace, monospace; font-size: 12.5px; }
pre.body { background: #f6f6f6; padding: .4em; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 30em; overflow: auto; }
.banner { background: #fde2b0; border: 1px solid #d98e04; padding: .5em 1em; margin-bottom: 1em; font-weight: bold; }
table { border-collapse: collapse; }
table.summary td { padding: .2em 1em .2em 0; } table.summary b { font-size: 1.3em; }
.badge { display: inline-block; border-radius: 3px; padding: 0 .4em; font-size: 11px; color: #fff; background: #777; }
.badge.passed { background: #2e7d32; } .badge.failed { background: #c62828; } .badge.skipped { background: #888; }
.summary .failed b { color: #c62828; } .summary .passed b { color: #2e7d32; }
details.scenario { border: 1px solid #ddd; border-radius: 4px; margin: .3em 0; padding: .2em .6em; }
details.scenario.failed { border-color: #e57373; }
summary { cursor: pointer; }
.where { color: #888; font-size: 12px; }
ol.steps { list-style: none; padding-left: 0; }
li.step { padding: .15em 0; border-top: 1px solid #eee; }
li.step .line { display: inline-block; min-width: 3em; color: #888; text-align: right; padding-right: .5em; }
li.step.skipped { color: #999; }
.message { color: #b71c1c; margin-left: 3.5em; overflow-wrap: anywhere; }
details.exchange { margin-left: 3.5em; } details.exchange summary { color: #0d47a1; overflow-wrap: anywhere; }
table.headers td, table.variables td, table.variables th { padding: 0 .8em 0 0; vertical-align: top; font-size: 12.5px; overflow-wrap: anywhere; }
table.coverage-table td, table.coverage-table th { padding: 0 .8em 0 0; text-align: left; font-size: 12.5px; }
tr.missing td:first-child { color: #b00020; }
table.facts th { text-align: left; padding-right: 1em; font-weight: normal; color: #555; }
nav.failures { border: 1px solid #e57373; border-radius: 4px; padding: .2em 1em; margin: .8em 0; }
nav.failures h2 { margin: .3em 0; border: none; } nav.failures .message { margin-left: 0; }
h4 { margin: .4em 0 .1em; font-size: 12px; text-transform: uppercase; color: #555; }
table.timeline { width: 100%; margin: .5em 0 1em; table-layout: fixed; }
table.timeline th, table.timeline td { border: 1px solid #ddd; padding: .25em .4em; vertical-align: top; font-size: 12.5px; overflow-wrap: anywhere; }
table.timeline th { background: #f0f0f0; }
td.lane.active { background: #e3f2fd; } td.lane.cleared { background: #ffebee; color: #b71c1c; }
tr.boundary td { background: #fafafa; font-style: italic; }
.isolated, .idle { color: #888; } .overwritten { color: #e65100; } .carried { color: #1565c0; } .created { color: #2e7d32; }
</style></head><body>
"""
