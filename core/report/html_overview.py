"""The top of the HTML report: when the run started and how long it took, the base URL and the
environment the files ran against, and every failure linked to its scenario further down.

Plain anchors and a table, no script: the page stays readable with scripts off (and its
Content-Security-Policy runs none). The failures come from `json_report`'s dict, like the rest of
the page; the start time and base URLs from the recorder, which keeps them for this page only.
"""

from __future__ import annotations

from datetime import datetime, timezone
from html import escape
from typing import TYPE_CHECKING, Iterable

from scenario_core.support.printable import visible

if TYPE_CHECKING:
    from scenario_core.report.json_shapes import JsonReport
    from scenario_core.report.masking import Masker
    from scenario_core.report.recorder import RunRecorder

FAILED = ("failed", "error")  # an error ends a scenario and counts as failed (docs/spec/cli.md#scenario-status)
MESSAGE_CHARS = 240  # a message in the list; the scenario below has it whole, with the bodies


def text(value: object) -> str:
    """One line from a file or a server, safe in HTML text and in a quoted attribute (as html.py)."""
    return escape(visible("" if value is None else str(value)), quote=True)


def scenario_anchor(file_index: int, number: int) -> str:
    return f"scenario-{file_index}-{number}"


def _distinct(values: Iterable[object]) -> list[str]:
    found: list[str] = []
    for value in values:
        if value is not None and str(value) not in found:
            found.append(str(value))
    return found


def run_facts(report: JsonReport, recorder: RunRecorder, masker: Masker) -> Iterable[str]:
    started = datetime.fromtimestamp(recorder.started_at, timezone.utc)
    base_urls = _distinct(masker.text(str(f.base_url)) if f.base_url is not None else None for f in recorder.files)
    environments = _distinct(
        value
        for file in report["files"]
        for value in (file.get("environment"), *(s.get("environment") for s in file["scenarios"]))
    )
    yield '<table class="facts" id="run-facts">'
    yield (
        f'<tr><th>started</th><td><time datetime="{started.isoformat(timespec="seconds")}">'
        f"{started:%Y-%m-%d %H:%M:%S} UTC</time> · ran {report['summary']['duration_s']:.2f} s</td></tr>"
    )
    shown = ", ".join(f"<code>{text(u)}</code>" for u in base_urls) or "none set"
    yield f'<tr><th>base URL</th><td data-fact="base-url">{shown}</td></tr>'
    shown = ", ".join(text(e) for e in environments) or "none set (no <code>environment</code> parameter)"
    yield f'<tr><th>environment</th><td data-fact="environment">{shown}</td></tr>'
    yield "</table>"


def cut_at_word(message: str, limit: int) -> str:
    """`message` in at most `limit` characters: whole, or cut after its last whole word that fits
    (after a space, or a `,` `;` inside a long token such as JSON), then `…`. Only a word longer
    than half the limit is cut inside."""
    if len(message) <= limit:
        return message
    head = message[: limit - 1]
    # where the next word would start: a space, or after , ; inside a long token
    breaks = [head.rfind(" ")] + [head.rfind(mark) + 1 for mark in ",;" if head.rfind(mark) >= 0]
    at = max(breaks)
    if at >= limit // 2:
        head = head[:at]
    return head.rstrip(" ,;:") + "…"


def failure_list(report: JsonReport) -> Iterable[str]:
    """Every failed scenario, in run order, linking to its `<details>` below with the first
    failing step's line and message."""
    failures = [
        (index, number, file, scenario)
        for index, file in enumerate(report["files"])
        for number, scenario in enumerate(file["scenarios"])
        if scenario["status"] in FAILED
    ]
    if not failures:
        yield '<p class="no-failures" id="failures">No failures.</p>'
        return
    yield f'<nav class="failures" id="failures"><h2>Failures ({len(failures)})</h2><ol>'
    for index, number, file, scenario in failures:
        where = [file["path"], *([scenario["feature"]] if scenario["feature"] is not None else []), scenario["name"]]
        step = next((s for s in scenario["steps"] if s["status"] in FAILED and s["message"]), None)
        yield (
            f'<li><a href="#{scenario_anchor(index, number)}">{" › ".join(text(w) for w in where)}</a> '
            f'<span class="where">line {step["line"] if step else scenario["line"]}</span>'
        )
        if step is not None:
            message = step["message"] or ""  # never empty: the step was chosen for its message
            message = cut_at_word(message, MESSAGE_CHARS)
            yield f'<div class="message">{text(message)}</div>'
        yield "</li>"
    yield "</ol></nav>"
