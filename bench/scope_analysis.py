"""Benchmark: what static scope analysis adds to `scenario-tui check`, whole process, on the
generated 50,000-line file of check_large_file.py: `check` against the same command with the
analysis left out (load, validate, print the ok line), same run, median of rounds.

    python bench/scope_analysis.py [--lines 50000] [--rounds 5]

Prints both medians and the ratio (target: <= 1.3). The generated file reads {{age}} and {{n}},
which nothing extracts: `--warned` keeps them (about 20,000 warnings printed), by default they
are passed with --var, as a clean file would be.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_large_file import generate, timed  # noqa: E402

WITHOUT = r'''
import sys
from scenario_tui.cli import _count, load_valid
(node,) = load_valid([sys.argv[1]])
scenarios = len(node.scenarios) + sum(len(f.scenarios) for f in node.features)
print(f"{sys.argv[1]}: ok ({_count(len(node.features), 'feature')}, {_count(scenarios, 'scenario')}, "
      f"{_count(len(node.fragments), 'fragment')})")
'''


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
        with_command = [sys.executable, "-c", "import sys; from scenario_tui.cli import main; sys.exit(main())",
                        "check", str(path), *variables]
        without_command = [sys.executable, str(without_script), str(path)]
        timed(with_command), timed(without_command)  # warm caches: lark's grammar cache, the OS page cache
        with_analysis, without = [], []
        for _ in range(args.rounds):
            with_analysis.append(timed(with_command))
            without.append(timed(without_command))
    ours, baseline = statistics.median(with_analysis), statistics.median(without)
    print(f"file: {len(lines):,} lines{' (with ~20,000 warnings)' if args.warned else ''}")
    print(f"check with analysis     median {ours:.3f} s  (runs: {', '.join(f'{t:.3f}' for t in with_analysis)})")
    print(f"check without analysis  median {baseline:.3f} s  (runs: {', '.join(f'{t:.3f}' for t in without)})")
    print(f"ratio with / without: {ours / baseline:.2f}  (target <= 1.3)")


if __name__ == "__main__":
    main()
