"""Benchmark: `scenario-tui run --jobs N` against `hurl --test --jobs N` on a
latency-bound suite, whole processes, one sitting.

    python bench/peers_jobs.py [--files 8] [--requests 25] [--ms 20] [--rounds 3] [--hurl PATH | --no-hurl]

FILES files, each REQUESTS x (`GET /slow?ms=MS`, status 200), against the demo API on loopback (a
threaded server in this process: every request waits MS ms), run by each tool with --jobs FILES;
interleaved, best of ROUNDS wall-clock times, start-up included. The server counts the requests
each run sent. Target: scenario-tui <= 1.1x Hurl. Hurl is found as bench/peers_chain.py finds it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from peers_chain import find_hurl, tool_command  # bench/: python puts the script's folder first

from scenario_core.demo.server import DemoServer

TARGET = 1.1
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def scenario_text(requests: int, ms: int) -> str:
    steps = "".join(f"  when: GET /slow?ms={ms}\n  then: status 200\n" for _ in range(requests))
    return f"scenario: latency-bound\n{steps}"


def hurl_text(requests: int, ms: int) -> str:
    return "\n".join(f"GET {{{{base}}}}/slow?ms={ms}\nHTTP 200\n" for _ in range(requests))


def timed(command: list[str]) -> float:
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=ENV, check=False)
    wall = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"failed ({result.returncode}): {' '.join(command)}\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
    return wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--requests", type=int, default=25)
    parser.add_argument("--ms", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--hurl", help="the hurl executable (else $HURL, PATH, shared/tools/get-hurl)")
    parser.add_argument("--no-hurl", action="store_true", help="leave Hurl out (the ratio reads n/a)")
    args = parser.parse_args()
    hurl, how = find_hurl(args)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; Hurl: {hurl or 'NOT FOUND'} ({how})")

    with tempfile.TemporaryDirectory(prefix="peers-jobs-") as folder, DemoServer() as server:
        root = Path(folder)
        ours, theirs = [], []
        for i in range(args.files):
            ours.append(root / f"file{i}.scenario")
            ours[-1].write_text(scenario_text(args.requests, args.ms), encoding="utf-8")
            theirs.append(root / f"file{i}.hurl")
            theirs[-1].write_text(hurl_text(args.requests, args.ms), encoding="utf-8")
        jobs = str(args.files)
        commands = {"scenario-tui run --jobs": tool_command() + ["run", *map(str, ours), "--base-url", server.url]}
        commands["scenario-tui run --jobs"] += ["--jobs", jobs]
        if hurl:
            commands["hurl --test --jobs"] = [hurl, "--test", "--jobs", jobs, "--variable", f"base={server.url}"]
            commands["hurl --test --jobs"] += list(map(str, theirs))
        best: dict[str, float] = {}
        for round_ in range(args.rounds + 1):  # round 0 warms caches; not counted
            for name, command in commands.items():
                wall = timed(command)
                if round_:
                    best[name] = min(best.get(name, wall), wall)

    print(
        f"{args.files} files x {args.requests} requests (server answers after {args.ms} ms), --jobs {jobs}; "
        f"best of {args.rounds} whole processes"
    )
    for name, wall in best.items():
        print(f"  {name:<24} {wall * 1000:8.0f} ms")
    if not hurl:
        print("scenario-tui / Hurl: n/a (no Hurl)")
        return 0
    ratio = best["scenario-tui run --jobs"] / best["hurl --test --jobs"]
    print(f"scenario-tui / Hurl: {ratio:.2f}x (target <= {TARGET}x) {'met' if ratio <= TARGET else 'NOT MET'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
