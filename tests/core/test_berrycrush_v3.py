"""The v3 rules that let BerryCrush users' files run as BerryCrush runs them (issue 20): user
parameters (semantics.md §1), `status -1` (§4), Jayway JSON paths (berrycrush.md §3.3), errors
local to one scenario (§5) and `test.*` during multi repeats (berrycrush.md §3.6). Runs go
against the demo API on loopback, or a port where nothing listens; never a mocked client."""

from __future__ import annotations

import json
import socket
import textwrap
from pathlib import Path

import pytest

from scenario_core.language.parser import load_file
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.events import ScenarioFinished, StepFinished
from scenario_core.run.executor import run_to_completion
from scenario_tui.cli.main import main

PETSTORE = Path(__file__).resolve().parents[2] / "core" / "demo" / "petstore.yaml"


def run(write_scenario, base_url: str, text: str):
    head = f"parameters:\n  openapi: {PETSTORE}\n  baseUrl: {base_url}\n"
    path = write_scenario(head + textwrap.dedent(text).lstrip("\n"))
    return run_to_completion([load_file(path)], RunOverrides({}))


def statuses(events) -> dict[str, str]:
    return {e.scenario.name: e.status for e in events if isinstance(e, ScenarioFinished)}


def step_messages(events) -> list[str | None]:
    return [e.message for e in events if isinstance(e, StepFinished)]


@pytest.fixture
def nowhere() -> str:
    """A loopback URL where nothing listens (the port was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


# ---------------------------------------------------------------- user parameters (§1)


def test_a_user_parameter_resolves_and_reads_as_param_key(write_scenario, demo):
    events = run(
        write_scenario,
        demo.url,
        """
        scenario: read a user parameter
          parameters:
            pet.kind: health
          when: GET /{{param.pet.kind}}
          then: status 200
        """,
    )
    assert statuses(events) == {"read a user parameter": "passed"}


def test_check_strict_reports_a_user_parameter_nothing_reads(write_scenario, capsys):
    path = write_scenario("parameters:\n  colour: blue\n  size: 3\nscenario: s\n  when: GET /x/{{param.size}}\n")
    assert main(["check", str(path)]) == 0
    assert "colour" not in capsys.readouterr().err
    assert main(["check", "--strict", str(path)]) == 2
    err = capsys.readouterr().err
    assert "2:3: error: user parameter 'colour' is read nowhere in this file as {{param.colour}}" in err
    assert "'size'" not in err


def test_params_marks_a_user_parameter_with_its_provenance(write_scenario, capsys):
    path = write_scenario("parameters:\n  colour: blue\n")
    assert main(["params", str(path)]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if "colour" in line)
    assert "file (line 2)" in line and "(user parameter)" in line
    assert main(["params", "--json", str(path)]) == 0
    assert '"user": true' in capsys.readouterr().out


# ---------------------------------------------------------------- status -1 (§4)


def test_status_minus_one_passes_when_no_response_comes(write_scenario, nowhere):
    events = run(
        write_scenario,
        nowhere,
        """
        scenario: nothing answers
          when I call
            call ^getHealth
            assert status -1
        """,
    )
    assert statuses(events) == {"nothing answers": "passed"}


def test_status_minus_one_fails_naming_the_status_when_a_response_comes(write_scenario, demo):
    events = run(
        write_scenario,
        demo.url,
        """
        scenario: something answers
          when I call
            call ^getHealth
            assert status -1
        """,
    )
    assert statuses(events) == {"something answers": "failed"}
    assert "expected no response (status -1), got status 200" in step_messages(events)


def test_a_request_with_no_response_fails_its_step_when_no_status_minus_one_expects_it(write_scenario, nowhere):
    events = run(
        write_scenario,
        nowhere,
        """
        scenario: nothing answers, unexpectedly
          when I call
            call ^getHealth
            assert status 200
        """,
    )
    assert statuses(events) == {"nothing answers, unexpectedly": "failed"}
    assert any(m and "refused" in m.lower() for m in step_messages(events)), step_messages(events)


def test_status_minus_one_in_an_if_takes_its_branch_when_no_response_comes(write_scenario, nowhere):
    events = run(
        write_scenario,
        nowhere,
        """
        scenario: branch on no response
          when I call
            call ^getHealth
            if status -1
              assert {{missing_is_fine}} notEmpty
            else
              fail "a server answered"
        """,
    )
    # the if branch ran: its assertion reads a variable that is not set
    assert statuses(events) == {"branch on no response": "failed"}
    assert "a server answered" not in json.dumps(step_messages(events))


def test_then_status_minus_one_parses_in_our_dialect(write_scenario, nowhere):
    events = run(write_scenario, nowhere, "scenario: s\n  when: GET /health\n  then: status -1\n")
    assert statuses(events) == {"s": "passed"}
