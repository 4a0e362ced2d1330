"""Benchmark: one chained workload through Hurl, a bare http.client loop, a bare httpx loop
and `scenario-tui run`, against one loopback server, in one sitting; each as a ratio to Hurl and to
the http.client floor. Also per-request cost in one process, start-up, and peak memory.

    python bench/peers_chain.py [--repeats 3] [--quick] [--hurl PATH | --no-hurl] [--profile]

The workload: POST /items, then N x (GET /items/{id}, status check, JSON extract of the id the next
GET asks for), N = 1000 and 300. The server (bench/_peers.py, its own process) hands out random
ids and counts what it receives: a runner that did not send every request, or did not use the
extracted value in the next URL, fails the benchmark. Runners:

    hurl --test     a generated .hurl file (captures); `hurl` without --test is shown too
    http.client     one keep-alive HTTPConnection + json + jsonpath_ng.ext (the floor)
    httpx           one httpx.Client + jsonpath_ng.ext
    scenario-tui    `scenario-tui run FILE --base-url URL` on a generated .scenario file

Whole processes, interleaved, best of --repeats. Hurl is taken from --hurl, $HURL, PATH, or the
project's shared/tools/get-hurl (found above this checkout); without it the Hurl ratios read n/a.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import runpy
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _peers  # bench/_peers.py: python puts the script's folder first on sys.path

HERE = Path(__file__).resolve().parent
# As on a user's machine, where Python caches compiled modules (see bench/run_chain.py).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
TARGETS = {
    "floor": 1.15,  # scenario-tui run / the http.client script, at every N: our own overhead
    "chain_big": 1.5,
    "chain_small": 2.0,
    "run_start": 80.0,
    "check_start": 60.0,
    "in_process": 1.5,
    "memory": 1.2,
}
HURL, HURL_PLAIN, HTTP_CLIENT, HTTPX, OURS = "hurl --test", "hurl (plain)", "http.client", "httpx", "scenario-tui run"
# The parse cache (core/language/parse_cache.py) is warm after the first run of a file: also shown off.
OURS_COLD = "scenario-tui run, parse cache off"
NO_CACHE = ["env", "SCENARIO_TUI_NO_CACHE=1"]


def find_hurl(args: argparse.Namespace) -> tuple[str | None, str]:
    """(path, how it was found) or (None, why not)."""
    if args.no_hurl:
        return None, "--no-hurl given"
    for path, how in ((args.hurl, "--hurl"), (os.environ.get("HURL"), "$HURL"), (shutil.which("hurl"), "PATH")):
        if path:
            return path, how
    tool = next((p / "shared/tools/get-hurl" for p in HERE.parents if (p / "shared/tools/get-hurl").is_file()), None)
    if tool is None:
        return None, "not on PATH, $HURL unset, no shared/tools/get-hurl above this checkout"
    try:
        result = subprocess.run([str(tool)], capture_output=True, text=True, timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return None, f"{tool} failed: {error}"
    lines = result.stdout.split()
    if result.returncode != 0 or not lines:
        return None, f"{tool} failed ({result.returncode}): {result.stderr.strip()[-300:]}"
    return lines[-1], str(tool)


def tool_command() -> list[str]:
    script = Path(sys.executable).with_name("scenario-tui")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from scenario_tui.cli.console import console; sys.exit(console())"]


class Bench:
    def __init__(self, args: argparse.Namespace, server: _peers.Server, tmp: Path, hurl: str | None):
        self.args, self.server, self.tmp, self.hurl = args, server, tmp, hurl
        self.problems: list[str] = []
        (tmp / "http_client_chain.py").write_text(_peers.HTTP_CLIENT, encoding="utf-8")
        (tmp / "httpx_chain.py").write_text(_peers.HTTPX, encoding="utf-8")
        for n in args.sizes:
            (tmp / f"chain_{n}.scenario").write_text(_peers.scenario_text(n), encoding="utf-8")
            (tmp / f"chain_{n}.hurl").write_text(_peers.hurl_text(n), encoding="utf-8")
        (tmp / "one.scenario").write_text(_peers.scenario_text(0), encoding="utf-8")
        (tmp / "one.hurl").write_text(_peers.hurl_text(0), encoding="utf-8")

    def commands(self, n: int) -> dict[str, list[str]]:
        url, tmp = self.server.url, self.tmp
        commands = {}
        if self.hurl:
            commands[HURL] = [self.hurl, "--test", "--variable", f"base={url}", str(tmp / f"chain_{n}.hurl")]
            commands[HURL_PLAIN] = [self.hurl, "--variable", f"base={url}", str(tmp / f"chain_{n}.hurl")]
        commands[HTTP_CLIENT] = [sys.executable, str(tmp / "http_client_chain.py"), url, str(n)]
        commands[HTTPX] = [sys.executable, str(tmp / "httpx_chain.py"), url, str(n)]
        commands[OURS] = tool_command() + ["run", str(tmp / f"chain_{n}.scenario"), "--base-url", url]
        commands[OURS_COLD] = NO_CACHE + commands[OURS]
        return commands

    def verify(self, what: str, posts: int, gets: int) -> dict:
        """The server's counts since the last call; a shortfall is recorded as a problem."""
        stats = self.server.stats()
        if (stats["posts"], stats["gets"], stats["chained"], stats["other"]) != (posts, gets, gets, 0):
            self.problems.append(
                f"{what}: the server got {stats['posts']} POST + {stats['gets']} GET ({stats['chained']} of them "
                f"for the id the previous response gave) + {stats['other']} other; expected {posts} + {gets} ({gets})"
            )
        return stats

    def run(self, what: str, command: list[str], posts: int, gets: int) -> tuple[_peers.Measured, dict]:
        measured = _peers.measure(command, ENV)
        return measured, self.verify(what, posts, gets)

    # ------------------------------------------------------------ whole-process chains

    def chains(self) -> dict[int, dict[str, list]]:
        args = self.args
        results: dict[int, dict[str, list]] = {n: {} for n in args.sizes}
        for name, command in self.commands(min(args.sizes)).items():  # warm caches and .pyc files; not counted
            self.run(f"{name} warm-up", command, 1, min(args.sizes))
        for _ in range(args.repeats):
            for n in args.sizes:
                for name, command in self.commands(n).items():
                    results[n].setdefault(name, []).append(self.run(f"{name} N={n}", command, 1, n))
        return results

    def print_chains(self, results: dict[int, dict[str, list]]) -> dict[int | str, float]:
        ratios: dict[int | str, float] = {}
        for n, runs in results.items():
            best = {name: min(runs[name], key=lambda r: r[0].wall) for name in runs}
            hurl = best[HURL][0].wall if HURL in best else None
            floor = best[HTTP_CLIENT][0].wall
            print(
                f"\n### chain: POST + {n:,} x (GET, status, extract)  ({n + 1:,} requests; "
                f"best of {self.args.repeats} whole processes)\n"
            )
            # CPU: each runner's least user+sys time; on a shared machine wall time mostly measures
            # the wait for a core, CPU time the work itself.
            cpu = {name: min(r[0].cpu for r in runs[name]) for name in runs}
            print(
                "| runner | time | per request | CPU (user+sys) | max RSS | conns | x Hurl | x Hurl, CPU | x http.client |"
            )
            print("|---|---|---|---|---|---|---|---|---|")
            for name, (measured, stats) in best.items():
                rss = max(r[0].rss for r in runs[name])
                x_hurl = f"{measured.wall / hurl:.2f}" if hurl else "n/a (no Hurl)"
                x_cpu = f"{cpu[name] / cpu[HURL]:.2f}" if hurl else "n/a (no Hurl)"
                print(
                    f"| {name} | {measured.wall * 1e3:,.0f} ms | {measured.wall / (n + 1) * 1e3:.3f} ms | "
                    f"{cpu[name] * 1e3:,.0f} ms | {rss / 1024:.1f} MiB | {stats['connections']} | {x_hurl} | "
                    f"{x_cpu} | {measured.wall / floor:.2f} |"
                )
            ratios[f"{n} (floor)"] = best[OURS][0].wall / floor
            if hurl:
                ratios[n] = best[OURS][0].wall / hurl
                ratios[f"{n} (CPU)"] = cpu[OURS] / cpu[HURL]
            server_cpu = min(s["server_cpu"] for _, s in runs[HTTP_CLIENT])
            print(
                f"\nserver CPU during the http.client run: {server_cpu / (n + 1) * 1e3:.3f} ms a request "
                "(part of every runner's time)"
            )
        sizes = sorted(results)
        if len(sizes) >= 2:  # the cost of one more request, start-up taken out
            small, big = sizes[0], sizes[-1]
            print(f"\n### per request beyond start-up: (best at N={big} - best at N={small}) / {big - small}\n")
            print("| runner | per request | x Hurl | x http.client |")
            print("|---|---|---|---|")
            slope = {
                name: (min(r[0].wall for r in results[big][name]) - min(r[0].wall for r in results[small][name]))
                / (big - small)
                for name in results[big]
            }
            for name, value in slope.items():
                x_hurl = f"{value / slope[HURL]:.2f}" if HURL in slope else "n/a (no Hurl)"
                print(f"| {name} | {value * 1e3:.3f} ms | {x_hurl} | {value / slope[HTTP_CLIENT]:.2f} |")
        if HURL in results[sizes[-1]]:
            print()
            for n in reversed(sizes):
                ours = max(r[0].rss for r in results[n][OURS])
                hurl_rss = max(r[0].rss for r in results[n][HURL])
                ratios.setdefault("memory", ours / hurl_rss)  # the largest N's
                print(
                    f"peak memory, N={n}: scenario-tui run {ours / 1024:.1f} MiB, hurl --test "
                    f"{hurl_rss / 1024:.1f} MiB: {ours / hurl_rss:.2f} x"
                )
        return ratios

    # ------------------------------------------------------------ start-up

    def startup(self) -> dict[str, float]:
        tmp, url = self.tmp, self.server.url
        commands: dict[str, tuple[list[str], int]] = {  # the command, and the requests it sends (a POST)
            "python3 -c pass": ([sys.executable, "-c", "pass"], 0),
            "scenario-tui check tiny.scenario": (tool_command() + ["check", str(tmp / "one.scenario")], 0),
            "scenario-tui run, 1 request": (tool_command() + ["run", str(tmp / "one.scenario"), "--base-url", url], 1),
            "check tiny.scenario, parse cache off": (
                NO_CACHE + tool_command() + ["check", str(tmp / "one.scenario")],
                0,
            ),
            "run, 1 request, parse cache off": (
                NO_CACHE + tool_command() + ["run", str(tmp / "one.scenario"), "--base-url", url],
                1,
            ),
            "http.client script, 1 request": ([sys.executable, str(tmp / "http_client_chain.py"), url, "0"], 1),
            "httpx script, 1 request": ([sys.executable, str(tmp / "httpx_chain.py"), url, "0"], 1),
        }
        if self.hurl:
            commands["hurl --test, 1 request"] = (
                [self.hurl, "--test", "--variable", f"base={url}", str(tmp / "one.hurl")],
                1,
            )
        best: dict[str, _peers.Measured] = {}
        every: dict[str, list[_peers.Measured]] = {}
        for round_ in range(self.args.startup_repeats + 1):  # round 0 warms up
            for name, (command, posts) in commands.items():
                measured, _ = self.run(name, command, posts, 0)
                if round_:
                    every.setdefault(name, []).append(measured)
                if round_ and (name not in best or measured.wall < best[name].wall):
                    best[name] = measured
        base = best["python3 -c pass"].wall
        # CPU time too (user + system, each command's best): on a shared machine a process waits
        # for a core for longer than it runs, and its wall time says more about the others.
        cpu = {name: min(m.cpu for m in runs) for name, runs in every.items()}
        print(f"\n### start-up (best of {self.args.startup_repeats} whole processes)\n")
        print("| command | time | over python3 -c pass | CPU (user+sys) | CPU over python3 -c pass | max RSS |")
        print("|---|---|---|---|---|---|")
        for name, measured in best.items():
            print(
                f"| {name} | {measured.wall * 1e3:.1f} ms | {(measured.wall - base) * 1e3:+.1f} ms | "
                f"{cpu[name] * 1e3:.1f} ms | {(cpu[name] - cpu['python3 -c pass']) * 1e3:+.1f} ms | "
                f"{measured.rss / 1024:.1f} MiB |"
            )
        over = {name: (m.wall - base) * 1e3 for name, m in best.items()}
        over.update({f"{name} (CPU)": (cpu[name] - cpu["python3 -c pass"]) * 1e3 for name in best})
        return over

    # ------------------------------------------------------------ in one process

    def in_process(self) -> tuple[float, float]:
        from scenario_core.language.parser import load_file
        from scenario_core.parameters.resolution import RunOverrides
        from scenario_core.run import events as ev
        from scenario_core.run.executor import Execution
        from scenario_core.run.options import RunOptions
        from scenario_tui.cli.run_command import run_files

        # The very scripts the whole-process rows ran, as modules (not __main__): their chain() functions.
        loops = {
            name: runpy.run_path(str(self.tmp / script), run_name="peers_loop")["chain"]
            for name, script in ((HTTP_CLIENT, "http_client_chain.py"), (HTTPX, "httpx_chain.py"))
        }
        url, sizes = self.server.url, sorted(self.args.sizes)
        overrides = RunOverrides.from_cli([], url, None)
        nodes = {n: load_file(self.tmp / f"chain_{n}.scenario") for n in sizes}

        def executor(n: int) -> None:  # as `run` drives it: the plain generator, pulled in this thread
            for event in Execution([nodes[n]], RunOptions(overrides=overrides)).events():
                if type(event) is ev.ScenarioFinished and event.status != ev.PASSED:
                    raise SystemExit(f"in-process executor: the scenario {event.status}: {event.message}")

        def on_loop(n: int) -> None:  # as the TUI drives it: pulled on a worker thread, from an event loop
            async def consume() -> None:
                events = await asyncio.to_thread(list, Execution([nodes[n]], RunOptions(overrides=overrides)).events())
                for event in events:
                    if type(event) is ev.ScenarioFinished and event.status != ev.PASSED:
                        raise SystemExit(f"in-process executor: the scenario {event.status}: {event.message}")

            asyncio.run(consume())

        def headless(n: int) -> None:  # what `run` does after parsing: executor, masking, recorder, printer
            with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
                status = run_files([nodes[n]], RunOptions(overrides=overrides))
            if status != 0:
                raise SystemExit(f"in-process run_files: exit status {status}")

        def parse(n: int) -> None:
            load_file(self.tmp / f"chain_{n}.scenario")

        candidates = {
            HTTP_CLIENT: lambda n: loops[HTTP_CLIENT](url, n),
            HTTPX: lambda n: loops[HTTPX](url, n),
            "executor (Execution.events)": executor,
            "executor on an event loop (the TUI's, --jobs')": on_loop,
            "run_files (headless run, parsed file)": headless,
        }
        best: dict[tuple[str, int], float] = {}
        for round_ in range(self.args.repeats + 1):  # round 0 warms up
            for n in sizes:
                for name, call in candidates.items():
                    started = time.perf_counter()
                    call(n)
                    elapsed = time.perf_counter() - started
                    self.verify(f"in-process {name} N={n}", 1, n)
                    if round_:
                        best[(name, n)] = min(elapsed, best.get((name, n), elapsed))
        parse_best = min(_timed(parse, sizes[-1]) for _ in range(self.args.repeats))
        small, big = sizes[0], sizes[-1]
        print(
            f"\n### in one process (best of {self.args.repeats}; per request = (N={big} - N={small}) / {big - small})\n"
        )
        print(f"| code | N={big} | per request | x http.client |")
        print("|---|---|---|---|")
        slope = {name: (best[(name, big)] - best[(name, small)]) / max(big - small, 1) for name in candidates}
        for name in candidates:
            print(
                f"| {name} | {best[(name, big)] * 1e3:,.0f} ms | {slope[name] * 1e3:.3f} ms | "
                f"{slope[name] / slope[HTTP_CLIENT]:.2f} |"
            )
        print(
            f"\nloading the N={big} file (load_file: a parse-cache hit after the first; not in the rows above): {parse_best * 1e3:,.0f} ms, "
            f"{parse_best / (big + 1) * 1e3:.3f} ms a request"
        )
        return (
            slope["executor (Execution.events)"] / slope[HTTP_CLIENT],
            slope["run_files (headless run, parsed file)"] / slope[HTTP_CLIENT],
        )

    # ------------------------------------------------------------ profile

    def profile(self) -> None:
        n = max(self.args.sizes)
        script = self.tmp / "profile_main.py"
        script.write_text("import sys\nfrom scenario_tui.cli.main import main\nsys.exit(main())\n", encoding="utf-8")
        outs, walls = [], []
        for name, requests in ((f"chain_{n}.scenario", n + 1), ("one.scenario", 1)):
            outs.append(self.tmp / f"{name}.prof")
            command = [
                sys.executable,
                "-m",
                "cProfile",
                "-o",
                str(outs[-1]),
                str(script),
                "run",
                str(self.tmp / name),
                "--base-url",
                self.server.url,
            ]
            walls.append(self.run(f"profiled scenario-tui run {name}", command, 1, requests - 1)[0].wall)
        print(
            f"\n### profile: scenario-tui run, N={n}, under cProfile ({walls[0] * 1e3:,.0f} ms; one request: "
            f"{walls[1] * 1e3:,.0f} ms)\n"
        )
        _peers.print_profile(outs[0], outs[1], n + 1)
        print()
        _peers.print_import_times(
            [
                sys.executable,
                "-X",
                "importtime",
                str(script),
                "run",
                str(self.tmp / "one.scenario"),
                "--base-url",
                self.server.url,
            ],
            ENV,
            runs=3,
        )
        self.verify("3 x scenario-tui run under -X importtime", 3, 0)


