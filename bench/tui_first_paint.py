"""Benchmark: time from opening the TUI on a big file to its first paint, against baselines
measured in the same run, the same way.

    python bench/tui_first_paint.py [--sizes 1000 10000] [--rounds 3] [--profile]

For each size N it writes a file of N standalone scenarios (3 steps each, a parameters block,
a feature of 10 scenarios at the top) and measures, in this process with `App.run_test` at
120x40, from constructing `ScenarioApp` (so parsing the file, resolving its parameters and
building the tree are included) until the first refresh after mount (`call_after_refresh`). The
static analysis runs after that refresh and is not part of it; each round starts from a full
collection (what the last round left is not this one's to collect).

Baselines, measured the same way:
- bare:  an empty Textual app (a Header, one Static) -- the fixed cost of any Textual app;
- tree:  a Textual app with a plain `Tree` of N + 1 str-labelled leaves built in on_mount -- what
         the same number of nodes costs with nothing of ours.

Prints the median seconds of each and the ratios, and how much of ours is core's parser alone. A warm-up round comes first (imports, the
parser's table cache). --profile prints where the 10,000-scenario first paint spends its time.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import Header, Static, Tree

from scenario_tui.app.shell import ScenarioApp

SIZE = (120, 40)


def write_file(directory: Path, count: int) -> Path:
    parts = ["parameters:\n  timeout: 10\n\n", "feature: Pets\n"]
    parts += [f"  scenario: pet {i}\n    when: GET /pets/{i}\n    then: status 200\n" for i in range(10)]
    parts.append("\n")
    parts += [
        f'scenario: s{i} [id {i}]\n  when: GET /health\n  then: status 200\n  then: $.status == "ok"\n\n'
        for i in range(count - 10)
    ]
    path = directory / f"big{count}.scenario"
    path.write_text("".join(parts), encoding="utf-8")
    return path


class PaintProbe:
    """Mixin: record when the first refresh after mount happened."""

    painted: float | None = None

    def _probe(self) -> None:
        if self.painted is None:
            self.painted = time.perf_counter()


class BareApp(PaintProbe, App):
    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("hello")

    def on_mount(self) -> None:
        self.call_after_refresh(self._probe)


class TreeApp(PaintProbe, App):
    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count

    def compose(self) -> ComposeResult:
        yield Tree("file")

    def on_mount(self) -> None:
        tree = self.query_one(Tree)
        for i in range(self.count + 1):
            tree.root.add_leaf(f"scenario s{i}")
        tree.root.expand()
        self.call_after_refresh(self._probe)


async def _first_paint(make) -> float:
    gc.collect()  # what the last round left is not this one's to collect
    started = time.perf_counter()
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        while True:
            painted = app.first_paint_at if isinstance(app, ScenarioApp) else app.painted
            if painted is not None:
                break
            await pilot.pause(0.005)
        if isinstance(app, ScenarioApp):
            assert app.file_tree.scenario_count > 0, "the tree is empty"
    return painted - started


def _parse_seconds(path: Path) -> float:
    """The part of the first paint that is core's parser (as the app does it: GC off)."""
    import gc

    from scenario_core.language.parser import load_file

    gc.disable()
    try:
        started = time.perf_counter()
        load_file(path)
        return time.perf_counter() - started
    finally:
        gc.enable()


def measure(make, rounds: int) -> float:
    return statistics.median(asyncio.run(_first_paint(make)) for _ in range(rounds))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        paths = {n: write_file(directory, n) for n in args.sizes}
        measure(lambda: ScenarioApp(paths[args.sizes[0]], watch=False), 1)  # warm-up: imports, caches
        measure(BareApp, 1)
        bare = measure(BareApp, args.rounds)
        print(
            f"{'scenarios':>9}  {'scenario-tui':>12}  {'(parsing)':>9}  {'bare app':>9}  {'plain Tree':>10}  "
            f"{'vs bare':>7}  {'vs Tree':>7}"
        )
        for n in args.sizes:
            ours = measure(lambda n=n: ScenarioApp(paths[n], watch=False), args.rounds)
            parsing = statistics.median(_parse_seconds(paths[n]) for _ in range(args.rounds))
            tree = measure(lambda n=n: TreeApp(n), args.rounds)
            print(
                f"{n:>9}  {ours:>11.3f}s  {parsing:>8.3f}s  {bare:>8.3f}s  {tree:>9.3f}s  "
                f"{ours / bare:>6.1f}x  {ours / tree:>6.1f}x"
            )
        if args.profile:
            import cProfile
            import pstats

            n = max(args.sizes)
            profiler = cProfile.Profile()
            profiler.enable()
            asyncio.run(_first_paint(lambda: ScenarioApp(paths[n], watch=False)))
            profiler.disable()
            pstats.Stats(profiler, stream=sys.stdout).sort_stats("cumulative").print_stats(25)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
