"""Snapshots of the edges the newcomer trial found, at 80x24 and 120x40 (deterministic, as in
test_snapshots.py; update with --snapshot-update, then look at the SVGs): the bundled example's
tree, whose long labels end with `…` and keep their line numbers, with the footer's whole keys;
and a pause on failure with its notification showing, which never covers the failure text."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from scenario_core.parameters.resolution import RunOverrides
from scenario_tui.app.shell import ScenarioApp

WIDE, SMALL = (120, 40), (80, 24)
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

FAILING = """\
scenario: fine
  when: GET /health
  then: status 200
scenario: breaks
  when: GET /health
  then: status 201
  when: GET /health
"""


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x40", "80x24"])
def test_the_examples_tree(snap_compare, demo, monkeypatch, ui, size, tmp_path):
    # A copy: other tests (on other xdist workers) may write beside the examples while this runs.
    copy = tmp_path / "examples"
    shutil.copytree(EXAMPLES, copy, ignore=shutil.ignore_patterns("__pycache__", ".*"))
    monkeypatch.chdir(copy)
    app = ScenarioApp("pets.scenario", RunOverrides.from_cli([], demo.url), {}, deterministic=True, watch=False)

    async def run_before(pilot) -> None:
        await ui.settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x40", "80x24"])
def test_paused_on_failure_with_its_notification(snap_compare, demo, tmp_path, monkeypatch, ui, size):
    (tmp_path / "failing.scenario").write_text(FAILING, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    app = ScenarioApp("failing.scenario", RunOverrides.from_cli([], demo.url), {}, deterministic=True, watch=False)

    async def run_before(pilot) -> None:
        await ui.settle(pilot)
        await ui.press(pilot, "f", "c")  # `f` notifies: break on failure is on

    assert snap_compare(app, terminal_size=size, run_before=run_before)
