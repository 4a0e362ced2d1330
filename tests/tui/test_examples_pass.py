"""The repository's examples as a newcomer runs them: the README's CI recipe exactly (check
--strict, then run, on the folder), `pytest examples/`, and `examples/pets.scenario` alone under
`check --strict`. The examples that fail on purpose live in examples/_fails-on-purpose/, which a
folder leaves out and says so."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
ENV = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR")}
NOTE = "scenario-tui: note: left out examples/_fails-on-purpose/: a folder skips sub-folders named _* or .*"


def _recipe() -> list[list[str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("<!-- ci-recipe -->")[1].split("<!-- /ci-recipe -->")[0]
    lines = [line for line in block.splitlines() if line.startswith("scenario-tui ")]
    return [shlex.split(line) for line in lines]


def _run(words: list[str], timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(words, capture_output=True, text=True, cwd=ROOT, timeout=timeout, env=ENV)


def test_readme_ci_recipe_passes_on_the_examples(demo, tmp_path):
    check, run = _recipe()
    assert check[:3] == ["scenario-tui", "check", "--strict"] and run[:2] == ["scenario-tui", "run"]
    checked = _run([str(BIN / "scenario-tui"), *check[1:]])
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stderr.splitlines() == [NOTE + " (name them to include them)"]
    junit = tmp_path / "junit.xml"  # the recipe's report, written outside the checkout
    words = [str(BIN / "scenario-tui"), *run[1:], "--base-url", demo.url]
    words[words.index("junit.xml")] = str(junit)
    ran = _run(words)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "23 scenarios: 23 passed, 0 failed" in ran.stdout and NOTE in ran.stderr


def test_pets_example_passes_check_strict():
    result = _run([str(BIN / "scenario-tui"), "check", "--strict", "examples/pets.scenario"])
    assert result.returncode == 0 and result.stderr == "", result.stderr


def test_pytest_examples_passes_and_says_what_it_leaves_out(demo):
    words = [str(BIN / "pytest"), "-p", "no:cacheprovider", "examples/", "--scenario-base-url", demo.url]
    result = _run([*words, "-p", "no:xdist"], timeout=180)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "examples/_fails-on-purpose/ is not collected: its files fail on purpose" in result.stdout
    assert "23 passed" in result.stdout
