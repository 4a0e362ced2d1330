"""Snapshots of the run's screens: the history view and a pause on failure (deterministic, as in
test_snapshots.py; update with --snapshot-update, then look at the SVGs)."""

from __future__ import annotations

import pytest

from scenario_core.parameters.resolution import RunOverrides
from scenario_tui.app.shell import ScenarioApp
from tests.tui.conftest import screen_settled

WIDE, SMALL = (120, 40), (80, 24)

FAILING = """\
scenario: fine
  when: GET /health
  then: status 200
scenario: breaks
  when: GET /health
  then: status 201
  when: GET /health
"""


@pytest.fixture
def run_app(demo, pets_file, monkeypatch):
    monkeypatch.chdir(pets_file.parent)

    def make(name: str = "pets.scenario") -> ScenarioApp:
        return ScenarioApp(name, RunOverrides.from_cli([], demo.url), {}, deterministic=True, watch=False)

    return make


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x40", "80x24"])
def test_history_view(snap_compare, run_app, ui, size):
    # the whole run, then back in history to the step that extracted petId
    async def run_before(pilot) -> None:
        await ui.settle(pilot)
        await ui.press(pilot, "c", "h")
        lines = pilot.app.query_one("#history").lines
        index = next(i for i, line in enumerate(lines) if "extract line 22" in line)
        for _ in range(len(lines) - 1 - index):
            await pilot.press("up")
        await ui.settle(pilot)
        # The tree's cursor follows the history to `create pet`, in view either way; whether the
        # tree is still scrolled one row down from showing the failure at the end of the run
        # depends on when the history panel's layout lands (how busy the machine is): from the top.
        await screen_settled(pilot)
        pilot.app.file_tree.scroll_home(animate=False)

    assert snap_compare(run_app(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x40", "80x24"])
def test_paused_on_failure(snap_compare, run_app, ui, size, pets_file):
    (pets_file.parent / "failing.scenario").write_text(FAILING, encoding="utf-8")

    async def run_before(pilot) -> None:
        await ui.settle(pilot)
        await ui.press(pilot, "f", "c")
        pilot.app.clear_notifications()
        await ui.settle(pilot)

    assert snap_compare(run_app("failing.scenario"), terminal_size=size, run_before=run_before)
