"""A collapsed node shows what its children would: ⚠ when a check warning is about a line under
it (with how many, when more than one), ✗ when something under it failed while the node itself
has not (a paused run, a background group). Expanded, the marks are on the children instead."""

from __future__ import annotations

SIZE = (120, 40)


async def test_warnings_roll_up_to_a_collapsed_scenario_feature_and_file(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        # the warning is on `GET /pets/{{petId}}  :29`, inside scenario 'no shared pet' in feature 'Audit'
        lines = ui.tree_lines(app)
        assert "⚠" in ui.line_with(lines, "scenario no shared pet  :28")  # collapsed: it holds one
        assert "⚠" not in ui.line_with(lines, "scenario health  :32")
        await ui.move_to(pilot, "feature Audit")
        await ui.press(pilot, "left")  # collapse the feature
        assert "⚠ " in ui.line_with(ui.tree_lines(app), "feature Audit  :27")
        await ui.press(pilot, "right")  # expanded again: the mark is on the scenario, not the feature
        lines = ui.tree_lines(app)
        assert "⚠" not in ui.line_with(lines, "feature Audit  :27")
        assert "⚠" in ui.line_with(lines, "scenario no shared pet  :28")
        await ui.move_to(pilot, "pets.scenario")
        await ui.press(pilot, "left")  # the whole file collapsed
        assert "⚠" in ui.line_with(ui.tree_lines(app), "pets.scenario")


async def test_a_failed_step_shows_on_its_collapsed_scenario_while_the_run_is_paused(scenario_file, make_app, ui):
    path = scenario_file(
        "scenario: fails\n  when: GET /health\n  then: status 201\n  then: status 200\n\nscenario: passes\n"
        "  when: GET /health\n"
    )
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "f", "c")  # paused on the failure: the scenario has not finished
        await ui.move_to(pilot, "scenario fails")
        await ui.press(pilot, "left")  # collapse it
        line = ui.line_with(ui.tree_lines(app), "scenario fails  :1")
        assert "✗" in line and "▶" not in line.split("✗")[1]
        await ui.press(pilot, "right")
        lines = ui.tree_lines(app)
        assert "✗" not in ui.line_with(lines, "scenario fails  :1")
        assert "✗" in ui.line_with(lines, "then status 201  :3")
        assert "✗" not in ui.line_with(lines, "scenario passes  :6")
