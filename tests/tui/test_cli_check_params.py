"""`check` and `params` through a real process: exit codes and output shapes (docs/spec/cli.md)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from tests.helpers import main_cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return main_cli(*args, cwd=cwd)


def test_check_valid_files_exit_0():
    result = cli("check", str(EXAMPLES / "pets.scenario"), str(EXAMPLES / "_fails-on-purpose" / "scopes.scenario"))
    assert result.returncode == 0, result.stderr
    # only the warnings of static scope analysis (they do not fail a check)
    assert all(": warning: " in line for line in result.stderr.splitlines())
    assert "pets.scenario: ok (3 features, 7 scenarios, 3 fragments)" in result.stdout


def test_check_invalid_file_exit_2_with_one_located_line_per_error_in_file_order(tmp_path):
    shutil.copy(EXAMPLES / "_fails-on-purpose" / "mistakes.scenario", tmp_path)
    result = cli("check", "mistakes.scenario", cwd=tmp_path)
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert lines[0] == (
        "mistakes.scenario:3:3: error: unknown parameter 'shareVariables'; "
        "did you mean 'shareVariablesAcrossScenarios'?"
    )
    assert len(lines) == 7
    positions = [tuple(int(n) for n in line.split(":")[1:3]) for line in lines]
    assert positions == sorted(positions)
    assert all(": error: " in line for line in lines)
    assert "Traceback" not in result.stderr


def test_check_reports_every_file_and_fails_if_any_is_invalid(tmp_path):
    result = cli("check", str(EXAMPLES / "pets.scenario"), str(EXAMPLES / "_fails-on-purpose" / "mistakes.scenario"))
    assert result.returncode == 2 and "pets.scenario: ok" in result.stdout


def test_usage_errors_are_one_line_exit_2(tmp_path):
    for args in (
        ("check",),
        ("check", str(tmp_path / "missing.scenario")),
        ("params",),
        ("params", str(EXAMPLES / "pets.scenario"), "--param", "timeout=0"),
        ("params", str(EXAMPLES / "pets.scenario"), "--bogus"),
        ("run",),
        ("nope.scenario",),
    ):
        result = cli(*args)
        assert result.returncode == 2, args
        assert len(result.stderr.strip().splitlines()) == 1, (args, result.stderr)
        assert "Traceback" not in result.stderr


def test_empty_file_is_valid(tmp_path):
    (tmp_path / "empty.scenario").write_text("# nothing yet\n")
    assert cli("check", str(tmp_path / "empty.scenario")).returncode == 0


def test_params_json_shape(tmp_path):
    result = cli("params", str(EXAMPLES / "pets.scenario"), "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["file"] == str(EXAMPLES / "pets.scenario")
    nodes = data["nodes"]
    assert nodes[0] == {
        "kind": "file",
        "name": "pets.scenario",
        "line": 1,
        "feature": None,
        "parameters": {
            "shareVariablesAcrossScenarios": {"value": True, "source": "file", "line": 6},
            "timeout": {"value": 30, "source": "file", "line": 7},
            "baseUrl": {"value": "http://127.0.0.1:8000", "source": "file", "line": 8},
            "openapi": {"value": None, "source": "default", "line": None},
            "maxResponseSize": {"value": 104857600, "source": "default", "line": None},
            "secrets": {"value": [], "source": "default", "line": None},
            "strictSchemaValidation": {"value": False, "source": "default", "line": None},
            "autoAssertions.enabled": {"value": False, "source": "default", "line": None},
            "autoAssertions.schema": {"value": True, "source": "default", "line": None},
            "autoAssertions.statusCode": {"value": True, "source": "default", "line": None},
            "autoAssertions.contentType": {"value": True, "source": "default", "line": None},
            "environment": {"value": None, "source": "default", "line": None},
            "logRequests": {"value": False, "source": "default", "line": None},
            "logResponses": {"value": False, "source": "default", "line": None},
            "followRedirects": {"value": False, "source": "default", "line": None},
            "retry.maxAttempts": {"value": 0, "source": "default", "line": None},
            "retry.delay": {"value": 1000, "source": "default", "line": None},  # milliseconds
            "retry.maxDelay": {"value": 30000, "source": "default", "line": None},
            "retry.backoff": {"value": "exponential", "source": "default", "line": None},
            "retry.jitter": {"value": True, "source": "default", "line": None},
            "errorContext.includeRequestBody": {"value": True, "source": "default", "line": None},
            "errorContext.includeResponseBody": {"value": True, "source": "default", "line": None},
            "errorContext.maxBodySize": {"value": 4096, "source": "default", "line": None},
            "multiTestSequentialCount": {"value": 3, "source": "default", "line": None},
            "multiTestConcurrentCount": {"value": 5, "source": "default", "line": None},
        },
    }
    assert [(n["kind"], n["name"], n["feature"]) for n in nodes[1:]] == [
        ("scenario", "the API is up", None),
        ("feature", "Pets", "Pets"),
        ("scenario", "create a pet", "Pets"),
        ("scenario", "read the pet", "Pets"),
        ("scenario", "rename the pet", "Pets"),
        ("feature", "Inventory", "Inventory"),
        ("scenario", "list pets", "Inventory"),
        ("feature", "Audit", "Audit"),
        ("scenario", "an unknown pet is not found", "Audit"),
        ("scenario", "the file store still has the inventory", None),
    ]
    pets = nodes[2]["parameters"]
    assert pets["timeout"] == {"value": 10, "source": "feature", "line": 37}
    assert nodes[8]["parameters"]["shareVariablesAcrossScenarios"] == {"value": False, "source": "feature", "line": 91}
    known = {
        "shareVariablesAcrossScenarios",
        "timeout",
        "baseUrl",
        "openapi",
        "maxResponseSize",
        "secrets",
        "strictSchemaValidation",
        "autoAssertions.enabled",
        "autoAssertions.schema",
        "autoAssertions.statusCode",
        "autoAssertions.contentType",
        "environment",
        "logRequests",
        "logResponses",
        "followRedirects",
        "retry.maxAttempts",
        "retry.delay",
        "retry.maxDelay",
        "retry.backoff",
        "retry.jitter",
        "errorContext.includeRequestBody",
        "errorContext.includeResponseBody",
        "errorContext.maxBodySize",
        "multiTestSequentialCount",
        "multiTestConcurrentCount",
    }
    assert all(set(n["parameters"]) == known for n in nodes)


def test_params_show_every_description_in_force_with_provenance(tmp_path):
    demo = EXAMPLES.parent / "core" / "demo"
    (tmp_path / "api.yaml").write_text((demo / "petstore.yaml").read_text())
    (tmp_path / "x.yaml").write_text((demo / "petstore.yaml").read_text())
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "auth.yaml").write_text((demo / "auth.yaml").read_text())
    path = tmp_path / "s" / "t.scenario"
    path.write_text(
        "parameters:\n  openapi: ../api.yaml\n  binding.auth.location: auth.yaml\n"
        '  binding.auth.baseUrl: http://127.0.0.1:9\n  binding.alias.me: "^whoAmI"\n'
    )
    result = cli("params", str(path), "--json", "--openapi", f"extra={tmp_path / 'x.yaml'}")
    assert result.returncode == 0, result.stderr
    parameters = json.loads(result.stdout)["nodes"][0]["parameters"]
    assert parameters["openapi"] == {"value": "../api.yaml", "source": "file", "line": 2}
    assert parameters["binding.auth.location"] == {"value": "auth.yaml", "source": "file", "line": 3}
    assert parameters["binding.auth.baseUrl"] == {"value": "http://127.0.0.1:9", "source": "file", "line": 4}
    assert parameters["binding.alias.me"] == {"value": "^whoAmI", "source": "file", "line": 5}
    assert parameters["binding.extra.location"] == {
        "value": str(tmp_path / "x.yaml"),
        "source": "command-line",
        "line": None,
    }


def test_params_command_line_overrides_have_command_line_provenance():
    result = cli(
        "params", str(EXAMPLES / "pets.scenario"), "--json", "--param", "timeout=3", "--base-url", "http://127.0.0.1:9"
    )
    nodes = json.loads(result.stdout)["nodes"]
    assert all(n["parameters"]["timeout"] == {"value": 3, "source": "command-line", "line": None} for n in nodes)
    assert all(n["parameters"]["baseUrl"]["source"] == "command-line" for n in nodes)


def test_params_text_shows_values_and_where_they_came_from():
    result = cli("params", str(EXAMPLES / "pets.scenario"))
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    assert "feature 'Pets' (line 33) — shares with feature 'Pets'" in text
    assert "timeout 10 ← feature 'Pets' (line 37) · file 30 · default 30" in text
    assert "feature 'Audit' (line 89) — isolated" in text
    assert "feature 'Inventory' (line 77) — shares file-wide" in text


def test_params_invalid_file_exit_2():
    result = cli("params", str(EXAMPLES / "_fails-on-purpose" / "mistakes.scenario"))
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 7
