"""Static scope analysis in the TUI: before anything runs, the tree marks a step the analysis
warns about, and the inspector says why (the same words as `check`)."""

from __future__ import annotations

SIZE = (120, 40)


async def test_a_step_whose_variable_is_never_visible_is_marked_before_the_run(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario no shared pet")
        await ui.press(pilot, "right")  # expand it
        lines = ui.tree_lines(app)
        assert "⚠" in ui.line_with(lines, "GET /pets/{{petId}}  :29")
        assert "⚠" not in ui.line_with(lines, "then status 200  :30")
        await ui.move_to(pilot, "GET /pets/{{petId}}  :29")
        text = app.inspector.text
        assert "not run yet" in text
        assert "⚠ line 29: 'petId' is never visible here:" in text
        assert "shareVariablesAcrossScenarios" in text or "isolated" in text


async def test_a_run_variable_makes_the_warning_go(pets_file, make_app, ui):
    app = make_app(pets_file, variables={"petId": "1"})
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario no shared pet")
        await ui.press(pilot, "right")
        assert "⚠" not in ui.line_with(ui.tree_lines(app), "GET /pets/{{petId}}  :29")


async def test_a_scenario_warning_is_on_the_scenario_and_in_its_summary(scenario_file, make_app, ui):
    path = scenario_file(
        "scenario: twice\n  when: GET /health\n  then: status 200\n\n"
        "scenario: twice\n  when: GET /health\n  then: status 200\n"
    )
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        lines = ui.tree_lines(app)
        assert "⚠" in ui.line_with(lines, "scenario twice  :5")
        assert "⚠" not in ui.line_with(lines, "scenario twice  :1")
        await ui.move_to(pilot, "scenario twice  :5")
        assert "⚠ line 5:" in app.inspector.text
