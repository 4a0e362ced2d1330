"""Benchmark: what static scope analysis adds to `scenario-tui check`, whole process, on the
generated 50,000-line file of check_large_file.py: `check` against the same command with the
analysis left out (load, validate, print the ok line), same run, median of rounds.

    python bench/scope_analysis.py [--lines 50000] [--rounds 5]

Prints both medians and the ratio (target: <= 1.3), in wall-clock time and in the processes' CPU
time (user + system), which other work on a shared machine disturbs far less. The generated file reads {{age}} and {{n}},
which nothing extracts: `--warned` keeps them (about 20,000 warnings printed), by default they
are passed with --var, as a clean file would be.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_large_file import generate  # noqa: E402

WITHOUT = r"""
import sys
from scenario_core.parameters.diagnostics import load_valid
from scenario_tui.cli.check import counted
(node,) = load_valid([sys.argv[1]])
scenarios = len(node.scenarios) + sum(len(f.scenarios) for f in node.features)
print(f"{sys.argv[1]}: ok ({counted(len(node.features), 'feature')}, {counted(scenarios, 'scenario')}, "
      f"{counted(len(node.fragments), 'fragment')})")
"""


def timed(command: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one whole process. Its output goes to files, not pipes: a
    pipe nobody reads while we wait would stop a process that prints 20,000 warnings."""
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            errors.seek(0)
            sys.exit(f"failed: {' '.join(command)}\n{errors.read().decode()[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__)
    options.add_argument("--lines", type=int, default=50_000)
    options.add_argument("--rounds", type=int, default=5)
    options.add_argument("--warned", action="store_true", help="leave {{age}} and {{n}} undefined: ~20,000 warnings")
    args = options.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "large.scenario"
        lines = generate(args.lines).splitlines()
        while lines and not lines[-1].startswith("    then: time"):  # a cut-off scenario would be invalid
            lines.pop()
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        without_script = Path(tmp) / "without.py"
        without_script.write_text(WITHOUT)
        variables = [] if args.warned else ["--var", "age=1", "--var", "n=1"]
        with_command = [
            sys.executable,
            "-c",
            "import sys; from scenario_tui.cli.main import main; sys.exit(main())",
            "check",
            str(path),
            *variables,
        ]
        without_command = [sys.executable, str(without_script), str(path)]
        timed(with_command), timed(without_command)  # warm caches: lark's grammar cache, the OS page cache
        with_analysis, without = [], []
        for _ in range(args.rounds):
            with_analysis.append(timed(with_command))
            without.append(timed(without_command))
    print(f"file: {len(lines):,} lines{' (with ~20,000 warnings)' if args.warned else ''}")
    for label, at in (("wall", 0), ("cpu", 1)):
        ours = statistics.median(t[at] for t in with_analysis)
        baseline = statistics.median(t[at] for t in without)
        print(
            f"{label}: check with analysis     median {ours:.3f} s  (runs: {', '.join(f'{t[at]:.3f}' for t in with_analysis)})"
        )
        print(
            f"{label}: check without analysis  median {baseline:.3f} s  (runs: {', '.join(f'{t[at]:.3f}' for t in without)})"
        )
        print(f"{label}: ratio with / without: {ours / baseline:.2f}  (target <= 1.3)")


if __name__ == "__main__":
    main()
