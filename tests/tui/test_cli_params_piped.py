"""`params` piped to a file or a pager prints each value on one line, however long."""

from __future__ import annotations

import os
import subprocess
import sys

LONG = "http://example.com/" + "/".join(["segment"] * 20)


def test_params_piped_does_not_wrap_at_80_columns(tmp_path):
    path = tmp_path / "long.scenario"
    path.write_text(
        f"parameters:\n  baseUrl: {LONG}\nscenario: s\n  when: GET /health\n  then: status 200\n", encoding="utf-8"
    )
    env = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES")}
    command = [
        sys.executable,
        "-c",
        "import sys; from scenario_tui.cli.main import main; sys.exit(main())",
        "params",
        str(path),
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 0, result.stderr
    line = next(line for line in result.stdout.splitlines() if "baseUrl" in line)
    assert LONG in line and "← file (line 2)" in line
    assert all(line == line.rstrip() for line in result.stdout.splitlines())  # no padding to a width
