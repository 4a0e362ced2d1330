"""Inputs never overwritten: `--report-json`, `--report-junit` and `--report-html` refuse,
before anything is sent, a path that is a file the run reads besides its scenario and OpenAPI
files: a `bodyFile`, a `.fragment`, the `--variables-file`, a `--plugins` file; through a symlink
too. One line on standard error, exit 2, nothing written. The whole command, against the demo API."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.tui.test_cli_hardening import POSIX, cli, one_line_error

PETSTORE = Path(__file__).resolve().parents[2] / "core" / "demo" / "petstore.yaml"
OPTIONS = ["--report-json", "--report-junit", "--report-html"]

BODY_FILE_SCENARIO = f"""\
parameters:
  openapi: {PETSTORE}
scenario: from a file
  when I create a pet
    call ^createPet
      bodyFile: "pet.json"
  then: status 401
"""
INCLUDING = "scenario: s\n  include: health\n"
FRAGMENT = "fragment: health\n  when: GET /health\n  then: status 200\n"
SIMPLE = "scenario: s\n  when: GET /health\n  then: status 200\n"
PLUGIN = "from scenario_core.custom_steps import step\n\n\n@step('nothing happens')\ndef nothing(ctx):\n    pass\n"


def refused(demo, *args: str) -> str:
    """`run ARGS` refused: one line, exit 2, nothing sent, nothing on standard output."""
    demo.reset()
    result = cli("run", "--base-url", demo.url, *args)
    line = one_line_error(result)
    assert demo.connections_accepted == 0, "a request was sent before the report path was refused"
    assert result.stdout == ""
    return line


def unchanged(path: Path, before: bytes) -> None:
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir() if p.name.startswith(".")) == []  # no temporary file


@pytest.mark.parametrize("option", OPTIONS)
def test_report_path_refuses_a_body_file(demo, tmp_path, option):
    body = tmp_path / "pet.json"
    body.write_text('{"name": "Rex"}', encoding="utf-8")
    scenario = tmp_path / "t.scenario"
    scenario.write_text(BODY_FILE_SCENARIO, encoding="utf-8")
    line = refused(demo, str(scenario), option, str(body))
    assert line == (
        f"scenario-tui: error: {option}: {body} is an input of this run (a bodyFile); give the report another name\n"
    )
    unchanged(body, b'{"name": "Rex"}')


def test_report_path_refuses_a_body_file_found_in_a_resource_root(demo, tmp_path):
    root = tmp_path / "resources"
    root.mkdir()
    body = root / "pet.json"
    body.write_text("{}", encoding="utf-8")
    scenario = tmp_path / "suite" / "t.scenario"
    scenario.parent.mkdir()
    scenario.write_text(BODY_FILE_SCENARIO, encoding="utf-8")
    line = refused(demo, str(scenario), "--resource-root", str(root), "--report-json", str(body))
    assert "is an input of this run (a bodyFile)" in line
    unchanged(body, b"{}")


@pytest.mark.parametrize("option", OPTIONS)
def test_report_path_refuses_a_fragment_file(demo, tmp_path, option):
    fragments = tmp_path / "fragments"
    fragments.mkdir()
    fragment = fragments / "health.fragment"
    fragment.write_text(FRAGMENT, encoding="utf-8")
    scenario = tmp_path / "t.scenario"
    scenario.write_text(INCLUDING, encoding="utf-8")
    line = refused(demo, str(scenario), option, str(fragment))
    assert "is an input of this run (a .fragment file)" in line and option in line
    unchanged(fragment, FRAGMENT.encode())


def test_report_path_refuses_a_fragment_named_by_the_fragments_option(demo, tmp_path):
    fragment = tmp_path / "elsewhere" / "health.fragment"
    fragment.parent.mkdir()
    fragment.write_text(FRAGMENT, encoding="utf-8")
    scenario = tmp_path / "t.scenario"
    scenario.write_text(INCLUDING, encoding="utf-8")
    line = refused(demo, str(scenario), "--fragments", str(fragment.parent), "--report-junit", str(fragment))
    assert "is an input of this run (a .fragment file)" in line
    unchanged(fragment, FRAGMENT.encode())


@pytest.mark.parametrize("option", OPTIONS)
def test_report_path_refuses_the_variables_file(demo, tmp_path, option):
    variables = tmp_path / "vars.env"
    variables.write_text("petName=Rex\n", encoding="utf-8")
    scenario = tmp_path / "t.scenario"
    scenario.write_text(SIMPLE, encoding="utf-8")
    line = refused(demo, str(scenario), "--variables-file", str(variables), option, str(variables))
    assert line == (
        f"scenario-tui: error: {option}: {variables} is an input of this run (the --variables-file); "
        "give the report another name\n"
    )
    unchanged(variables, b"petName=Rex\n")


@pytest.mark.parametrize("option", OPTIONS)
def test_report_path_refuses_a_plugins_file(demo, tmp_path, option):
    plugin = tmp_path / "steps.py"
    plugin.write_text(PLUGIN, encoding="utf-8")
    scenario = tmp_path / "t.scenario"
    scenario.write_text(SIMPLE, encoding="utf-8")
    line = refused(demo, str(scenario), "--plugins", str(plugin), option, str(plugin))
    assert "is an input of this run (a --plugins file)" in line and option in line
    unchanged(plugin, PLUGIN.encode())


@POSIX
def test_report_path_refuses_a_symlink_to_an_input(demo, tmp_path):
    """Real paths are compared: a link to the variables file, and the body file by another spelling."""
    variables = tmp_path / "vars.env"
    variables.write_text("a=1\n", encoding="utf-8")
    (tmp_path / "link.json").symlink_to(variables)
    body = tmp_path / "pet.json"
    body.write_text("{}", encoding="utf-8")
    scenario = tmp_path / "t.scenario"
    scenario.write_text(BODY_FILE_SCENARIO, encoding="utf-8")
    line = refused(
        demo, str(scenario), "--variables-file", str(variables), "--report-json", str(tmp_path / "link.json")
    )
    assert f"{tmp_path / 'link.json'} is {variables}, which is an input of this run (the --variables-file)" in line
    assert (tmp_path / "link.json").is_symlink()
    unchanged(variables, b"a=1\n")
    (tmp_path / "sub").mkdir()  # the path is used as given (never realpath'd): sub/.. must exist
    line = refused(demo, str(scenario), "--report-html", str(tmp_path / "sub" / ".." / "pet.json"))
    assert "is an input of this run (a bodyFile)" in line
    unchanged(body, b"{}")


def test_a_report_beside_the_inputs_is_written(demo, tmp_path):
    """The refusals are about those very files: a report next to them is fine."""
    variables = tmp_path / "vars.env"
    variables.write_text("a=1\n", encoding="utf-8")
    scenario = tmp_path / "t.scenario"
    scenario.write_text(SIMPLE, encoding="utf-8")
    report = tmp_path / "r.json"
    result = cli(
        "run", str(scenario), "--base-url", demo.url, "--variables-file", str(variables), "--report-json", str(report)
    )
    assert result.returncode == 0, result.stderr
    assert report.exists() and variables.read_bytes() == b"a=1\n"
    assert os.path.getsize(report) > 0
