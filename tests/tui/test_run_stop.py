"""`s` while paused: the step it was paused before never runs and is not failed; nothing more
runs; the header says where it stopped and counts what did not run."""

from __future__ import annotations

from scenario_core.run.stepper import FINISHED

SIZE = (120, 40)

FIVE = """\
scenario: one
  when: GET /health
  then: status 200
scenario: two
  when: GET /health
  then: status 200
  when: GET /health
scenario: three
  when: GET /health
scenario: four
  when: GET /health
scenario: five
  when: GET /health
"""


async def test_stop_while_paused_is_not_a_failure(scenario_file, make_app, ui):
    app = make_app(scenario_file(FIVE))
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, *"nnnn")  # one: 2 steps; two: its first step ran, paused before `then`
        assert "paused before then line 6 of 'two'" in app.status_bar.text
        await ui.press(pilot, "s")
        assert app.stepper.state == FINISHED
        text = app.status_bar.text
        assert "stopped at line 6" in text
        assert "1 passed · 0 failed · 0 skipped · 1 stopped · 3 not run" in text
        lines = ui.tree_lines(app)
        assert "✗" not in "\n".join(lines)  # nothing failed
        assert "–" in ui.line_with(ui.tree_lines(app), "scenario two")  # stopped: neither passed nor failed
        assert "–" in ui.line_with(ui.tree_lines(app), "then status 200  :6")  # skipped, never run
        assert "✓" in ui.line_with(ui.tree_lines(app), "when GET /health  :5")
        await ui.move_to(pilot, "then status 200  :6")
        inspector = app.inspector.text
        assert "interrupted" in inspector and "failed" not in inspector.lower()
