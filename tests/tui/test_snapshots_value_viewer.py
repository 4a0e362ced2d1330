"""SVG snapshots of the value viewer (deterministic mode, as tests/tui/test_snapshots.py).
Update with `pytest tests/tui/test_snapshots_value_viewer.py --snapshot-update`, then look at them."""

from __future__ import annotations

import pytest

WIDE, SMALL = (120, 40), (80, 24)


def open_viewer_on(ui, name: str, steps: str = "nnnnnnn"):
    async def run_before(pilot) -> None:
        await ui.settle(pilot)
        # nnnnnnn: create pet has run (petId is in the store), paused in read pet's background;
        # nnnn: the background's extract has run (token is in the scenario layer)
        await ui.press(pilot, *steps)
        panel = pilot.app.variables_panel
        panel.focus()
        await ui.settle(pilot)
        target = next(i for i, row in enumerate(panel.rows) if row[1] == name)
        await ui.press(pilot, *["down"] * (target - panel.cursor))
        await ui.press(pilot, "enter")

    return run_before


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["wide", "small"])
def test_value_viewer(snap_compare, snapshot_app, ui, size):
    assert snap_compare(snapshot_app(), terminal_size=size, run_before=open_viewer_on(ui, "petId"))


def test_value_viewer_of_a_masked_secret(snap_compare, snapshot_app, ui):
    assert snap_compare(snapshot_app(), terminal_size=SMALL, run_before=open_viewer_on(ui, "token", "nnnn"))
