"""`bodyFile:` under a request by path (`when: POST /pets`) and under an operation call: the
file's bytes are sent, never an empty body in silence (docs/spec/requests.md#body-forms)."""

from __future__ import annotations

import json
from pathlib import Path

from scenario_core.parameters.diagnostics import load_valid
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.events import RequestSent, ScenarioFinished
from scenario_core.run.executor import run_to_completion
from scenario_tui.cli.main import main

PETSTORE = Path(__file__).resolve().parents[2] / "core" / "demo" / "petstore.yaml"


def test_body_file_under_a_compact_when_is_sent(write_scenario, demo, capsys):
    path = write_scenario(
        f"parameters:\n  baseUrl: {demo.url}\n"
        "scenario: s\n  when: POST /login\n    bodyFile: login.json\n    headers:\n"
        "      Content-Type: application/json\n  then: status 200\n"
    )
    (path.parent / "login.json").write_text('{"username": "demo", "password": "demo"}')
    assert main(["check", str(path)]) == 0
    (file,) = load_valid([str(path)])
    events = run_to_completion([file], RunOverrides({}))
    (finished,) = [e for e in events if isinstance(e, ScenarioFinished)]
    assert finished.status == "passed", finished.message


def test_body_file_under_an_operation_call_is_sent(write_scenario, demo):
    path = write_scenario(
        f"parameters:\n  openapi: {PETSTORE}\n  baseUrl: {demo.url}\n"
        'scenario: s\n  when: POST /login\n    body: {"username": "demo", "password": "demo"}\n'
        "  extract: token from $.token\n"
        "  when: ^createPet\n    bodyFile: pet.json\n    headers:\n      Authorization: Bearer {{token}}\n"
        '  then: status 201\n  then: $.name == "Rex"\n'
    )
    (path.parent / "pet.json").write_text('{"name": "Rex"}')
    (file,) = load_valid([str(path)])
    events = run_to_completion([file], RunOverrides({}))
    (finished,) = [e for e in events if isinstance(e, ScenarioFinished)]
    assert finished.status == "passed", finished.message
    sent = [e for e in events if isinstance(e, RequestSent)]
    assert json.loads(sent[-1].body) == {"name": "Rex"}
