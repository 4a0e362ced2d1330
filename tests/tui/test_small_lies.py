"""Issue 21, small lies: what `scenario-tui run` and its reports said that was not so. Each test runs
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
