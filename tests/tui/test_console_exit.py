"""The console script ends `run`, `check` and `params` without tearing the interpreter down
(tui/cli/console.py): every line printed and every report written must still be there, whole,
with the exit status the command chose."""

from __future__ import annotations

import json
import subprocess

from tests.helpers import ENV, SCRIPT


def _scenarios(count: int) -> str:
    return "".join(
        f"scenario: s{i}\n  when: GET /health\n  then: status {200 if i % 7 else 500}\n" for i in range(count)
    )


def test_a_fast_exit_loses_no_output_and_no_report(demo, tmp_path):
    path = tmp_path / "many.scenario"
    path.write_text(_scenarios(300), encoding="utf-8")
    report = tmp_path / "r.json"
    result = subprocess.run(
        [str(SCRIPT), "run", str(path), "--base-url", demo.url, "--report-json", str(report)],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=60,
    )
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert sum(line.startswith("  ✓ ") or line.startswith("  ✗ ") for line in lines) == 300
    assert lines[-1].startswith("300 scenarios: 257 passed, 43 failed")
    assert len(json.loads(report.read_text())["files"][0]["scenarios"]) == 300


def test_a_fast_exit_keeps_checks_and_params_output_and_status(demo, tmp_path):
    path = tmp_path / "ok.scenario"
    path.write_text("parameters:\n  timeout: 5\n  baseUrl: " + demo.url + "\n" + _scenarios(3), encoding="utf-8")
    checked = subprocess.run([str(SCRIPT), "check", str(path)], capture_output=True, text=True, env=ENV, timeout=60)
    assert checked.returncode == 0 and checked.stderr == ""
    shown = subprocess.run(
        [str(SCRIPT), "params", str(path), "--json"], capture_output=True, text=True, env=ENV, timeout=60
    )
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)
    broken = tmp_path / "broken.scenario"
    broken.write_text("scenario: x\n  when: GETT /pets\n", encoding="utf-8")
    failed = subprocess.run([str(SCRIPT), "check", str(broken)], capture_output=True, text=True, env=ENV, timeout=60)
    assert failed.returncode == 2 and failed.stderr.count("\n") >= 1 and "broken.scenario:2:" in failed.stderr
