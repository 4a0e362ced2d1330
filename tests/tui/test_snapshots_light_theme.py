"""SVG snapshots of the main screens in Textual's light theme (deterministic mode, as
tests/tui/test_snapshots.py): every colour of the panels comes from the theme, so a light theme
leaves nothing drawn for a dark background. Update with
`pytest tests/tui/test_snapshots_light_theme.py --snapshot-update`, then look at them."""

from __future__ import annotations

from scenario_tui.app.shell import ScenarioApp

WIDE = (120, 40)
LIGHT = "textual-light"


def test_paused_after_a_request_in_the_light_theme(snap_compare, snapshot_app, ui):
    # chosen before the app runs (as TEXTUAL_THEME does): the panels are drawn in it from the start
    app: ScenarioApp = snapshot_app()
    app.theme = LIGHT

    async def run_before(pilot) -> None:
        await ui.settle(pilot)
        await ui.press(pilot, *"nnnnn")
        await ui.move_to(pilot, "when POST /pets")

    assert snap_compare(app, terminal_size=WIDE, run_before=run_before)


def test_json_playground_after_switching_to_the_light_theme(snap_compare, snapshot_app, ui):
    # switched while the app runs (as the command palette's "theme" does), after the panels were
    # drawn in the dark one: what is on screen is drawn again
    async def run_before(pilot) -> None:
        await ui.settle(pilot)
        await ui.press(pilot, "c")
        await ui.move_to(pilot, "scenario create pet")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "when POST /pets")
        pilot.app.theme = LIGHT
        await ui.settle(pilot)
        await ui.press(pilot, "j")
        for char in "$.name":
            await pilot.press(char)
        await ui.settle(pilot)

    assert snap_compare(snapshot_app(), terminal_size=WIDE, run_before=run_before)
