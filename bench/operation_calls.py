"""Benchmark: operation calls checked against their schema vs the same requests written as paths.

    python bench/operation_calls.py [--steps 600] [--rounds 5] [--description-mb 0] [--coverage]

Two scenarios, each run by `scenario-tui run` as a fresh process against the demo API, alternating,
ROUNDS times each; the medians and their ratio are printed (target: ratio <= 1.3):
- ours: N x (`when: ^getPetById` + `id: {{petId}}` / `then: status 200` / `then: schema`), the
  operation found in core/demo/petstore.yaml, the response validated against its schema;
- baseline: N x (`when: GET /pets/{{petId}}` / `then: status 200`), no description at all.

--description-mb M pads the description with generated operations up to about M MB, to show that
a large description is loaded once per run, not per step (its load time then shows in both the
ratio and the startup line).

--coverage also runs `ours` with `run --coverage` in the same rounds (alternating with `ours`
without it) and prints that ratio (target: <= 1.05, coverage costs at most 5%). On a loaded
machine that ratio is noisy, so it also prints the collector's own share, measured in one
process: the events of one run of `ours` fed again to a fresh CoverageCollector (best of 5), over
that run's time.
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

from scenario_core.demo.server import DemoServer

SCRIPT = Path(sys.executable).with_name("scenario-tui")
PETSTORE = Path(__file__).resolve().parents[1] / "core" / "demo" / "petstore.yaml"

HEAD = """\
parameters:
  openapi: {description}
scenario: chain
  when: POST /login
    body: {{"username": "bench", "password": "bench"}}
  extract: token from $.token
  when: POST /pets
    headers:
      Authorization: Bearer {{{{token}}}}
    body: {{"name": "Rex", "tag": "dog"}}
  extract: petId from $.id
"""
CALL = "  when: ^getPetById\n    id: {{petId}}\n  then: status 200\n  then: schema\n"
PATH = "  when: GET /pets/{{petId}}\n  then: status 200\n"


def padded_description(megabytes: float, folder: str) -> str:
    """The demo description with generated operations appended, about `megabytes` in size."""
    text = PETSTORE.read_text(encoding="utf-8")
    if megabytes <= 0:
        return str(PETSTORE)
    extra, i = [], 0
    size = len(text)
    while size < megabytes * 1024 * 1024:
        block = (
            f"  /generated/{i}/{{id}}:\n    get:\n      operationId: generated{i}\n"
            f"      parameters:\n        - {{name: id, in: path, required: true, schema: {{type: integer}}}}\n"
            f'      responses:\n        "200":\n          description: ok\n          content:\n'
            f'            application/json:\n              schema: {{$ref: "#/components/schemas/Pet"}}\n'
        )
        extra.append(block)
        size += len(block)
        i += 1
    marker = "\npaths:\n"
    head, tail = text.split(marker, 1)
    path = Path(folder, "large.yaml")
    path.write_text(head + marker + "".join(extra) + tail, encoding="utf-8")
    return str(path)


def timed(path: Path, url: str, *extra: str) -> float:
    # Bytecode caching on, as on a user's machine: this environment sets PYTHONDONTWRITEBYTECODE,
    # which recompiles every module on every start and so charges the side with more code twice.
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "PYTHONDONTWRITEBYTECODE")}
    started = time.perf_counter()
    result = subprocess.run([str(SCRIPT), "run", str(path), "--base-url", url, *extra], capture_output=True, env=env)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"{path.name} failed:\n{result.stdout.decode()}\n{result.stderr.decode()}")
    return elapsed


def collector_share(path: Path, url: str) -> tuple[float, float]:
    """(seconds the collector takes for all of a run's events, best of 5; seconds the run took)."""
    from scenario_core.parameters.resolution import RunOverrides
    from scenario_core.report.coverage_collector import CoverageCollector
    from scenario_core.run.executor import run_to_completion

    started = time.perf_counter()
    events = run_to_completion([str(path)], RunOverrides.from_cli([], url), {})
    run = time.perf_counter() - started
    best = float("inf")
    for _ in range(5):
        collector = CoverageCollector()
        started = time.perf_counter()
        for event in events:
            collector.feed(event)
        best = min(best, time.perf_counter() - started)
    return best, run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--description-mb", type=float, default=0)
    parser.add_argument("--coverage", action="store_true", help="also time `ours` with run --coverage")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, DemoServer() as server:
        description = padded_description(args.description_mb, tmp)
        ours, plain = Path(tmp, "calls.scenario"), Path(tmp, "paths.scenario")
        ours.write_text(HEAD.format(description=description) + CALL * args.steps)
        plain.write_text(
            HEAD.format(description=description)
            .replace(f"  openapi: {description}\n", "")
            .replace("parameters:\n", "parameters:\n  timeout: 30\n")
            + PATH * args.steps
        )
        startup = Path(tmp, "startup.scenario")
        startup.write_text(HEAD.format(description=description) + CALL)
        timed(ours, server.url)  # warm the parser's cache and the OS's file cache
        with_calls, with_paths, startups, with_coverage = [], [], [], []
        for _ in range(args.rounds):
            with_calls.append(timed(ours, server.url))
            if args.coverage:
                with_coverage.append(timed(ours, server.url, "--coverage"))
            with_paths.append(timed(plain, server.url))
            startups.append(timed(startup, server.url))
        a, b = statistics.median(with_calls), statistics.median(with_paths)
        size = os.path.getsize(description) / (1024 * 1024)
        print(f"{args.steps} steps, {args.rounds} rounds (medians), description {size:.1f} MB")
        print(f"  ^getPetById + then: schema: {a:.3f} s")
        print(f"  GET /pets/{{{{petId}}}}, no schema: {b:.3f} s")
        print(f"  one call (startup, description load): {statistics.median(startups):.3f} s")
        print(f"  ratio:                      {a / b:.2f}  (target <= 1.3)")
        if with_coverage:
            c = statistics.median(with_coverage)
            print(f"  ^getPetById with --coverage: {c:.3f} s")
            print(f"  coverage ratio:             {c / a:.3f}  (target <= 1.05)")
            own, run = collector_share(ours, server.url)
            print(f"  collector alone:            {own * 1000:.1f} ms of a {run:.3f} s run ({own / run:.1%})")


if __name__ == "__main__":
    main()
