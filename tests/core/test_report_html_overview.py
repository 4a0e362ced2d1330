"""The top of the HTML report, from real runs against the demo API: when the run started and how
long it took, the base URL and environment, and a list of every failure whose links reach the
failed scenario's anchor; parsed as HTML, and read by headless Chromium when there is one."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest

from scenario_core.parameters.resolution import RunOverrides
from scenario_core.report.html import html_report
from scenario_core.report.html_overview import cut_at_word
from scenario_core.report.recorder import RunRecorder
from scenario_core.run.executor import run_to_completion

MIXED = """
parameters:
  environment: staging
feature: Pets
  scenario: lists pets
    when: GET /pets
    then: status 200
  scenario: wrong status
    when: GET /pets
    then: status 418
scenario: health
  when: GET /health
  then: $.status == "down"
"""


class Page(HTMLParser):
    """Ids, the failure list's links and texts, the facts table's cells."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: dict[str, str] = {}  # id -> class
        self.links: list[str] = []
        self.failure_texts: list[str] = []
        self.facts: dict[str, str] = {}
        self._nav = False
        self._fact: str | None = None

    def handle_starttag(self, tag, attrs):
        found = dict(attrs)
        if "id" in found:
            self.ids[found["id"]] = found.get("class") or ""
        if tag == "nav" and found.get("id") == "failures":
            self._nav = True
        if self._nav and tag == "a":
            self.links.append(found["href"])
        if tag == "td" and "data-fact" in found:
            self._fact = found["data-fact"]
            self.facts[self._fact] = ""

    def handle_endtag(self, tag):
        if tag == "nav":
            self._nav = False
        if tag == "td":
            self._fact = None

    def handle_data(self, data):
        if self._nav:
            self.failure_texts.append(data)
        if self._fact is not None:
            self.facts[self._fact] += data


def _recorded(path, demo) -> RunRecorder:
    recorder = RunRecorder()
    for event in run_to_completion([str(path)], RunOverrides.from_cli([], demo.url, None), {}):
        recorder.feed(event)
    return recorder


def _page(html: str) -> Page:
    page = Page()
    page.feed(html)
    return page


def test_html_report_top_shows_start_time_base_url_and_environment(demo, write_scenario):
    before = time.time()
    html = html_report(_recorded(write_scenario(MIXED), demo))
    page = _page(html)
    assert page.facts == {"base-url": demo.url, "environment": "staging"}
    stamp = html.split('<time datetime="')[1].split('"')[0]
    assert (
        stamp.endswith("+00:00")
        and abs(time.mktime(time.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S")) - before) < 2 * 86400
    )
    assert " UTC</time> · ran " in html


def test_html_report_without_an_environment_says_none_set(demo, write_scenario):
    page = _page(html_report(_recorded(write_scenario("scenario: s\n  when: GET /health\n"), demo)))
    assert page.facts["environment"].startswith("none set")
    assert "failures" in page.ids and page.links == []  # "No failures."


def test_html_report_lists_every_failure_linking_to_its_scenario(demo, write_scenario):
    page = _page(html_report(_recorded(write_scenario(MIXED), demo)))
    assert page.links == ["#scenario-0-1", "#scenario-0-2"]
    for link in page.links:  # each anchor is a failed scenario's <details> further down
        assert page.ids[link[1:]] == "scenario failed"
    text = " ".join("".join(page.failure_texts).split())
    assert "Failures (2)" in text and "test.scenario › Pets › wrong status" in text
    assert "wrong status line 9" in text and "test.scenario › health line 12" in text
    assert "expected status 418, got 200" in text and len(text) < 700  # messages cut, not the bodies whole


def test_a_long_failure_message_is_cut_after_a_whole_word():
    message = "expected status 201, got 500 " + " ".join(f"word{n}" for n in range(100))
    cut = cut_at_word(message, 60)
    assert len(cut) <= 60 and cut.endswith("…")
    assert message.startswith(cut[:-1]) and message[len(cut) - 1] == " "  # the next character starts a word
    json_body = "got " + '{"a": 1, "b": 2,"c": 3}' * 20
    cut = cut_at_word(json_body.replace(" ", ""), 40)
    assert cut.endswith(",…") is False and cut[-2] in "0123456789}"  # after a , the word before it is whole
    assert cut_at_word("x" * 100, 10) == "x" * 9 + "…"  # one long word: cut inside, nothing better
    assert cut_at_word("short", 10) == "short"


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH")
def test_html_report_failure_list_read_by_chromium(demo, write_scenario, tmp_path):
    report = tmp_path / "report.html"
    command = [Path(sys.executable).with_name("scenario-tui"), "run", str(write_scenario(MIXED))]
    result = subprocess.run(
        [*map(str, command), "--base-url", demo.url, "--report-html", str(report)], capture_output=True, timeout=60
    )
    assert result.returncode == 1
    # the page runs no script (its Content-Security-Policy forbids any): what Chromium reads is the page
    dom = subprocess.run(
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
    ).stdout
    page = _page(dom)
    assert page.links == ["#scenario-0-1", "#scenario-0-2"] and page.ids["scenario-0-1"] == "scenario failed"
    assert page.facts["environment"] == "staging" and page.facts["base-url"] == demo.url
