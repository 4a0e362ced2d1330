"""Benchmark: `scenario-tui run --jobs 8 --dist scope` on one file of independent scenarios.

    python bench/scope_parallel.py [--hurl PATH] [--scenarios 40] [--ms 150] [--jobs 8] [--rounds 5]

One `.scenario` file of SCENARIOS isolated scenarios (`when: GET /slow?ms=MS`, `then: status 200`)
and a sharing feature of three scenarios that pass a value along (each `extract`s what the next
sends), against the demo API on loopback (a threaded server in this process: every request waits
MS ms). Whole processes, start-up included, interleaved, best of ROUNDS:
- `run --jobs 1` (one scenario after another);
- `run --jobs JOBS --dist scope` (the units the scope rules keep apart, JOBS at once);
- with --hurl, Hurl at its best on the same requests: one `.hurl` file per isolated scenario and
  one for the sharing feature's three, `hurl --test --jobs JOBS` (Hurl runs files at once, never
  the entries of one file).
Every run must pass. Targets: --dist scope at least 4x faster than --jobs 1, and within 1.1x of
Hurl's one-file-per-scenario run -- while our user keeps one file.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scenario_core.demo.server import DemoServer

SCRIPT = Path(sys.executable).with_name("scenario-tui")


def scenario_file(scenarios: int, ms: int) -> str:
    isolated = "".join(
        f"scenario: isolated {n}\n  when: GET /slow?ms={ms}\n  then: status 200\n\n" for n in range(scenarios)
    )
    sharing = (
        "feature: passes a value along\n"
        "  parameters:\n"
        "    shareVariablesAcrossScenarios: true\n"
        f"  scenario: first\n    when: GET /slow?ms={ms}\n    then: status 200\n    extract: ms from $.slept_ms\n"
        "  scenario: second\n    when: GET /slow?ms={{ms}}\n    then: status 200\n    extract: ms from $.slept_ms\n"
        "  scenario: third\n    when: GET /slow?ms={{ms}}\n    then: status 200\n"
    )
    return isolated + sharing


def hurl_files(folder: Path, scenarios: int, ms: int) -> list[Path]:
    files = []
    for n in range(scenarios):
        path = folder / f"isolated{n:03}.hurl"
        path.write_text(f"GET {{{{base}}}}/slow?ms={ms}\nHTTP 200\n")
        files.append(path)
    sharing = folder / "sharing.hurl"
    sharing.write_text(
        f'GET {{{{base}}}}/slow?ms={ms}\nHTTP 200\n[Captures]\nms: jsonpath "$.slept_ms"\n\n'
        'GET {{base}}/slow?ms={{ms}}\nHTTP 200\n[Captures]\nms: jsonpath "$.slept_ms"\n\n'
        "GET {{base}}/slow?ms={{ms}}\nHTTP 200\n"
    )
    return files + [sharing]


def timed(command: list[str]) -> float:
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"{command[0]} failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hurl", help="a hurl binary, for the side-by-side row")
    parser.add_argument("--scenarios", type=int, default=40)
    parser.add_argument("--ms", type=int, default=150)
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder, DemoServer() as server:
        root = Path(folder)
        suite = root / "suite.scenario"
        suite.write_text(scenario_file(options.scenarios, options.ms))
        run = [str(SCRIPT), "run", str(suite), "--base-url", server.url]
        cases = {
            "run --jobs 1": run + ["--jobs", "1"],
            f"run --jobs {options.jobs} --dist scope": run + ["--jobs", str(options.jobs), "--dist", "scope"],
        }
        if options.hurl:
            files = hurl_files(root, options.scenarios, options.ms)
            cases[f"hurl --test --jobs {options.jobs} ({len(files)} files)"] = [
                options.hurl, "--test", "--jobs", str(options.jobs), "--variable", f"base={server.url}", *map(str, files)
            ]  # fmt: skip
        for command in cases.values():  # warm the page cache and the server
            timed(command)
        best: dict[str, float] = {}
        for _ in range(options.rounds):  # interleaved: a slow moment of the machine hits every row
            for name, command in cases.items():
                best[name] = min(best.get(name, float("inf")), timed(command))

    print(
        f"{options.scenarios} isolated scenarios + a sharing feature of 3, server answers after {options.ms} ms; "
        f"whole processes, best of {options.rounds}, interleaved"
    )
    for name, seconds in best.items():
        print(f"  {name:<40} {seconds * 1000:8.0f} ms")
    names = list(best)
    serial, scoped = best[names[0]], best[names[1]]
    speedup = serial / scoped
    print(f"--jobs 1 / --dist scope: {speedup:.2f}x  (target >= 4x)   {'ok' if speedup >= 4 else 'MISSED'}")
    if options.hurl:
        ratio = scoped / best[names[2]]
        print(f"--dist scope / hurl:     {ratio:.2f}x  (target <= 1.1x) {'ok' if ratio <= 1.1 else 'MISSED'}")


if __name__ == "__main__":
    main()
