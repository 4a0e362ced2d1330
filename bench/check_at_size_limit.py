"""Benchmark: `scenario-tui check` of a file at the size limit, in its worst shape (the shortest
scenarios, one request each), whole process, against the budget the limit was chosen for:
60 s and 1 GiB on 2 cores (docs/limits.md).

    python bench/check_at_size_limit.py [--rounds 1]

Prints the time and peak memory of each round and their ratios to the budget (target: <= 1.0
both). The parse cache is off: a file this large is parsed each time anyway.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scenario_core.language.parser import MAX_FILE_BYTES

BUDGET_SECONDS = 60.0
BUDGET_BYTES = 1024**3
HEAD = "parameters:\n  baseUrl: http://127.0.0.1:1\n\n"


def worst_file(path: Path) -> int:
    """The file at the limit: as many two-line scenarios as fit. Returns their count."""
    count, size = 0, len(HEAD)
    with open(path, "w", encoding="utf-8") as out:
        out.write(HEAD)
        while True:
            chunk = f"scenario: {count}\n  when: GET /\n"
            if size + len(chunk) > MAX_FILE_BYTES:
                break
            out.write(chunk)
            size += len(chunk)
            count += 1
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    exe = Path(sys.executable).with_name("scenario-tui")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "limit.scenario"
        count = worst_file(path)
        print(f"{path.stat().st_size:,} bytes (limit {MAX_FILE_BYTES:,}), {count:,} scenarios")
        env = dict(os.environ, SCENARIO_TUI_NO_CACHE="1")
        for round_ in range(args.rounds):
            started = time.perf_counter()
            process = subprocess.Popen([str(exe), "check", str(path)], stdout=subprocess.DEVNULL, env=env)
            _, status, usage = os.wait4(process.pid, 0)
            seconds = time.perf_counter() - started
            peak = usage.ru_maxrss * 1024  # kilobytes on Linux
            if os.waitstatus_to_exitcode(status) != 0:
                sys.exit(f"check failed with status {os.waitstatus_to_exitcode(status)}")
            print(
                f"round {round_ + 1}: {seconds:.1f} s ({seconds / BUDGET_SECONDS:.2f} of 60 s), "
                f"{peak / 1024**2:.0f} MiB ({peak / BUDGET_BYTES:.2f} of 1 GiB)"
            )


if __name__ == "__main__":
    main()
