"""The demo API's own description, imported, passes `check` and runs green against the demo API
(its bearer token given as the run variable the import lists)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest

import scenario_core.demo
from scenario_core.editor.render import render_file
from scenario_core.importing.openapi_import import read_openapi
from scenario_tui.cli.main import main

PETSTORE = Path(scenario_core.demo.__file__).parent / "petstore.yaml"


def _token(url: str) -> str:
    request = urllib.request.Request(
        f"{url}/login", data=b'{"username": "demo", "password": "demo"}', headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)["token"]


@pytest.mark.parametrize("dialect", ["ours", "berrycrush"])
def test_the_demo_description_imports_and_runs_green(demo, tmp_path, capsys, dialect):
    scenario = tmp_path / "demo.scenario"
    imported = read_openapi(str(PETSTORE), str(scenario))
    assert [v.name for v in imported.run_variables] == ["token"]
    scenario.write_text(render_file(imported, dialect))
    assert main(["check", str(scenario)]) == 0
    assert main(["fmt", "--check", str(scenario)]) == 0  # written in the canonical layout already
    report = tmp_path / "report.json"
    code = main(
        [
            "run",
            str(scenario),
            "--base-url",
            demo.url,
            "--var",
            f"token={_token(demo.url)}",
            "--report-json",
            str(report),
        ]
    )
    assert code == 0, capsys.readouterr().out
    scenarios = [s for f in json.loads(report.read_text())["files"] for s in _scenarios(f)]
    assert len(scenarios) == 20 and all(s["status"] == "passed" for s in scenarios)


def _scenarios(node: dict) -> list[dict]:
    found = list(node.get("scenarios", ()))
    for feature in node.get("features", ()):
        found += _scenarios(feature)
    return found
