"""Benchmark: `scenario-tui check` on a generated 50,000-line file, whole process, against lark's
own LALR parse of the same file with a minimal indentation grammar, whole process, same run.

    python bench/check_large_file.py [--lines 50000] [--rounds 5]

Prints both medians and the ratio (target: <= 1.5).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BASELINE = r'''
import sys
from lark import Lark
from lark.indenter import Indenter

class TreeIndenter(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types = []
    CLOSE_PAREN_types = []
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8

GRAMMAR = r"""
start: _NL? block*
block: LINE _NL [_INDENT block+ _DEDENT]
LINE: /[^ \t\n][^\n]*/
_NL: /(\n[\t ]*(#[^\n]*)?)+/
%ignore /[ \t]+/
%declare _INDENT _DEDENT
"""
parser = Lark(GRAMMAR, parser="lalr", postlex=TreeIndenter(), cache=True)
parser.parse("\n" + open(sys.argv[1], encoding="utf-8").read())
'''


def generate(lines: int) -> str:
    out = [
        "# generated for the check benchmark",
        "parameters:",
        "  timeout: 30",
        "  baseUrl: http://127.0.0.1:8000",
        "  shareVariablesAcrossScenarios: true",
        "",
        "background:",
        "  when: POST /login",
        '    body: {"username": "demo", "password": "demo"}',
        "  extract: token from $.token",
        "",
        "fragment: is a pet",
        "  then: $.id exists",
        '  then: $.name matches "^[A-Z]"',
        "",
    ]
    n = 0
    while len(out) < lines:
        n += 1
        out += [
            f"@group{n % 7}",
            f"feature: Feature {n}",
            f"  description: generated feature {n}",
            "  parameters:",
            f"    timeout: {n % 50 + 1}",
            f"    shareVariablesAcrossScenarios: {'true' if n % 2 else 'false'}",
        ]
        for s in range(5):
            out += [
                f"  scenario: scenario {n}.{s} [create and read]",
                "    when: POST /pets",
                "      headers:",
                "        Authorization: Bearer {{token}}",
                "      body:",
                "        {",
                f'          "name": "Pet {n}-{s}",',
                '          "age": {{age}},',
                '          "tag": "t{{n}}"',
                "        }",
                "    then: status 201",
                '    then: $.name == "Pet"',
                "    extract: petId from $.id",
                "    when: GET /pets/{{petId}}",
                "      query:",
                "        verbose: true",
                "    then: status 2xx",
                "    include: is a pet",
                "    then: $.age >= 1",
                '    then: header Content-Type contains "json"',
                "    then: time < 500ms",
                "",
            ]
    return "\n".join(out[:lines]) + "\n"


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}\n{result.stderr[-2000:]}")
    return elapsed


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__)
    options.add_argument("--lines", type=int, default=50_000)
    options.add_argument("--rounds", type=int, default=5)
    args = options.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "large.scenario"
        text = generate(args.lines)
        # Trim a cut-off trailing scenario so the file stays valid.
        lines = text.splitlines()
        while lines and not lines[-1].startswith("    then: time"):
            lines.pop()
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        baseline_script = Path(tmp) / "baseline.py"
        baseline_script.write_text(BASELINE)
        ours_command = [
            sys.executable,
            "-c",
            "import sys; from scenario_tui.cli.main import main; sys.exit(main())",
            "check",
            str(path),
        ]
        baseline_command = [sys.executable, str(baseline_script), str(path)]
        timed(ours_command), timed(baseline_command)  # warm caches: lark's grammar cache, the OS page cache
        ours, baseline = [], []
        for _ in range(args.rounds):
            ours.append(timed(ours_command))
            baseline.append(timed(baseline_command))
    ours_median, baseline_median = statistics.median(ours), statistics.median(baseline)
    print(f"file: {len(lines):,} lines")
    print(f"scenario-tui check      median {ours_median:.3f} s  (runs: {', '.join(f'{t:.3f}' for t in ours)})")
    print(f"lark minimal-grammar    median {baseline_median:.3f} s  (runs: {', '.join(f'{t:.3f}' for t in baseline)})")
    print(f"ratio check / lark parse: {ours_median / baseline_median:.2f}  (target <= 1.5)")


if __name__ == "__main__":
    main()
