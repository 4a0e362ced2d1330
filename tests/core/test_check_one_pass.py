"""`check` reports every error of a file in one pass, all stages (docs/spec/steps.md#every-error-at-once):
syntax, parameters, environment, operations, custom steps, JSON paths and conditions. A syntax
error no longer hides the later stages: they run on the tree read around the lines in error."""

from __future__ import annotations

import shutil
import subprocess
import sys
from importlib.resources import files

import pytest

from scenario_core.language.errors import InvalidFileError
from scenario_core.parameters.diagnostics import load_valid

# One error of each kind, each on its own line (the comment names the stage that finds it).
ONE_OF_EACH = """\
parameters:
  openapi: petstore.yaml
  timeout: abc
  baseUrl: "{{env.SCENARIO_TUI_TEST_UNSET}}"

scenario: requests
  GETT /pets
  then: statuz 200
  then: the pets are listed

scenario: operations
  when: I list the pets
    call ^noSuchOp
    assert status 200

scenario: paths
  when: GET /pets
  then: $.s = "ok"
  extract: x from $.[[bad
"""
# line -> a piece of its message: each with its best hint
EXPECTED = {
    3: "timeout must be a positive integer",  # parameters (the builder)
    4: "environment variable SCENARIO_TUI_TEST_UNSET is not set",  # environment (resolution)
    7: "did you mean 'when: GET /pets'?",  # syntax
    8: "did you mean 'status'?",  # a custom step that is an assertion mistyped
    9: 'no step matches "the pets are listed"',  # custom steps
    13: "operation 'noSuchOp' not found",  # operations
    18: "did you mean '=='?",  # condition
    19: "invalid JSON path '$.[[bad'",  # JSON path
}


@pytest.fixture
def one_of_each(write_scenario, monkeypatch):
    monkeypatch.delenv("SCENARIO_TUI_TEST_UNSET", raising=False)
    path = write_scenario(ONE_OF_EACH)
    shutil.copy(str(files("scenario_core.demo") / "petstore.yaml"), path.parent / "petstore.yaml")
    return path


def test_check_reports_every_stage_in_one_pass_via_the_api(one_of_each):
    with pytest.raises(InvalidFileError) as raised:
        load_valid([str(one_of_each)])
    found = raised.value.diagnostics
    assert [d.location.line for d in found] == sorted(EXPECTED)
    for d in found:
        assert EXPECTED[d.location.line] in d.message, d


def test_check_reports_every_stage_in_one_pass_through_the_cli(one_of_each):
    result = subprocess.run(
        [sys.executable, "-c", "import sys; from scenario_tui.cli.main import main; sys.exit(main())", "check"]
        + [str(one_of_each)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert len(lines) == len(EXPECTED), result.stderr
    assert "Traceback" not in result.stderr
    for line, (number, piece) in zip(lines, sorted(EXPECTED.items())):
        assert line.startswith(f"{one_of_each}:{number}:")  # file:line:col, sorted by position
        assert ": error: " in line and piece in line


def test_check_one_pass_still_checks_operations_when_an_unrelated_parameter_reads_an_unset_variable(
    write_scenario, monkeypatch
):
    monkeypatch.delenv("SCENARIO_TUI_TEST_UNSET", raising=False)
    path = write_scenario(
        """
        parameters:
          openapi: petstore.yaml
          baseUrl: "{{env.SCENARIO_TUI_TEST_UNSET}}"

        scenario: s
          when: ^noSuchOp
        """
    )
    shutil.copy(str(files("scenario_core.demo") / "petstore.yaml"), path.parent / "petstore.yaml")
    with pytest.raises(InvalidFileError) as raised:
        load_valid([str(path)])
    assert [d.location.line for d in raised.value.diagnostics] == [3, 6]


def test_check_one_pass_a_valid_file_still_loads(write_scenario):
    path = write_scenario(
        """
        scenario: s
          when: GET http://127.0.0.1:1/pets
          then: status 200
        """
    )
    (node,) = load_valid([str(path)])
    assert node.local_errors == ()


def test_the_language_service_reports_every_stage_in_one_pass_too(one_of_each):
    from scenario_core.editor import service

    document = service.read_document(one_of_each.read_text(), str(one_of_each))
    found = {p.span.start.line + 1: p.message for p in service.diagnostics(document) if p.severity == "error"}
    assert sorted(found) == sorted(EXPECTED)
    for line, piece in EXPECTED.items():
        assert piece in found[line]


def test_check_one_pass_on_an_outline_whose_examples_did_not_parse_is_located_errors_only(write_scenario):
    # The outline's block reads its columns; with its examples: line broken, the later stages
    # meet parameter entries whose value is left for the rows: errors, never a TypeError.
    path = write_scenario(
        """
        outline: every row
          parameters:
            binding.api.location: "{{spec}}"
          when I echo
            call using api ^echoGet
          examp
            | spec |
            | petstore.yaml |
        """
    )
    with pytest.raises(InvalidFileError) as raised:
        load_valid([str(path)])
    assert all(d.location.line >= 1 and "\n" not in d.message for d in raised.value.diagnostics)
    assert any("examp" in d.message for d in raised.value.diagnostics)


def test_check_one_pass_a_mistyped_openapi_key_is_one_error_not_one_per_call(write_scenario):
    # The calls' description is unknown until the key is fixed: no `no OpenAPI description` line.
    path = write_scenario(
        """
        parameters:
          opnapi: petstore.yaml

        scenario: s
          when: ^listPets
          GETT /pets
        """
    )
    with pytest.raises(InvalidFileError) as raised:
        load_valid([str(path)])
    found = [(d.location.line, d.message) for d in raised.value.diagnostics]
    assert [line for line, _ in found] == [2, 6]
    assert "did you mean 'openapi'?" in found[0][1]
