"""SVG snapshot of the variable editor (edit and continue; deterministic mode, as
tests/tui/test_snapshots.py). Update with
`pytest tests/tui/test_snapshots_variable_editor.py --snapshot-update`, then look at it."""

from __future__ import annotations

from textual.widgets import Input

from scenario_core.parameters.resolution import RunOverrides
from scenario_tui.app.shell import ScenarioApp

SMALL = (80, 24)


def editor_on_shared_petId(ui):
    async def run_before(pilot) -> None:
        await ui.settle(pilot)
        await ui.press(pilot, *"nnnnnnn")  # create pet has run (petId is in feature 'Pets' store)
        panel = pilot.app.variables_panel
        panel.focus()
        await ui.settle(pilot)
        target = next(i for i, row in enumerate(panel.rows) if row[1] == "petId")
        await ui.press(pilot, *["down"] * (target - panel.cursor))
        await ui.press(pilot, "equals_sign")  # prefilled: petId, its layer, its value
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False  # a blinking cursor is caught on or off by chance

    return run_before


def test_variable_editor(snap_compare, demo, pets_file, monkeypatch, ui):
    monkeypatch.chdir(pets_file.parent)
    app = ScenarioApp("pets.scenario", RunOverrides.from_cli([], demo.url), {}, deterministic=True, watch=False)
    assert snap_compare(app, terminal_size=SMALL, run_before=editor_on_shared_petId(ui))
