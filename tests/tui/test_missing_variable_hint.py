"""A variable no step extracts, at run time: the failure says how to pass it (`--var NAME=...`),
as `check` does, in run output, the JSON report and the TUI's inspector (one text, from core)."""

from __future__ import annotations

import json
import subprocess

from tests.helpers import ENV, SCRIPT

HINT = "No step in this file extracts 'petId'; pass it with --var petId=..."
TEXT = "scenario: read\n  when: GET /pets/{{petId}}\n  then: status 200\n"


def test_missing_variable_hint_in_run_output_and_json_report(demo, tmp_path):
    path = tmp_path / "read.scenario"
    path.write_text(TEXT, encoding="utf-8")
    report = tmp_path / "report.json"
    command = [str(SCRIPT), "run", str(path), "--base-url", demo.url, "--report-json", str(report)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60, env={**ENV, "COLUMNS": "200"})
    assert result.returncode == 1, result.stderr
    assert HINT in " ".join(result.stdout.split())
    (step,) = json.loads(report.read_text())["files"][0]["scenarios"][0]["steps"][:1]
    assert step["status"] == "failed" and step["message"].endswith(HINT)


async def test_missing_variable_hint_in_the_tui_failure(scenario_file, make_app, ui):
    app = make_app(scenario_file(TEXT))
    async with app.run_test(size=(160, 50)) as pilot:
        await ui.press(pilot, "c")
        assert HINT in " ".join(app.inspector.text.split())
