"""docs/spec/cli.md#shared-options: `--var` is shared by `run`, `params` and the TUI. `params` takes it, checks it as `run`
does, and names the run variables (never their values: a value may be a secret)."""

from __future__ import annotations

from pathlib import Path

from scenario_tui.cli.main import main

PETS = str(Path(__file__).resolve().parents[2] / "examples" / "pets.scenario")


def test_params_takes_var_and_names_the_run_variables_without_their_values(capsys):
    assert main(["params", PETS, "--var", "petId=7", "--var", "apiToken=s3cr3t-value"]) == 0
    out = capsys.readouterr().out
    assert "run variables (--var), visible to every scenario: petId, apiToken" in out
    assert "s3cr3t-value" not in out


def test_params_checks_var_as_run_does(capsys):
    assert main(["params", PETS, "--var", "no-equals-sign"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--var" in err


def test_params_json_keeps_its_shape_with_var(capsys):
    import json

    assert main(["params", PETS, "--json", "--var", "petId=7"]) == 0
    assert set(json.loads(capsys.readouterr().out)) == {"file", "nodes"}
