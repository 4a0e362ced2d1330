"""The HTML report of real runs against the demo API: escaping of what files and servers send,
the scope timeline's content, masking, no external reference, the interrupted banner, the
`run --report-html` option, and the page as headless Chromium reads it (skipped without one)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from html.parser import HTMLParser
from pathlib import Path

import pytest

from scenario_core.language.parser import load_file
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.report.html import BODY_CHARS, html_report, write_html_report
from scenario_core.report.masking import MASK, Masker
from scenario_core.report.recorder import RunRecorder
from scenario_core.report.records import Exchange, FileRecord, ScenarioRecord, StepRecord
from scenario_core.run.events import RequestSent
from scenario_core.run.executor import Execution, run_to_completion
from scenario_core.run.options import RunOptions

SCOPES = """
parameters:
  shareVariablesAcrossScenarios: true

scenario: opening
  when: POST /echo
    body: {"id": 1}
  extract: first from $.json.id

feature: Own
  parameters:
    shareVariablesAcrossScenarios: true
  scenario: create
    when: POST /echo
      body: {"id": 7}
    extract: petId from $.json.id
  scenario: again
    when: POST /echo
      body: {"id": 8}
    extract: petId from $.json.id

feature: Apart
  parameters:
    shareVariablesAcrossScenarios: false
  scenario: isolated one
    when: GET /health

scenario: closing
  when: GET /health
"""

HOSTILE = """
feature: <i>f</i>
  scenario: <b>name</b>
    when: POST /echo
      headers:
        X-Evil: <img src=x onerror=alert(1)>
      body: {"html": "<script>alert(1)</script>"}
    extract: html from $.json.html
    then: $.json.html == "nope"
"""


class Cells(HTMLParser):
    """The text of every cell of every `table.timeline`, row by row."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self._in_timeline = False
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table" and ("class", "timeline") in attrs:
            self._in_timeline = True
        elif self._in_timeline and tag == "tr":
            self.rows.append([])
        elif self._in_timeline and tag in ("td", "th"):
            self._cell = []
        elif tag == "div" and self._cell is not None:
            self._cell.append(" ")  # one line of a cell each

    def handle_endtag(self, tag):
        if tag == "table":
            self._in_timeline = False
        elif tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def timeline(page: str) -> list[list[str]]:
    cells = Cells()
    cells.feed(page)
    return cells.rows


def recorded(paths, demo, run_variables=None, masker=None):
    events = run_to_completion([str(p) for p in paths], RunOverrides.from_cli([], demo.url, None), run_variables or {})
    recorder = RunRecorder()
    for event in events:
        if masker is not None:
            masker.feed(event)
        recorder.feed(event)
    return recorder


def test_the_timeline_shows_stores_as_lanes_with_what_each_scenario_carried_extracted_and_what_was_cleared(
    demo, write_scenario
):
    page = html_report(recorded([write_scenario(SCOPES)], demo))
    rows = timeline(page)
    assert rows[0] == ["scenario", "scenario layer", "file store", "feature 'Own'"]
    body = rows[1:]
    assert (
        body[0][0].startswith("passed opening")
        and body[0][2] == "created, empty starts with nothing + first = 1 line 7"
    )
    assert body[1] == ["feature Own begins"]
    create = body[2]
    assert create[0].startswith("passed create")
    assert create[2] == ""  # the feature's own store: the file store is not touched
    assert create[3] == "created, empty starts with nothing + petId = 7 line 15"
    again = body[3]
    assert again[3] == "carried in: petId petId: 7 → 8 line 19"  # overwritten, old → new
    assert body[4] == ["feature Own ends", "", "cleared: petId"]
    assert body[5] == ["feature Apart begins"]
    assert body[6][1] == "isolated: no store" and body[6][2:] == ["", ""]
    assert body[7] == ["feature Apart ends · nothing cleared", "", ""]
    closing = body[8]
    assert closing[2] == "carried in: first"  # the file store outlived both features
    assert body[9] == ["file ends", "cleared: first", ""]
    assert 'data-lane="feature &#x27;Own&#x27;"' in page


def test_what_a_file_or_a_server_sends_is_escaped(demo, write_scenario):
    page = html_report(recorded([write_scenario(HOSTILE)], demo))
    assert re.search(r"<script|<img|<b>name|<i>f", page, re.IGNORECASE) is None
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # in the body, the message and the variables
    assert "&lt;img src=x onerror=alert(1)&gt;" in page  # the request header
    assert "&lt;b&gt;name&lt;/b&gt;" in page and "feature: &lt;i&gt;f&lt;/i&gt;" in page


def _hand_made(body: str, message: str, interrupted: bool = False) -> RunRecorder:
    """A recorder filled by hand, for what the demo server cannot send (control characters)."""
    recorder = RunRecorder()
    exchange = Exchange(0, "GET", "/x", (("X-Note", "a\x1b[2Jb"),), None, 500, "Error", (), body, 0.01)
    step = StepRecord(3, "when", "GET /x", "failed", message, "scenario", 0.0, label="when: GET /x", exchange=exchange)
    scenario = ScenarioRecord(
        "x.scenario",
        "s\u202egnp.exe",
        None,
        1,
        status="failed",
        message=message,
        steps=[step],
        failed_step=step,
        finished=True,
    )
    recorder.files.append(FileRecord("x.scenario", [scenario]))
    recorder.finish(interrupted, 0.1)
    return recorder


