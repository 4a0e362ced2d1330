"""Benchmark: `scenario-tui run --jobs` on a latency-bound suite.

    python bench/parallel_files.py [--files 8] [--requests 25] [--ms 20] [--rounds 3]

FILES scenario files, each one scenario of REQUESTS steps `when: GET /slow?ms=MS` against the
demo API on loopback (a threaded server in this process: every request waits MS ms). Three
whole-process runs, ROUNDS times each, best kept:
- ideal: one file alone (what FILES files would take if they cost nothing to run side by side);
- `run --jobs FILES` on every file;
- `run --jobs 1` on every file.
Times are each run's own duration (its JSON report's duration_s: start-up excluded, as it is
the same for all three); wall-clock times, start-up included, are printed beside them.
Targets: --jobs FILES within 1.3x of ideal, at least 5x faster than --jobs 1.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scenario_core.demo.server import DemoServer

SCRIPT = Path(sys.executable).with_name("scenario-tui")


def scenario(requests: int, ms: int) -> str:
    steps = "".join(f"  when: GET /slow?ms={ms}\n  then: status 200\n" for _ in range(requests))
    return f"scenario: latency-bound\n{steps}"


def timed(files: list[Path], base_url: str, jobs: int, report: Path) -> tuple[float, float]:
    """(the run's own duration, wall-clock seconds) of one whole-process run."""
    started = time.perf_counter()
    result = subprocess.run(
        [
            str(SCRIPT),
            "run",
            *map(str, files),
            "--base-url",
            base_url,
            "--jobs",
            str(jobs),
            "--report-json",
            str(report),
        ],
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"run failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    return json.loads(report.read_text())["summary"]["duration_s"], wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--requests", type=int, default=25)
    parser.add_argument("--ms", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder, DemoServer() as server:
        root = Path(folder)
        files = []
        for i in range(options.files):
            path = root / f"file{i}.scenario"
            path.write_text(scenario(options.requests, options.ms))
            files.append(path)
        report = root / "report.json"
        timed(files[:1], server.url, 1, report)  # warm the page cache and the server
        cases = {
            "ideal (one file)": (files[:1], 1),
            f"--jobs {options.files}": (files, options.files),
            "--jobs 1": (files, 1),
        }
        best: dict[str, tuple[float, float]] = {}
        for _ in range(options.rounds):  # alternating, so a slow moment of the machine hits all three
            for name, (chosen, jobs) in cases.items():
                measured = timed(chosen, server.url, jobs, report)
                best[name] = min(best.get(name, measured), measured)

    print(
        f"{options.files} files x {options.requests} requests, server answers after {options.ms} ms; "
        f"best of {options.rounds}"
    )
    for name, (own, wall) in best.items():
        print(f"  {name:<18} {own * 1000:8.0f} ms   (whole process {wall * 1000:.0f} ms)")
    ideal, parallel, serial = (best[n][0] for n in cases)
    vs_ideal, speedup = parallel / ideal, serial / parallel
    print(
        f"--jobs {options.files} / ideal:   {vs_ideal:.2f}x  (target <= 1.3x) {'ok' if vs_ideal <= 1.3 else 'MISSED'}"
    )
    print(f"--jobs 1 / --jobs {options.files}: {speedup:.2f}x  (target >= 5x)   {'ok' if speedup >= 5 else 'MISSED'}")


if __name__ == "__main__":
    main()
