"""Start-up (issue 22): a headless run imports only what its options use. Each test is a fresh
process, since what a module imports is only visible the first time."""

from __future__ import annotations

import os
import subprocess
import sys

ENV = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR")}

MATCHING = """
scenario: names match
  when: GET /health
  then: status 200
  then: $.status matches "^o.$"
"""

PLAIN = """
scenario: plain
  when: GET /health
  then: status 200
"""


def _loaded_after_run(path, url, modules, *options) -> str:
    code = (
        "import sys\n"
        "from scenario_tui.cli.main import main\n"
        f"status = main(['run', {str(path)!r}, '--base-url', {url!r}, *{list(options)!r}])\n"
        f"print('STATUS', status, 'LOADED', ','.join(m for m in {modules!r} if m in sys.modules) or '-')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, timeout=60)
    return result.stdout.splitlines()[-1] if result.stdout else result.stderr


def test_lark_is_imported_without_the_regex_package(demo, write_scenario):
    assert _loaded_after_run(write_scenario(PLAIN), demo.url, ("lark", "regex")) == "STATUS 0 LOADED lark"


def test_a_matches_assertion_still_gets_the_regex_package(demo, write_scenario):
    assert _loaded_after_run(write_scenario(MATCHING), demo.url, ("lark", "regex")) == "STATUS 0 LOADED lark,regex"


def test_report_writers_and_statistics_are_imported_only_when_used(demo, write_scenario, tmp_path):
    modules = ("scenario_core.report.json_report", "scenario_core.report.junit", "statistics")
    path = write_scenario(PLAIN)
    assert _loaded_after_run(path, demo.url, modules) == "STATUS 0 LOADED -"
    report = str(tmp_path / "r.json")
    assert _loaded_after_run(path, demo.url, modules, "--report-json", report) == (
        "STATUS 0 LOADED scenario_core.report.json_report"
    )
