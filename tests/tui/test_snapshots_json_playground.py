"""SVG snapshots of the JSON-path playground (deterministic mode, as tests/tui/test_snapshots.py).
Update with `pytest tests/tui/test_snapshots_json_playground.py --snapshot-update`, then look at them."""

from __future__ import annotations

import pytest

WIDE, SMALL = (120, 40), (80, 24)


def playground_on_create_pet(ui):
    async def run_before(pilot) -> None:
        await ui.settle(pilot)
        await ui.press(pilot, "c")  # the whole run: create pet's response is on record
        await ui.move_to(pilot, "scenario create pet")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "when POST /pets")
        await ui.press(pilot, "j")
        for char in "$.name":
            await pilot.press(char)
        await ui.settle(pilot)

    return run_before


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["wide", "small"])
def test_json_playground(snap_compare, snapshot_app, ui, size):
    assert snap_compare(snapshot_app(), terminal_size=size, run_before=playground_on_create_pet(ui))
