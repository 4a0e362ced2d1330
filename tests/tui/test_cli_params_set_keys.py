"""`params` through a real process prints only the keys something set (with where each came from);
`--all` prints every key, and `--json` keeps every key in every node (docs/spec/cli.md)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.helpers import main_cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PETS = str(EXAMPLES / "pets.scenario")
EVERY_KEY = 25  # the known keys every node resolves


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    result = main_cli(*args)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    return result


def _value_lines(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if "←" in line]


def test_params_prints_only_keys_set_somewhere():
    out = cli("params", PETS).stdout
    values = _value_lines(out)
    nodes = 1 + 3 + 7  # the file, its features and its scenarios
    assert len(values) == nodes * 3  # shareVariablesAcrossScenarios, timeout, baseUrl
    assert not any("← default" in line for line in values)
    assert "maxResponseSize" not in out and "retry.delay" not in out
    assert "timeout                        10  ← feature 'Pets' (line 37) · file 30 · default 30" in out
    assert out.splitlines()[-1] == "22 more keys of the file are at their defaults; params --all shows every key"


def test_params_node_with_nothing_set_says_every_key_at_its_default(tmp_path):
    path = tmp_path / "bare.scenario"
    path.write_text("scenario: s\n  when: GET http://127.0.0.1:9/health\n", encoding="utf-8")
    out = cli("params", str(path)).stdout
    assert out.count("every key at its default") == 2  # the file and its scenario
    assert "25 more keys of the file are at their defaults" in out


def test_params_all_shows_every_key_defaults_included():
    out = cli("params", PETS, "--all").stdout
    values = _value_lines(out)
    assert len(values) == 11 * EVERY_KEY
    assert sum("maxResponseSize" in line and "← default" in line for line in values) == 11
    assert "--all" not in out  # no hint about what is left out: nothing is


def test_params_json_keeps_every_key_in_every_node():
    nodes = json.loads(cli("params", PETS, "--json").stdout)["nodes"]
    assert len(nodes) == 11 and all(len(node["parameters"]) == EVERY_KEY for node in nodes)
    assert nodes[0]["parameters"]["maxResponseSize"]["source"] == "default"
