"""The v3 rules that let BerryCrush users' files run as BerryCrush runs them: user
parameters (docs/spec/parameters.md), `status -1` (docs/spec/steps.md#expecting-no-response), Jayway JSON paths (docs/spec/berrycrush.md#conditions), errors
local to one scenario (docs/spec/steps.md#errors-local-to-one-scenario) and `test.*` during multi repeats (docs/spec/berrycrush.md#auto-tests). Runs go
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


# ---------------------------------------------------------------- user parameters (docs/spec/parameters.md#user-parameters)


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


# ---------------------------------------------------------------- status -1 (docs/spec/steps.md#expecting-no-response)


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


# ---------------------------------------------------------------- Jayway JSON paths (docs/spec/berrycrush.md#conditions)


def test_a_jayway_function_ends_a_path_in_extract_assert_if_and_then(write_scenario, demo):
    events = run(
        write_scenario,
        demo.url,
        """
        scenario: functions everywhere
          when I read the index
            call ^listEndpoints
            assert $.endpoints.length() >= 1
            extract $.endpoints.size() => count
            assert {{count}} greaterThan 0
            if $.endpoints.length() greaterThan 1000
              fail "too many endpoints"
          when: GET /pets
          then: $.length() == 0
          then: $.keys() not exists
        """,
    )
    assert statuses(events) == {"functions everywhere": "passed"}, step_messages(events)


def test_jayway_functions_compute_on_what_the_path_before_them_matched():
    from scenario_core.language.step_syntax import compile_json_path
    from scenario_core.run.assertions import json_path_values

    data = {"pets": [{"n": 1, "k": "a"}, {"n": 2, "k": "b"}, {"n": 3, "k": "a"}], "o": {"x": 1, "y": 2}, "s": "ab"}
    expected = {
        "$.pets.length()": 3,
        "$.s.length()": 2,
        "$.pets[*].n.min()": 1,
        "$.pets[*].n.max()": 3,
        "$.pets[*].n.avg()": 2.0,
        "$.pets[*].n.sum()": 6,
        "$.o.keys()": ["x", "y"],
        "$.pets[*].k.first()": "a",
        "$.pets[*].k.last()": "a",
        "$.s.concat('c', $.o.x)": "abc1",
        "$.pets[*].n.append(4)": [1, 2, 3, 4],
        "$.pets[?(@.k == 'a')].n": [1, 3],
        "$.pets[?(@.k in ['b', 'a'])].n.sum()": 6,
        "$.pets[?(@.n > 1)].length()": 2,
    }
    assert {path: json_path_values(compile_json_path(path), data) for path in expected} == expected
    assert round(json_path_values(compile_json_path("$.pets[*].n.stddev()"), data), 3) == 0.816


@pytest.mark.parametrize(
    "path, message",
    [
        ("$.pets.foo()", "unknown function 'foo()'; a JSON path may end with length(), size()"),
        ("$.pets.length().n", "a function ends a JSON path: 'length()' is followed by more"),
        ("$.pets.length(2)", "'length()' takes no arguments"),
        ("$.pets[?(@.k in [])]", "'@.k in []' lists no value to match"),
    ],
)
def test_a_json_path_beyond_jayways_forms_is_a_located_error(write_scenario, capsys, path, message):
    path_file = write_scenario(f"scenario: s\n  when: GET /pets\n  then: {path} exists\n")
    assert main(["check", str(path_file)]) == 2
    err = capsys.readouterr().err
    assert f"test.scenario:3:9: error: invalid JSON path '{path}': {message}" in err, err


def test_the_language_service_reads_jayway_paths_without_problems():
    from scenario_core.editor import service

    text = (
        f"parameters:\n  openapi: {PETSTORE}\n"
        "scenario: s\n  when I list\n    call ^listPets\n    assert $.length() equals 0\n"
        "    assert $[?(@.name in ['a', 'b'])] notEmpty\n"
    )
    document = service.read_document(text, "/tmp/jayway.scenario", None)
    assert [p.message for p in service.diagnostics(document) if p.severity == "error"] == []


# ---------------------------------------------------------------- errors local to one scenario (docs/spec/steps.md#errors-local-to-one-scenario)

TWO_SCENARIOS = """
scenario: broken
  when I list the inventory
    call ^listInventory
    assert status 200

scenario: sound
  when I check health
    call ^getHealth
    assert status 200
