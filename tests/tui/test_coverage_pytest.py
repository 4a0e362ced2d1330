"""`pytest --scenario-coverage`: the coverage of the .scenario files a session ran, and with
pytest-xdist (`-n 2`) the workers' coverage merged into what one process reports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "tests" / "fixtures" / "coverage"
PETSTORE = ROOT / "core" / "demo" / "petstore.yaml"


def copy_suite(into: Path) -> Path:
    """The coverage suite where pytest collects it (tests/fixtures is never collected)."""
    into.mkdir()
    for source in sorted(SUITE.glob("*.scenario")):
        text = source.read_text().replace("../../../core/demo/petstore.yaml", str(PETSTORE))
        (into / source.name).write_text(text)
    return into


def coverage_section(*args: str) -> list[str]:
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--scenario-coverage", *args],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if "scenario coverage" in line)
    end = next(i for i, line in enumerate(lines) if i > start and " passed in " in line)
    return lines[start + 1 : end]


def test_scenario_coverage_under_xdist_merges_into_the_single_process_result(demo, tmp_path):
    suite = str(copy_suite(tmp_path / "suite"))
    single = coverage_section(suite, "--scenario-base-url", demo.url)
    assert single[0] == "Coverage: 6 of 20 operations called (30%)"
    assert "    slow (GET /slow): undocumented status 400 (1×)" in single
    assert "    ✗ patchPet (PATCH /pets/{id}) (auto: tests only, 5 requests)" in single
    demo.reset()
    assert coverage_section(suite, "--scenario-base-url", demo.url, "-n", "2") == single