def _timed(call, n: int) -> float:
    started = time.perf_counter()
    call(n)
    return time.perf_counter() - started


def verdict(value: float | None, target: float, unit: str = "x") -> str:
    if value is None:
        return "n/a (no Hurl)"
    shown = f"+{value:.0f} ms" if unit == "ms" else f"{value:.2f} x"
    limit = f"+{target:.0f} ms" if unit == "ms" else f"{target} x"
    return f"{shown} (target <= {limit}): {'met' if value <= target else 'NOT MET'}"


def reproduce_line(hurl: str | None, how: str) -> str:
    def short(path: str) -> str:  # not resolved: the venv's python is a symlink that must stay one
        relative = os.path.relpath(os.path.abspath(path))
        return path if relative.startswith("..") else relative

    prefix = f"HURL={shlex.quote(hurl)} " if hurl and how not in ("--hurl", "PATH") else ""
    command = shlex.join([short(sys.executable), short(__file__)] + sys.argv[1:])
    return f"(in {shlex.quote(os.getcwd())}) {prefix}{command}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of each whole-process chain; the best counts")
    parser.add_argument(
        "--sizes",
        type=lambda s: [int(x) for x in s.split(",")],
        default=[1000, 300],
        help="chain lengths, comma-separated (default 1000,300)",
    )
    parser.add_argument("--startup-repeats", type=int, default=10, help="runs of each start-up command (default 10)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: N=100,30, 1 repeat, 2 start-up repeats")
    parser.add_argument("--hurl", help="the hurl executable (else $HURL, PATH, shared/tools/get-hurl)")
    parser.add_argument("--no-hurl", action="store_true", help="leave Hurl out (its ratios read n/a)")
    parser.add_argument("--profile", action="store_true", help="also profile one scenario-tui run (largest N)")
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.repeats, args.startup_repeats = [100, 30], 1, 2
    args.sizes = sorted(set(args.sizes), reverse=True)

    hurl, how = find_hurl(args)
    print(f"reproduce: {reproduce_line(hurl, how)}")
    print(
        f"python {platform.python_version()} on {platform.system()} {platform.machine()}, {os.cpu_count()} CPUs; "
        f"{time.strftime('%Y-%m-%d %H:%M')}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    if hurl:
        version = subprocess.run([hurl, "--version"], capture_output=True, text=True, check=False).stdout.split("\n")[0]
        print(f"Hurl: {hurl} ({how}): {version}")
    else:
        print(f"Hurl: NOT FOUND ({how}); the ratios to Hurl read n/a, the others are measured")

    with tempfile.TemporaryDirectory(prefix="peers-chain-") as tmp, contextlib.closing(_peers.Server(ENV)) as server:
        bench = Bench(args, server, Path(tmp), hurl)
        if not _peers.GNU_TIME:
            print("no /usr/bin/time: max RSS is wait4's, which counts this process's own RSS at fork: a floor")
        print(f"server: {server.url} (bench/_peers.py, its own process; counts every request)")
        ratios = bench.print_chains(bench.chains())
        startup = bench.startup()
        in_process = bench.in_process()
        if args.profile:
            bench.profile()

    big, small = args.sizes[0], args.sizes[-1]
    print(f"\n### the speed targets (load average now {' '.join(f'{x:.2f}' for x in os.getloadavg())})\n")
    for n in (big, small):
        print(
            f"- chain of {n:,}: scenario-tui run / http.client script = "
            f"{verdict(ratios.get(f'{n} (floor)'), TARGETS['floor'])}"
        )
    print(f"- chain of {big:,}: scenario-tui run / hurl --test = {verdict(ratios.get(big), TARGETS['chain_big'])}")
    print(
        f"- chain of {small:,}: scenario-tui run / hurl --test = {verdict(ratios.get(small), TARGETS['chain_small'])}"
    )
    print(
        f"- the same two in CPU time (user+sys): {big:,}: {verdict(ratios.get(f'{big} (CPU)'), TARGETS['chain_big'])}"
        f"; {small:,}: {verdict(ratios.get(f'{small} (CPU)'), TARGETS['chain_small'])}"
    )
    print(
        f"- run of 1 request over python3 -c pass: "
        f"{verdict(startup['scenario-tui run, 1 request'], TARGETS['run_start'], 'ms')}"
    )
    print(
        f"- check of a tiny file over python3 -c pass: "
        f"{verdict(startup['scenario-tui check tiny.scenario'], TARGETS['check_start'], 'ms')}"
    )
    print(
        f"- the same two in CPU time (user+sys; less swayed by a busy machine): run "
        f"{verdict(startup['scenario-tui run, 1 request (CPU)'], TARGETS['run_start'], 'ms')}; check "
        f"{verdict(startup['scenario-tui check tiny.scenario (CPU)'], TARGETS['check_start'], 'ms')}"
    )
    print(
        f"- per request in one process, executor / http.client loop: {verdict(in_process[0], TARGETS['in_process'])}"
        f"; with run's reports, masking and printing (run_files): {in_process[1]:.2f} x"
    )
    print(f"- peak memory, scenario-tui run / hurl --test: {verdict(ratios.get('memory'), TARGETS['memory'])}")
    if bench.problems:
        print("\nFAILED: a runner did not send what the workload asks for:", *bench.problems, sep="\n  ")
        return 1
    print("\nevery runner sent every request, each GET for the id the previous response gave")
    return 0


if __name__ == "__main__":
    sys.exit(main())