"""


def test_an_error_local_to_one_scenario_ends_only_that_scenario_before_it_sends(write_scenario, demo):
    from scenario_core.parameters.diagnostics import load_valid
    from scenario_core.run.events import RequestSent

    head = f"parameters:\n  openapi: {PETSTORE}\n  baseUrl: {demo.url}\n"
    (file,) = load_valid([str(write_scenario(head + TWO_SCENARIOS.lstrip()))])
    assert [(d.location.line, d.local) for d in file.local_errors] == [(6, True)]
    events = run_to_completion([file], RunOverrides({}))
    assert statuses(events) == {"broken": "failed", "sound": "passed"}
    (finished,) = [e for e in events if isinstance(e, ScenarioFinished) and e.scenario.name == "broken"]
    assert finished.message.startswith("line 6: operation 'listInventory' not found")
    assert [e.url for e in events if isinstance(e, RequestSent)] == [f"{demo.url}/health"]


def test_an_error_in_a_background_still_refuses_the_file(write_scenario):
    from scenario_core.language.errors import InvalidFileError
    from scenario_core.parameters.diagnostics import load_valid

    text = f"parameters:\n  openapi: {PETSTORE}\nbackground:\n  given stock\n    call ^listInventory\n"
    with pytest.raises(InvalidFileError, match="listInventory"):
        load_valid([str(write_scenario(text + TWO_SCENARIOS))])


def test_check_reports_an_error_local_to_one_scenario_and_exits_2(write_scenario, capsys):
    path = write_scenario(f"parameters:\n  openapi: {PETSTORE}\n" + TWO_SCENARIOS.lstrip())
    assert main(["check", str(path)]) == 2
    assert "test.scenario:5:10: error: operation 'listInventory' not found" in capsys.readouterr().err


# ---------------------------------------------------------------- auto: multi and test.* (docs/spec/berrycrush.md#auto-tests)


def test_multi_repeats_set_test_type_multi_as_the_other_kinds_do(write_scenario, demo):
    events = run(
        write_scenario,
        demo.url,
        """
        scenario: repeated
          when I probe
            call ^getStatus
              code: 200
              auto: [multi]
              multiTestSequentialCount: 2
              multiTestConcurrentCount: 2
            if test.type equals multi and test.testType equals SEQUENTIAL
              assert status 200
            else if test.type equals multi and test.testType equals CONCURRENT
              assert status 200
            else
              fail "test.type is not multi"
        """,
    )
    assert statuses(events) == {"repeated": "passed"}, step_messages(events)


def test_check_warns_when_an_if_reads_a_test_name_the_calls_auto_kinds_never_set(write_scenario, capsys):
    path = write_scenario(
        f"parameters:\n  openapi: {PETSTORE}\n"
        "scenario: s\n"
        "  when I probe\n    call ^getStatus\n      code: 200\n      auto: [invalid]\n"
        '    if multiTest.count equals 3\n      fail "x"\n'
        "  when I probe again\n    call ^getStatus\n      code: 200\n"
        '    if test.type equals invalid\n      fail "y"\n'
    )
    assert main(["check", str(path)]) == 0
    err = capsys.readouterr().err
    assert "8:8: warning: 'multiTest.count' is never set here: the call has auto: [invalid]" in err
    assert "13:8: warning: 'test.type' is never set here: the call has no auto:, which sets no test.* names" in err


# ---------------------------------------------------------------- an outline's block reads its columns (docs/spec/parameters.md#references-in-values)


def test_an_outline_parameters_block_reads_its_example_columns_per_row(write_scenario, demo):
    from scenario_core.language.parser import parse_text

    text = (
        'outline: o\n  parameters:\n    timeout: {{limit}}\n    header.Tenant: "t-{{label}}"\n'
        "  when: GET /health\n  examples:\n    | label | limit |\n    | one   | 5     |\n    | two   | 7     |\n"
    )
    file = parse_text(text, "t.scenario")
    assert [[(e.key, e.value) for e in row.parameters.entries] for row in file.scenarios] == [
        [("timeout", 5), ("header.Tenant", "t-one")],
        [("timeout", 7), ("header.Tenant", "t-two")],
    ]


@pytest.mark.parametrize(
    "text",
    [
        "scenario: s\n  parameters:\n    timeout: {{limit}}\n  when: GET /health\n",
        "outline: o\n  parameters:\n    timeout: {{nope}}\n  when: GET /health\n  examples:\n    | a |\n    | 1 |\n",
    ],
)
def test_a_parameter_reading_anything_but_an_example_column_is_still_an_error(text):
    from scenario_core.language.errors import InvalidFileError
    from scenario_core.language.parser import parse_text

    with pytest.raises(
        InvalidFileError, match=r"3:14: error: timeout cannot use \{\{(limit|nope)\}\}: parameters are static"
    ):
        parse_text(text, "t.scenario")


def test_a_column_value_that_does_not_fit_its_key_is_an_error_naming_the_row():
    from scenario_core.language.errors import InvalidFileError
    from scenario_core.language.parser import parse_text

    text = "outline: o\n  parameters:\n    timeout: {{limit}}\n  when: GET /health\n  examples:\n    | limit |\n    | abc |\n"
    with pytest.raises(InvalidFileError, match="timeout must be a positive integer number of seconds"):
        parse_text(text, "t.scenario")
