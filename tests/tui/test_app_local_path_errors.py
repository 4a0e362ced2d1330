"""The TUI runs a file whose one scenario has an invalid JSON path (docs/spec/steps.md#errors-local-to-one-scenario): the
others pass, that one fails at its line, and the inspector says why the step cannot be read."""

from __future__ import annotations

from scenario_core.run.stepper import FINISHED

SIZE = (120, 40)

THREE = """\
scenario: first
  when: GET /health
  then: status 200

scenario: middle
  when: GET /health
  extract: x from $.[[bad

scenario: last
  when: GET /pets
  then: status 200
"""


async def test_an_invalid_json_path_ends_only_its_scenario_in_the_tui(scenario_file, make_app, ui):
    app = make_app(scenario_file(THREE))
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "c")
        assert app.stepper.state == FINISHED
        assert "2 passed · 1 failed" in app.status_bar.text
        lines = ui.tree_lines(app)
        assert "✗" in ui.line_with(lines, "scenario middle")
        assert "✓" in ui.line_with(lines, "scenario last")
        await ui.move_to(pilot, "x from $.[[bad")
        text = app.query_one("#inspector").text
        assert "cannot be read: invalid JSON path '$.[[bad'" in text
