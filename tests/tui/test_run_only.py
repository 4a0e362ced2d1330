"""`o` on a scenario (or a step of it): a fresh run of that scenario alone. What it reads from the
scenarios not run is explained as such."""

from __future__ import annotations

from scenario_core.run.stepper import FINISHED

SIZE = (120, 40)


async def test_o_runs_that_scenario_alone(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.press(pilot, "n", "n")  # a run under way: `o` starts afresh
        await ui.move_to(pilot, "scenario read pet")
        await ui.press(pilot, "o")
        assert app.stepper.state == FINISHED
        text = app.status_bar.text
        assert "only scenario 'read pet'" in text
        assert "0 passed · 1 failed · 3 skipped" in text
        lines = ui.tree_lines(app)
        assert "✗" in ui.line_with(lines, "scenario read pet")
        assert "–" in ui.line_with(lines, "scenario create pet")  # not selected: skipped
        await ui.move_to(pilot, "when GET /pets/{{petId}}  :24")
        inspector = app.inspector.text
        assert "undefined variable 'petId'" in inspector
        assert "scenario 'create pet'" in inspector and "not selected" in inspector
        # r runs them all again
        await ui.press(pilot, "r", "c")
        assert "only scenario" not in app.status_bar.text
        assert "3 passed · 1 failed · 0 skipped" in app.status_bar.text


async def test_o_is_in_the_command_palette_and_wants_a_scenario(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert "Run this scenario only" in titles
        await ui.move_to(pilot, "feature Pets")
        await ui.press(pilot, "o")
        assert any("o runs one scenario" in str(n.message) for n in app._notifications)
        assert app.stepper.state == "idle"


async def test_after_o_the_variables_panel_shows_the_scenario_that_ran(pets_file, make_app, ui):
    # the scenarios after it were not selected: they never start, and their (isolated, empty)
    # scope must not replace what the one that ran saw
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario read pet")
        await ui.press(pilot, "o")
        panel = app.variables_panel
        assert "read pet" in panel.border_title
        text = panel.text
        assert "feature 'Pets'" in text and "isolated" not in text
        assert "token" in text
