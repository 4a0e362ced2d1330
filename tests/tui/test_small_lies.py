"""Small lies: what `scenario-tui run` and its reports said that was not so. Each test runs
the whole command against a real loopback server (the demo API, or a tiny one of its own) and
reads what it printed and wrote."""

from __future__ import annotations

import json
import threading
import xml.etree.ElementTree as ET
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.tui.test_run_command import run

PETSTORE = Path(__file__).resolve().parents[2] / "core" / "demo" / "petstore.yaml"
# What could fake or reorder text on a screen or a CI page: a carriage return, the Unicode line and
# paragraph separators, a right-to-left override, a vertical tab, an escape.
SPOOFING = "a\rb\u2028c\u2029d\u202ee\x0bf\x1bg"
RAW_SPOOFING = ("\r", "\u2028", "\u2029", "\u202e", "\x0b", "\x1b")


def test_fail_fast_with_tags_names_the_tag_expression_not_a_function(demo, write_scenario):
    path = write_scenario(
        """
        @a
        scenario: first
          when: GET /status/500
          then: status 200
        @a
        scenario: second
          when: GET /health
        @b
        scenario: third
          when: GET /health
        """
    )
    result = run(str(path), "--base-url", demo.url, "--tags", "a", "--fail-fast")
    assert result.returncode == 1, result.stderr
    assert "– second  skipped: not run: --fail-fast stopped the run after a failure" in result.stdout
    assert "– third  skipped: not selected by tags (wanted a)" in result.stdout
    assert "<function" not in result.stdout


def test_retry_that_runs_out_shows_the_last_status_and_body(demo, write_scenario, tmp_path):
    path = write_scenario(
        """
        parameters:
          retry.maxAttempts: 2
          retry.delay: 1
        scenario: down
          when: GET /status/503
          then: status 200
        """
    )
    report = tmp_path / "r.json"
    result = run(str(path), "--base-url", demo.url, "--report-json", str(report))
    assert result.returncode == 1, result.stderr
    lines = [line.strip() for line in result.stdout.splitlines()]
    assert "503 Service Unavailable after 3 attempts (retry.maxAttempts: 2, file line 2)" in lines
    assert "no response" not in result.stdout
    exchange = next(line for line in lines if line.startswith("GET "))
    assert exchange.startswith(f"GET {demo.url}/status/503 → 503 Service Unavailable (")
    assert 'response body: {"status": 503}' in lines
    (when, then) = json.loads(report.read_text())["files"][0]["scenarios"][0]["steps"]
    assert (when["status"], when["response"]["status"], then["status"]) == ("failed", 503, "skipped")


def test_fail_inside_an_if_is_reported_at_the_fail_line(demo, write_scenario, tmp_path):
    path = write_scenario(
        f"""
        parameters:
          openapi: {PETSTORE}
        scenario: gone
          when I look for a pet
            call ^getPetById
              id: 999
            if status 404
              fail "pet 999 is gone"
          then: status 200
        """
    )
    report = tmp_path / "r.json"
    result = run(str(path), "--base-url", demo.url, "--report-json", str(report), "--report-junit", str(tmp_path / "j"))
    assert result.returncode == 1, result.stderr
    assert "      line 8  fail pet 999 is gone" in result.stdout.splitlines()
    scenario = json.loads(report.read_text())["files"][0]["scenarios"][0]
    failed = [s for s in scenario["steps"] if s["status"] == "failed"]
    assert [(s["line"], s["keyword"], s["branch"], s["message"].split(" · ")[0]) for s in failed] == [
        (8, "fail", "if status 404", "pet 999 is gone")
    ]
    skipped = scenario["steps"][-1]
    assert (skipped["status"], skipped["message"], skipped.get("branch")) == (
        "skipped",
        "skipped after the failure at line 8",
        None,
    )
    failure = ET.parse(tmp_path / "j").getroot().find("testsuite/testcase/failure")
    assert failure.get("message") == "line 8: pet 999 is gone"


