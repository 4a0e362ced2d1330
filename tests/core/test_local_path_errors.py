"""An invalid JSON path or condition in one step is local to its scenario (docs/spec/steps.md#errors-local-to-one-scenario):
still a `check` error (exit 2), but a run goes on with every other scenario and ends
that one as an error at its line, before it sends anything. Runs go against the demo API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scenario_core.language.errors import InvalidFileError
from scenario_core.language.nodes.steps import UnreadableStep, step_label
from scenario_core.parameters.diagnostics import load_valid
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.events import RequestSent, ScenarioFinished
from scenario_core.run.executor import run_to_completion
from scenario_tui.cli.main import main

PETSTORE = Path(__file__).resolve().parents[2] / "core" / "demo" / "petstore.yaml"

THREE = """\
parameters:
  baseUrl: {url}

scenario: first
  when: GET /health
  then: status 200

scenario: middle
  when: GET /health
  {line}
  then: status 200

scenario: last
  when: GET /pets
  then: status 200
"""
# The middle scenario's bad line is line 10.


def finished(events) -> dict[str, ScenarioFinished]:
    return {e.scenario.name: e for e in events if isinstance(e, ScenarioFinished)}


@pytest.mark.parametrize(
    "line, message",
    [
        ("extract: x from $.[[bad", "invalid JSON path '$.[[bad'"),
        ('then: $.status = "ok"', "did you mean '=='"),
        ("then: $.[[bad == 1", "invalid JSON path"),
        ("then: status 20", "status takes a 3-digit code"),
    ],
)
def test_an_invalid_json_path_or_condition_ends_only_its_scenario(write_scenario, demo, line, message):
    path = write_scenario(THREE.format(url=demo.url, line=line))
    (file,) = load_valid([str(path)])
    assert [(d.location.line, d.local) for d in file.local_errors] == [(10, True)]
    events = run_to_completion([file], RunOverrides({}))
    ended = finished(events)
    assert {name: e.status for name, e in ended.items()} == {"first": "passed", "middle": "failed", "last": "passed"}
    assert ended["middle"].message.startswith("line 10: ") and message in ended["middle"].message
    sent = [e.url for e in events if isinstance(e, RequestSent)]
    assert sent == [f"{demo.url}/health", f"{demo.url}/pets"]  # the middle one sent nothing


def test_berrycrush_invalid_path_and_condition_are_local_too(write_scenario, demo):
    text = f"""\
parameters:
  openapi: {PETSTORE}
  baseUrl: {demo.url}
scenario: arrow
  when I check health
    call ^getHealth
    extract $.[[bad => x
scenario: condition
  when I check health
    assert $.status ==
scenario: if chain
  when I check health
    if $.[[bad exists
      fail "never"
    else
      fail "never either"
scenario: sound
  when: GET /health
  then: status 200
"""
    (file,) = load_valid([str(write_scenario(text))])
    assert [d.location.line for d in file.local_errors] == [7, 10, 13]
    events = run_to_completion([file], RunOverrides({}))
    statuses = {name: e.status for name, e in finished(events).items()}
    assert statuses == {"arrow": "failed", "condition": "failed", "if chain": "failed", "sound": "passed"}


def test_an_invalid_json_path_is_kept_as_a_step_labelled_as_written(write_scenario):
    path = write_scenario("scenario: s\n  extract: x from $.[[bad\n")
    (file,) = load_valid([str(path)])
    (step,) = file.scenarios[0].steps
    assert isinstance(step, UnreadableStep)
    assert step_label(step) == "extract: x from $.[[bad"


def test_an_invalid_json_path_in_a_background_still_refuses_the_file(write_scenario):
    path = write_scenario("background:\n  extract: x from $.[[bad\nscenario: s\n  then: status 200\n")
    with pytest.raises(InvalidFileError, match="invalid JSON path"):
        load_valid([str(path)])


def test_an_invalid_json_path_beside_a_syntax_error_refuses_the_file(write_scenario):
    path = write_scenario("scenario: s\n  extract: x from $.[[bad\n  GETT /pets\n")
    with pytest.raises(InvalidFileError) as raised:
        load_valid([str(path)])
    assert [d.location.line for d in raised.value.diagnostics] == [2, 3]


def test_check_reports_an_invalid_json_path_and_exits_2(write_scenario, capsys):
    path = write_scenario(THREE.format(url="http://127.0.0.1:1", line="extract: x from $.[[bad"))
    assert main(["check", str(path)]) == 2
    assert f"{path}:10:19: error: invalid JSON path '$.[[bad'" in capsys.readouterr().err


def test_run_of_a_file_with_an_invalid_json_path_runs_the_other_scenarios(write_scenario, demo, tmp_path, capsys):
    path = write_scenario(THREE.format(url=demo.url, line="extract: x from $.[[bad"))
    report = tmp_path / "report.json"
    assert main(["run", str(path), "--report-json", str(report)]) == 1
    scenarios = json.loads(report.read_text())["files"][0]["scenarios"]
    statuses = {s["name"]: s["status"] for s in scenarios}
    # docs/spec/cli.md#scenario-status: error, counted as failed
    assert statuses == {"first": "passed", "middle": "error", "last": "passed"}
    assert json.loads(report.read_text())["summary"]["failed"] == 1
    assert "line 10: invalid JSON path '$.[[bad'" in capsys.readouterr().out


def test_junit_reports_a_scenario_ended_by_a_local_error_as_an_error(write_scenario, demo, tmp_path):
    import xml.etree.ElementTree as ET

    path = write_scenario(THREE.format(url=demo.url, line="extract: x from $.[[bad"))
    report = tmp_path / "junit.xml"
    assert main(["run", str(path), "--report-junit", str(report)]) == 1
    root = ET.parse(report).getroot()
    assert (root.get("errors"), root.get("failures")) == ("1", "0")
    (case,) = [c for c in root.iter("testcase") if c.get("name") == "middle"]
    assert case.find("error") is not None and case.find("failure") is None
