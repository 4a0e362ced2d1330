"""Benchmark: the pytest plugin against `scenario-tui run` on the same suite.

    python bench/pytest_overhead.py [--files 8] [--scenarios 25] [--workers 2] [--rounds 3]

FILES scenario files of SCENARIOS one-request scenarios each (`when: GET /health` + `then:
status 200`) against the demo API on loopback (a threaded server in this process). Whole
processes, alternating, ROUNDS times each, best kept:
- `scenario-tui run --jobs WORKERS` on every file;
- `pytest -n WORKERS` (pytest-xdist, the plugin grouping each file on one worker) on every file;
- `pytest` in one process and `scenario-tui run --jobs 1`.
Each case also runs on files four times as long: the difference, per added scenario, is each
tool's cost per scenario with start-up (pytest's own, xdist's workers) taken out. Prints the
times and the plugin's cost per scenario beyond `run`'s (target: under 1 ms).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scenario_core.demo.server import DemoServer

BIN = Path(sys.executable).parent


def scenarios(count: int) -> str:
    return "".join(f"scenario: health {i}\n  when: GET /health\n  then: status 200\n" for i in range(count))


def timed(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, cwd=cwd)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(
            f"{' '.join(command[:3])} … failed ({result.returncode}):\n{result.stdout[-2000:]}{result.stderr[-2000:]}"
        )
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--scenarios", type=int, default=25)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder, DemoServer() as server:
        root = Path(folder)
        (root / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider -p no:textual-snapshot -q\n")
        suites: dict[int, list[str]] = {}
        for size in (options.scenarios, 4 * options.scenarios):
            suites[size] = []
            for i in range(options.files):
                path = root / f"s{size}_{i}.scenario"
                path.write_text(scenarios(size))
                suites[size].append(path.name)

        def cases(files: list[str]) -> dict[str, list[str]]:
            run = [str(BIN / "scenario-tui"), "run", *files, "--base-url", server.url]
            pytest = [str(BIN / "pytest"), *files, "--scenario-base-url", server.url]
            return {
                f"run --jobs {options.workers}": run + ["--jobs", str(options.workers)],
                f"pytest -n {options.workers}": pytest + ["-n", str(options.workers)],
                "run --jobs 1": run,
                "pytest (one process)": pytest,
            }

        timed(cases(suites[options.scenarios])["run --jobs 1"], root)  # warm caches and the server
        best: dict[tuple[str, int], float] = {}
        for _ in range(options.rounds):
            for size, files in suites.items():
                for name, command in cases(files).items():
                    best[name, size] = min(best.get((name, size), float("inf")), timed(command, root))

    small, large = options.scenarios, 4 * options.scenarios
    added = options.files * (large - small)
    print(f"{options.files} files x {small} and x {large} scenarios, best of {options.rounds}, whole processes")
    per: dict[str, float] = {}
    for name in cases([]):
        per[name] = (best[name, large] - best[name, small]) / added * 1000
        print(
            f"  {name:<22} {best[name, small] * 1000:7.0f} ms  {best[name, large] * 1000:7.0f} ms   "
            f"{per[name]:.2f} ms per added scenario"
        )
    names = list(per)
    single, parallel = per[names[3]] - per[names[2]], per[names[1]] - per[names[0]]
    print(
        f"plugin cost per scenario beyond run: {single:.2f} ms in one process, {parallel:.2f} ms with "
        f"-n {options.workers} vs --jobs {options.workers}  (target < 1 ms) {'ok' if single < 1 else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