class _Spoofing(BaseHTTPRequestHandler):
    """Answers every GET with a body and a header holding SPOOFING as raw characters."""

    def do_GET(self) -> None:
        body = f"spoofed {SPOOFING} end".encode()
        self.send_response(500)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def spoofing_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Spoofing)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_junit_report_shows_carriage_returns_line_separators_and_bidi_overrides_as_escapes(
    spoofing_server, write_scenario, tmp_path
):
    path = write_scenario(
        """
        scenario: spoof \u202egnp.exe
          when: GET /x
          then: status 200
        """
    )
    junit, html = tmp_path / "j.xml", tmp_path / "r.html"
    result = run(str(path), "--base-url", spoofing_server, "--report-junit", str(junit), "--report-html", str(html))
    assert result.returncode == 1, result.stderr
    case = ET.parse(junit).getroot().find("testsuite/testcase")  # still valid XML
    written = junit.read_text(encoding="utf-8")
    assert not [c for c in RAW_SPOOFING if c in written], written
    assert case.get("name") == "spoof \\u202egnp.exe"
    assert "spoofed a\\x0db\\u2028c\\u2029d\\u202ee\\x0bf\\x1bg end" in case.find("failure").text
    # the HTML report and the terminal show them as escapes too
    assert not [c for c in RAW_SPOOFING if c in html.read_text(encoding="utf-8")]
    assert not [c for c in RAW_SPOOFING if c in result.stdout + result.stderr]
    assert "spoofed a\\x0db\\u2028c\\u2029d\\u202ee\\x0bf\\x1bg end" in result.stdout


WEBHOOK_FLOOD = """\
scenario: flooded
  given a callback server
    webhook: events
      hook: created
      port: 0
  when: POST {{events.created}}
    body: {"n": 1}
  when: POST {{events.created}}
    body: {"n": 2}
  when: POST {{events.created}}
    body: {"n": 3}
  when: POST {{events.created}}
    body: {"n": 4}
  then: status 200
scenario: quiet
  given a callback server
    webhook: events
      hook: created
      port: 0
  when: POST {{events.created}}
    body: {"n": 1}
"""


def test_webhook_that_dropped_calls_says_so_in_one_line(demo, write_scenario, monkeypatch, capsys):
    """Past its cap a webhook drops its oldest calls (run.webhooks); the output says so once per
    hook, under its scenario, instead of nothing. The cap is lowered to 2 calls for the test."""
    from scenario_core.language.parser import load_file
    from scenario_core.parameters.resolution import RunOverrides
    from scenario_core.run import events as ev
    from scenario_core.run import webhooks
    from scenario_core.run.executor import run_to_completion
    from scenario_core.run.options import run_options
    from scenario_tui.cli.run_command import run_files

    monkeypatch.setattr(webhooks, "MAX_CALLS_KEPT", 2)
    path = write_scenario(WEBHOOK_FLOOD)
    status = run_files([load_file(str(path))], run_options(overrides=RunOverrides.from_cli([], demo.url, None)))
    out = capsys.readouterr().out
    assert status == 0, out
    note = (
        "webhook events: events.created dropped its oldest 2 of 4 calls (a webhook keeps its newest 2 calls and 64 MiB)"
    )
    lines = out.splitlines()
    assert [line for line in lines if "⚠" in line] == [f"      ⚠ {note}"]
    assert lines.index(f"      ⚠ {note}") == lines.index(next(line for line in lines if "✓ flooded" in line)) + 1
    events = run_to_completion([str(path)], RunOverrides.from_cli([], demo.url, None))
    dropped = [e for e in events if isinstance(e, ev.WebhookCallsDropped)]
    assert [(e.name, e.hook, e.dropped, e.received, e.message) for e in dropped] == [("events", "created", 2, 4, note)]
    assert isinstance(events[events.index(dropped[0]) + 1], ev.ScenarioFinished)


async def test_webhook_that_dropped_calls_says_so_in_the_scope_log(demo, write_scenario, monkeypatch, make_app, ui):
    from scenario_core.run import webhooks

    monkeypatch.setattr(webhooks, "MAX_CALLS_KEPT", 2)
    app = make_app(write_scenario(WEBHOOK_FLOOD))
    async with app.run_test(size=(160, 40)) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "c")
        await ui.wait_for(pilot, lambda: any("run finished" in e for e in app.scope_log.entries), "the run's end")
        notes = [entry for entry in app.scope_log.entries if entry.startswith("⚠")]
    assert notes == [
        "⚠ webhook events: events.created dropped its oldest 2 of 4 calls "
        "(a webhook keeps its newest 2 calls and 64 MiB)"
    ]
