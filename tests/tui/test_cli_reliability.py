"""The console script as a whole process, where its inputs or its ending are unusual: a `--var`
that is not UTF-8, file names with terminal escapes in `check --format github`, reports written
while signals arrive, report paths through symlinks, `--coverage-min` with nothing to cover.
Every case ends in at most one line on standard error, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(sys.executable).with_name("scenario-tui")
ENV = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR")}


def cli_bytes(*args: bytes, cwd: Path, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run([bytes(SCRIPT), *args], capture_output=True, timeout=timeout, env=ENV, cwd=cwd)


def test_a_var_that_is_not_utf8_is_a_usage_error_naming_it(tmp_path):
    (tmp_path / "v.scenario").write_text(
        "parameters:\n  baseUrl: http://127.0.0.1:9\nscenario: v\n  when: GET /x\n    headers:\n      X-A: {{x}}\n"
    )
    result = cli_bytes(b"run", b"v.scenario", b"--var", b"x=a\xffb", b"--report-json", b"out.json", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, b"")
    assert result.stderr == (
        b"scenario-tui: error: --var x: the value is not valid UTF-8 text "
        b"(bytes the terminal or shell could not decode)\n"
    )


def test_a_file_name_that_is_not_utf8_still_gets_its_json_report(tmp_path):
    name = b"a\xff.scenario"
    (tmp_path / os.fsdecode(name)).write_text(
        "parameters:\n  baseUrl: http://127.0.0.1:9\nscenario: v\n  when: GET /x\n"
    )
    result = cli_bytes(b"run", name, b"--report-json", b"out.json", cwd=tmp_path)
    assert result.returncode == 1 and b"Traceback" not in result.stderr, result.stderr
    report = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert report["files"][0]["path"] == "a\udcff.scenario"


def test_check_format_github_escapes_a_file_names_terminal_escapes(tmp_path):
    name = "bad\x1b]0;owned\x07\x1b[2J.scenario"
    (tmp_path / name).write_text("scenario: s\n  when: GET\n")
    result = cli_bytes(b"check", os.fsencode(name), b"--format", b"github", cwd=tmp_path)
    assert result.returncode == 2
    assert not any(c < 0x20 and c != 0x0A for c in result.stdout + result.stderr), result.stdout
    assert result.stdout.startswith(b"::error file=bad\\x1b]0;owned\\x07\\x1b[2J.scenario,line=2,")