def test_control_characters_are_shown_as_escapes():
    page = html_report(_hand_made("line one\n\x1b]0;title\x07 \x00 end", "got \x1b[2J"))
    assert "\x1b" not in page and "\x00" not in page and "\u202e" not in page
    assert "line one\n\\x1b]0;title\\x07 \\x00 end" in page  # a body keeps its line breaks
    assert "got \\x1b[2J" in page and "a\\x1b[2Jb" in page and "s\\u202egnp.exe" in page


def test_the_page_refers_to_nothing_outside_itself():
    page = html_report(_hand_made("plain", "failed"))
    # No URL at all in a report whose data holds none: no stylesheet, font, script or image to fetch.
    assert re.search(r"https?:|//|@import|url\(", page.replace("http-equiv", "")) is None
    # links only within the page (the failure list's anchors)
    assert re.search(r"<(script|link|img|iframe|object|embed)\b|\bsrc=|\bhref=(?!\"#)", page) is None
    assert 'href="#scenario-0-0"' in page
    assert "default-src 'none'" in page  # and the browser is told to load nothing anyway


def test_interrupted_runs_get_a_banner(demo, write_scenario, tmp_path):
    assert 'id="interrupted"' not in html_report(_hand_made("b", "m"))
    path = write_scenario("""
        scenario: quick
          when: GET /health
        scenario: slow
          when: GET /slow?ms=5000
    """)
    execution = Execution([load_file(str(path))], RunOptions(overrides=RunOverrides.from_cli([], demo.url, None)))
    recorder = RunRecorder()

    stopper = threading.Timer(0.2, execution.stop)  # from another thread, while the request waits
    for event in execution.events():
        recorder.feed(event)
        if isinstance(event, RequestSent) and "/slow" in event.url:
            stopper.start()
    stopper.join()
    write_html_report(tmp_path / "r.html", recorder)
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert 'id="interrupted"' in page and "Run interrupted" in page
    assert sorted(os.listdir(tmp_path)) == ["r.html", "test.scenario"]  # written whole, no temporary file


def test_secrets_are_masked(demo, write_scenario):
    path = write_scenario("""
        scenario: login
          when: POST /login
            body: {"username": "ann", "password": "pw"}
          extract: token from $.token
          when: GET /pets
            headers:
              Authorization: Bearer {{token}}
    """)
    masker = Masker()
    page = html_report(recorded([path], demo, {"apiKey": "run-secret-value"}, masker), masker)
    (token,) = demo._server.state.tokens
    assert token not in page and "run-secret-value" not in page
    assert f"Bearer {MASK}" in page and MASK in page


# ---------------------------------------------------------------- the command line

SCRIPT = Path(sys.executable).with_name("scenario-tui")


def test_run_report_html_option_writes_the_page(demo, write_scenario, tmp_path):
    path = write_scenario(SCOPES)
    report = tmp_path / "out" / "report.html"
    report.parent.mkdir()
    result = subprocess.run(
        [
            str(SCRIPT),
            "run",
            str(path),
            "--base-url",
            demo.url,
            "--report-html",
            str(report),
            "--report-json",
            str(tmp_path / "r.json"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    page = report.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "cleared: petId" in " ".join(page.split())
    assert os.listdir(report.parent) == ["report.html"]  # no temporary file left
    # The same path checks as the other reports: one line, exit 2, nothing run.
    clash = subprocess.run(
        [str(SCRIPT), "run", str(path), "--base-url", demo.url, "--report-html", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert clash.returncode == 2 and clash.stdout == ""
    assert clash.stderr.strip().splitlines() == [
        f"scenario-tui: error: --report-html: {path} is an input of this run (a scenario or OpenAPI file); "
        "give the report another name"
    ]


# ---------------------------------------------------------------- in a real browser

CHROMIUM = next(
    (found for name in ("chromium", "chromium-browser", "google-chrome") if (found := shutil.which(name))), None
)


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH")
def test_chromium_reads_the_page_as_intended(demo, write_scenario, tmp_path):
    scopes = write_scenario(SCOPES)
    hostile = write_scenario(HOSTILE, "hostile.scenario")
    report = tmp_path / "report.html"
    write_html_report(report, recorded([scopes, hostile], demo))
    result = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--dump-dom",
            report.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    dom = result.stdout
    assert "<main>" in dom, result.stderr[-2000:]
    # The browser built the document we meant: two files, the summary, the lanes, the clears...
    assert len(re.findall(r'<section class="file"', dom)) == 2
    assert re.search(r'<b data-count="scenarios">6</b>', dom)
    assert re.search(r'<b data-count="failed">1</b>', dom)
    assert dom.count('<table class="timeline">') == 2
    assert re.search(r'<td class="lane cleared" data-lane="feature \'Own\'">cleared: petId</td>', dom)
    # ...and what the server sent stayed text: no element came out of it.
    assert re.search(r"<script|<img", dom, re.IGNORECASE) is None
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom


def test_a_files_count_of_one_scenario_is_singular():
    page = html_report(_hand_made("{}", "failed"))
    assert '<p class="counts">1 scenario: 0 passed, 1 failed, 0 skipped</p>' in page


def test_a_json_response_body_is_shown_indented_and_a_long_one_cut():
    page = html_report(_hand_made('{"name": "Rex", "tags": ["a"]}', "failed"))
    assert "{\n  &quot;name&quot;: &quot;Rex&quot;,\n  &quot;tags&quot;: [\n    &quot;a&quot;\n  ]\n}" in page
    page = html_report(_hand_made("y" * 40_000, "failed"))
    assert "y" * BODY_CHARS + "\n… (40,000 characters in all: the JSON report has the rest)" in page
    assert "y" * (BODY_CHARS + 1) not in page
