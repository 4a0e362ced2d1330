"""SVG snapshots of the main screens at fixed sizes (pytest-textual-snapshot).

Deterministic: the app runs in its deterministic mode (no elapsed times, loopback ports shown as
PORT, Date/Server header values hidden), the demo API is reset before each test (pet ids start
at 1), secrets are masked, and the file is opened by a relative path from its own directory.
Update with `pytest tests/tui/test_snapshots.py --snapshot-update`, then look at the SVGs.
"""

from __future__ import annotations

import pytest

from scenario_core.parameters.resolution import RunOverrides
from scenario_tui.app.shell import ScenarioApp

WIDE, SMALL = (120, 40), (80, 24)


def keys(ui, *pressed: str):
    async def run_before(pilot) -> None:
        await ui.settle(pilot)
        await ui.press(pilot, *pressed)

    return run_before


def test_opened(snap_compare, snapshot_app, ui):
    assert snap_compare(snapshot_app(), terminal_size=WIDE, run_before=keys(ui))


def test_feature_parameters(snap_compare, snapshot_app, ui):
    async def run_before(pilot) -> None:
        await ui.settle(pilot)
        await ui.move_to(pilot, "feature Pets")

    assert snap_compare(snapshot_app(), terminal_size=WIDE, run_before=run_before)


def test_paused_after_a_request(snap_compare, snapshot_app, ui):
    # the background's three steps, then POST /pets: paused before `then: status 201`, with the
    # cursor back on the request to inspect what was sent and received
    async def run_before(pilot) -> None:
        await ui.settle(pilot)
        await ui.press(pilot, *"nnnnn")
        await ui.move_to(pilot, "when POST /pets")

    assert snap_compare(snapshot_app(), terminal_size=WIDE, run_before=run_before)


def test_finished_run(snap_compare, snapshot_app, ui):
    assert snap_compare(snapshot_app(), terminal_size=WIDE, run_before=keys(ui, "c"))


def test_invalid_file(snap_compare, snapshot_app, ui, pets_file):
    bad = pets_file.parent / "bad.scenario"
    bad.write_text(
        "parameters:\n  shareVariables: true\n  timeout: 1.5\n\nscenario: x\n  when GET /health\n", encoding="utf-8"
    )
    assert snap_compare(snapshot_app("bad.scenario"), terminal_size=WIDE, run_before=keys(ui))


def test_small_terminal_paused(snap_compare, snapshot_app, ui):
    assert snap_compare(snapshot_app(), terminal_size=SMALL, run_before=keys(ui, *"nnnn"))


def test_help(snap_compare, snapshot_app, ui):
    assert snap_compare(snapshot_app(), terminal_size=SMALL, run_before=keys(ui, "question_mark"))


def test_paused_after_a_feature_boundary(snap_compare, snapshot_app, ui):
    # a breakpoint on the first scenario after feature 'Pets': its store was just cleared
    async def run_before(pilot) -> None:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario no shared pet")
        await ui.press(pilot, "b", "c")

    assert snap_compare(snapshot_app(), terminal_size=WIDE, run_before=run_before)


@pytest.fixture
def berrycrush_app(demo, monkeypatch):
    """The BerryCrush-dialect example, opened from its own folder (its .fragment file and body
    template beside it), against the demo API."""
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "examples" / "berrycrush-dialect"
    monkeypatch.chdir(folder)

    def make() -> ScenarioApp:
        return ScenarioApp(
            "petstore.scenario", RunOverrides.from_cli([], demo.url), {}, deterministic=True, watch=False
        )

    return make


def test_berrycrush_if_chain_after_a_run(snap_compare, berrycrush_app, ui):
    # a described step's directives under it, the if chain with the branch it took and why
    async def run_before(pilot) -> None:
        await ui.settle(pilot)
        await ui.press(pilot, "c")
        await ui.move_to(pilot, "scenario Read it back")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "then it is the same pet")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "if status 200")

    assert snap_compare(berrycrush_app(), terminal_size=WIDE, run_before=run_before)
