"""Helpers shared by the tests of the console script (tests/tui, tests/test_*.py): it runs as a
user runs it, in a child process, with the colour variables of the test's own terminal unset."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

SCRIPT = Path(sys.executable).with_name("scenario-tui")
ENV = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR")}
IN_PROCESS_MAIN = "import sys; from scenario_tui.cli.main import main; sys.exit(main())"


def cli(*args: str, timeout: float = 30, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """`scenario-tui ARGS...`, its output captured."""
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, timeout=timeout, env=ENV, **kwargs)


def main_cli(*args: str, cwd: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """`main(ARGS)` in a fresh interpreter, 200 columns wide (rich wraps long lines at the width)."""
    command = [sys.executable, "-c", IN_PROCESS_MAIN, *args]
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=timeout, env=env)
