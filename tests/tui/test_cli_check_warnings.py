"""`check`'s warnings (static scope analysis) through a real process: order, exit codes,
--strict, run variables and the json / github formats."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.helpers import main_cli

WARNED = """\
scenario: create
  when: POST http://127.0.0.1:9/pets
  extract: petId from $.id

scenario: read
  when: GET http://127.0.0.1:9/pets/{{petId}}
"""
NEVER = (
    "warned.scenario:6:39: warning: 'petId' is never visible here: 'petId' is extracted by scenario 'create' "
    "(line 3), but standalone scenarios do not share variables (shareVariablesAcrossScenarios is false by default)"
)

BROKEN = """\
scenario: s
  when: PSOT http://127.0.0.1:9/pets
"""
BROKEN_ERROR = "broken.scenario:2:9: error: unknown HTTP method 'PSOT'; did you mean POST?"


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return main_cli(*args, cwd=cwd)


def files(tmp_path: Path) -> Path:
    (tmp_path / "warned.scenario").write_text(WARNED)
    (tmp_path / "broken.scenario").write_text(BROKEN)
    (tmp_path / "clean.scenario").write_text("scenario: s\n  when: GET http://127.0.0.1:9/health\n")
    return tmp_path


def test_warnings_alone_exit_0_and_the_file_is_still_ok(tmp_path):
    result = cli("check", "warned.scenario", cwd=files(tmp_path))
    assert result.returncode == 0
    assert result.stderr.splitlines() == [NEVER]
    assert result.stdout == "warned.scenario: ok (0 features, 2 scenarios, 0 fragments)\n"


def test_errors_exit_2_and_warnings_follow_in_file_order(tmp_path):
    result = cli("check", "broken.scenario", "warned.scenario", "clean.scenario", cwd=files(tmp_path))
    assert result.returncode == 2
    assert result.stderr.splitlines() == [BROKEN_ERROR, NEVER]
    assert "clean.scenario: ok" in result.stdout and "warned.scenario: ok" in result.stdout


def test_strict_makes_warnings_errors(tmp_path):
    result = cli("check", "warned.scenario", "clean.scenario", "--strict", cwd=files(tmp_path))
    assert result.returncode == 2
    assert result.stderr.splitlines() == [NEVER.replace(": warning: ", ": error: ")]
    assert result.stdout == "clean.scenario: ok (0 features, 1 scenario, 0 fragments)\n"


def test_run_variables_count_as_visible(tmp_path):
    files(tmp_path)
    (tmp_path / "vars.json").write_text('{"petId": 7}')
    for option in (["--var", "petId=7"], ["--variables-file", "vars.json"]):
        result = cli("check", "warned.scenario", "--strict", *option, cwd=tmp_path)
        assert (result.returncode, result.stderr) == (0, ""), option


def test_format_json_is_one_list_of_every_diagnostic_errors_included(tmp_path):
    result = cli(
        "check", "broken.scenario", "warned.scenario", "clean.scenario", "--format", "json", cwd=files(tmp_path)
    )
    assert result.returncode == 2
    assert result.stderr == ""
    assert json.loads(result.stdout) == [
        {
            "file": "broken.scenario",
            "line": 2,
            "column": 9,
            "end_line": 2,
            "end_column": 13,
            "severity": "error",
            "code": None,
            "message": "unknown HTTP method 'PSOT'; did you mean POST?",
        },
        {
            "file": "warned.scenario",
            "line": 6,
            "column": 39,
            "end_line": 6,
            "end_column": 44,
            "severity": "warning",
            "code": "never-visible",
            "message": NEVER.split(": warning: ", 1)[1],
        },
    ]


def test_format_json_with_strict_reports_warnings_as_errors(tmp_path):
    result = cli("check", "warned.scenario", "--format", "json", "--strict", cwd=files(tmp_path))
    assert result.returncode == 2
    assert [d["severity"] for d in json.loads(result.stdout)] == ["error"]


def test_format_github_prints_workflow_annotations(tmp_path):
    result = cli("check", "broken.scenario", "warned.scenario", "--format", "github", cwd=files(tmp_path))
    assert result.returncode == 2
    annotations = [line for line in result.stdout.splitlines() if line.startswith("::")]
    assert annotations == [
        "::error file=broken.scenario,line=2,col=9,endLine=2,endColumn=13::"
        "unknown HTTP method 'PSOT'; did you mean POST?",
        "::warning file=warned.scenario,line=6,col=39,endLine=6,endColumn=44,title=never-visible::"
        + NEVER.split(": warning: ", 1)[1],
    ]


def test_github_annotation_escapes_what_the_syntax_reserves():
    from scenario_core.language.errors import WARNING, Diagnostic
    from scenario_core.language.nodes.base import SourceLocation
    from scenario_tui.cli.check import github_annotation

    d = Diagnostic(SourceLocation("a,b:c.scenario", 1, 2, 1, 3), "100% sure", WARNING, "unused-variable")
    assert github_annotation(d) == (
        "::warning file=a%2Cb%3Ac.scenario,line=1,col=2,endLine=1,endColumn=3,title=unused-variable::100%25 sure"
    )


def test_check_with_analysis_never_imports_textual(tmp_path):
    files(tmp_path)
    code = (
        "import sys; from scenario_tui.cli.main import main; main(['check', 'warned.scenario', '--format', 'json']); "
        "assert 'textual' not in sys.modules, 'textual imported'"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert result.returncode == 0, result.stderr
