"""`--help` through the real console script: every command is named, and each command's usage
starts with its own name rather than the step debugger's two-line usage."""

from __future__ import annotations

import subprocess

import pytest

from tests.helpers import ENV, SCRIPT

COMMANDS = ("run", "check", "params", "fmt", "import", "demo", "demo-server", "lsp")


def _help(*args: str) -> str:
    result = subprocess.run([str(SCRIPT), *args, "--help"], capture_output=True, text=True, timeout=30, env=ENV)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    return result.stdout


def test_help_usage_names_every_command_lsp_included():
    usage = _help().split("\n\n")[0]
    assert "{run,check,params,fmt,import,demo,demo-server,lsp} ..." in usage


@pytest.mark.parametrize("command", COMMANDS)
def test_command_help_usage_is_one_clean_line(command):
    first = _help(command).splitlines()[0]
    assert first.startswith(f"usage: scenario-tui {command} ")
    assert "step debugger" not in first and "{" not in first


def test_run_help_usage_reads_run_file_options():
    assert _help("run").splitlines()[0] == "usage: scenario-tui run FILE... [options]"
