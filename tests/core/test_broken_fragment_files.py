"""A `.fragment` file that does not parse: its error is reported, located in that
file, at each include of one of its fragments, and ends only the including scenarios; every
other scenario of the file runs (BerryCrush skips such a file with a warning). Runs go through
`scenario-tui run` against the demo API on loopback."""

from __future__ import annotations

import json
from pathlib import Path

from scenario_core.language.parser import load_file
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.events import ScenarioFinished
from scenario_core.run.executor import run_to_completion
from scenario_tui.cli.main import main

PETSTORE = Path(__file__).resolve().parents[2] / "core" / "demo" / "petstore.yaml"

BROKEN = (
    "# a fragment file with a mistake in it\nfragment: login\n  when I log in\n    call ^login\n    assert status\n"
)
SCENARIOS = f"""parameters:
  openapi: "{PETSTORE}"

scenario: the health endpoint answers
  when I check it
    call ^getHealth
    assert status 200

scenario: log in first
  include login
  when I check it
    call ^getHealth
"""
MESSAGE = "fragment 'login' cannot be used: fragments/auth.fragment:5:18: status takes"


def project(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fragments").mkdir()
    (tmp_path / "fragments/auth.fragment").write_text(BROKEN, encoding="utf-8")
    scenario = tmp_path / "pets.scenario"
    scenario.write_text(SCENARIOS, encoding="utf-8")
    return scenario


def test_a_broken_fragment_file_is_an_error_at_each_include_of_it(tmp_path, monkeypatch, capsys):
    project(tmp_path, monkeypatch)
    assert main(["check", "pets.scenario"]) == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if ": error: " in line]
    assert len(errors) == 1 and errors[0].startswith(f"pets.scenario:10:3: error: {MESSAGE}")


def test_a_broken_fragment_file_ends_only_the_scenarios_that_include_it(tmp_path, monkeypatch, capsys, demo):
    project(tmp_path, monkeypatch)
    main(["run", "pets.scenario", "--base-url", demo.url, "--report-json", "report.json"])
    capsys.readouterr()
    (file,) = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))["files"]
    found = {s["name"]: s for s in file["scenarios"]}
    assert {name: s["status"] for name, s in found.items()} == {
        "the health endpoint answers": "passed",
        "log in first": "error",  # docs/spec/cli.md#scenario-status: ended by an error local to it
    }
    assert MESSAGE in json.dumps(found["log in first"])


def test_a_broken_fragment_file_fails_its_include_when_run_unchecked(tmp_path, monkeypatch, demo):
    """The executor alone (no `check` before it): the include step fails with the same message."""
    scenario = project(tmp_path, monkeypatch)
    events = run_to_completion([load_file(scenario)], RunOverrides({"baseUrl": demo.url}))
    finished = {e.scenario.name: e for e in events if isinstance(e, ScenarioFinished)}
    assert finished["the health endpoint answers"].status == "passed"
    assert finished["log in first"].status == "failed" and MESSAGE in finished["log in first"].message


def test_a_broken_fragment_file_included_by_a_background_refuses_the_file(tmp_path, monkeypatch, capsys):
    """An include in a background runs for every scenario: not local (docs/spec/steps.md#errors-local-to-one-scenario)."""
    scenario = project(tmp_path, monkeypatch)
    scenario.write_text(
        SCENARIOS.replace("scenario: the health", "background:\n  include login\n\nscenario: the health")
    )
    assert main(["run", "pets.scenario"]) == 2
    assert MESSAGE in capsys.readouterr().err
