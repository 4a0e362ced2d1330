"""`bodyFile:` under a request by path (`when: POST /pets`) is a located error, not an empty body
sent in silence (issue #21): a request by path takes headers:, query: and body: (semantics.md §5);
`bodyFile:` belongs to an operation call, where it is sent (berrycrush.md §3.2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scenario_core.language.errors import InvalidFileError
from scenario_core.parameters.diagnostics import load_valid
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.events import RequestSent, ScenarioFinished
from scenario_core.run.executor import run_to_completion
from scenario_tui.cli.main import main

PETSTORE = Path(__file__).resolve().parents[2] / "core" / "demo" / "petstore.yaml"


def test_body_file_under_a_compact_when_is_a_located_error(write_scenario, capsys):
    path = write_scenario("scenario: s\n  when: POST /pets\n    bodyFile: pet.json\n  then: status 201\n")
    (path.parent / "pet.json").write_text('{"name": "Rex"}')
    with pytest.raises(InvalidFileError) as raised:
        load_valid([str(path)])
    (error,) = raised.value.diagnostics
    assert (error.location.line, error.location.column) == (3, 5)
    assert error.message.startswith("bodyFile: goes under an operation call")
    assert main(["check", str(path)]) == 2
    assert f"{path}:3:5: error: bodyFile: goes under an operation call" in capsys.readouterr().err


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
