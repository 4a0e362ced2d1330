"""Benchmark: running a big file to the end with `c` in the TUI, against the headless executor over
the same file, same demo API, same run.

    python bench/tui_run_all.py [--scenarios 2000] [--rounds 3] [--profile]

The file has N standalone scenarios of 2 steps (`when: GET /health`, `then: status 200`), a
feature of 10 sharing ones at the top. The demo API runs in its own process (`scenario-tui
demo-server`), so neither side shares the interpreter's lock with the server.

- headless: `Execution([file])` pulled to its end, the file parsed beforehand (not timed);
- tui:      `ScenarioApp` under `App.run_test` at 120x40, the file loaded and painted, timed from
            pressing `c` until the run has finished and the app has settled (the last panels drawn).

Both alternate, ROUNDS times each, after a warm-up of each; the medians and their ratio are printed,
and the median of each round's own ratio (steadier on a shared machine); target: tui <= 1.5x headless. --profile runs the TUI once more under cProfile and prints where
its time goes.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import http.client
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scenario_core.language.parser import load_file
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.executor import Execution
from scenario_core.run.options import RunOptions
from scenario_core.run.stepper import FINISHED
from scenario_tui.app.shell import ScenarioApp

SIZE = (120, 40)


def write_file(directory: Path, count: int) -> Path:
    parts = [
        "parameters:\n  timeout: 10\n\n",
        "feature: Shared\n  parameters:\n    shareVariablesAcrossScenarios: true\n",
    ]
    parts += [f"  scenario: shared {i}\n    when: GET /health\n    then: status 200\n" for i in range(10)]
    parts.append("\n")
    parts += [f"scenario: s{i}\n  when: GET /health\n  then: status 200\n\n" for i in range(count - 10)]
    path = directory / f"run{count}.scenario"
    path.write_text("".join(parts), encoding="utf-8")
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server() -> tuple[subprocess.Popen, str]:
    port = free_port()
    command = [
        sys.executable,
        "-c",
        "import sys; from scenario_tui.cli.main import main; sys.exit(main())",
        "demo-server",
        "--port",
        str(port),
    ]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.perf_counter() + 20
    while True:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            connection.request("GET", "/health")
            connection.getresponse().read()
            connection.close()
            return server, url
        except OSError:
            if time.perf_counter() > deadline or server.poll() is not None:
                server.kill()
                raise SystemExit("the demo server did not start") from None
            time.sleep(0.05)


async def _headless(path: Path, url: str) -> float:
    file = load_file(path)
    gc.collect()  # what the last round left is not this one's to collect
    started = time.perf_counter()
    final = None
    for event in Execution([file], RunOptions(overrides=RunOverrides.from_cli([], url))).events():
        final = event
    elapsed = time.perf_counter() - started
    assert final is not None and final.passed == final.total, "the headless run failed"
    return elapsed


async def _tui(path: Path, url: str) -> float:
    app = ScenarioApp(str(path), RunOverrides.from_cli([], url), {}, watch=False, deterministic=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        gc.collect()
        started = time.perf_counter()
        await pilot.press("c")
        while app.stepper.state != FINISHED or app.run_controller.advancing:
            await asyncio.sleep(0.005)  # (not pilot.pause: its own waiting would be measured too)
        await pilot.pause()  # the last frame
        elapsed = time.perf_counter() - started
        done = app.stepper.finished
        assert done is not None and done.passed == done.total, "the TUI run failed"
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenarios", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)

    server, url = start_server()
    try:
        with tempfile.TemporaryDirectory(prefix="tui-run-all-") as tmp:
            path = write_file(Path(tmp), args.scenarios)
            asyncio.run(_headless(path, url))  # warm-up: imports, the parser's tables, connections
            asyncio.run(_tui(path, url))
            headless, tui = [], []
            for _ in range(args.rounds):
                headless.append(asyncio.run(_headless(path, url)))
                tui.append(asyncio.run(_tui(path, url)))
            h, t = statistics.median(headless), statistics.median(tui)
            print(f"{args.scenarios} scenarios, {args.rounds} rounds (median), cpus: {os.cpu_count()}")
            print(f"  headless executor  {h:7.3f} s   ({', '.join(f'{x:.2f}' for x in headless)})")
            print(f"  TUI, c to the end  {t:7.3f} s   ({', '.join(f'{x:.2f}' for x in tui)})")
            paired = statistics.median(b / a for a, b in zip(headless, tui))
            print(
                f"  ratio              {t / h:7.2f}x  (of the medians; each round's own: median {paired:.2f}x; "
                f"target <= 1.5x)"
            )
            if args.profile:
                import cProfile
                import pstats

                profiler = cProfile.Profile()
                profiler.enable()
                asyncio.run(_tui(path, url))
                profiler.disable()
                pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(30)
    finally:
        server.terminate()
        server.wait(10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
