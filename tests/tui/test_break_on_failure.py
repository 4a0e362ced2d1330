"""`f` toggles break on failure (the footer shows its state): `c` then pauses on the failing step,
with its response in the inspector, before the scenario's remaining steps are skipped."""

from __future__ import annotations

from scenario_core.run.stepper import FINISHED, PAUSED

SIZE = (120, 40)

FAILING = """\
scenario: fine
  when: GET /health
  then: status 200
scenario: breaks
  when: GET /health
  then: status 404
  when: GET /health
  then: status 200
scenario: after
  when: GET /health
"""


def footer_text(app) -> str:
    return " ".join(f"{key.key_display} {key.description}" for key in app.query("FooterKey"))


async def test_c_pauses_on_the_failing_step(scenario_file, make_app, ui):
    app = make_app(scenario_file(FAILING))
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        assert "f Break on fail ○" in footer_text(app)
        await ui.press(pilot, "f")
        await pilot.pause(0.1)  # the footer is recomposed
        assert "f Break on fail ●" in footer_text(app)
        await ui.press(pilot, "c")
        assert app.stepper.state == PAUSED
        assert "paused on failure, line 6 of 'breaks'" in app.status_bar.text
        inspector = app.inspector.text
        assert "Inspector · then line 6" in inspector and "200 OK" in inspector  # the response it read
        lines = ui.tree_lines(app)
        assert "✗" in ui.line_with(lines, "then status 404  :6")
        assert "–" not in ui.line_with(lines, "when GET /health  :7")  # not skipped yet
        assert app.file_tree.statuses.get(app.file_tree.cursor_node.data.key) == "failed"
        await ui.press(pilot, "c")
        assert app.stepper.state == FINISHED
        assert "1 failed" in app.status_bar.text and "2 passed" in app.status_bar.text
        await ui.move_to(pilot, "when GET /health  :7")
        assert "–" in ui.line_with(ui.tree_lines(app), "when GET /health  :7")


async def test_off_by_default_and_off_again(scenario_file, make_app, ui):
    app = make_app(scenario_file(FAILING))
    async with app.run_test(size=SIZE) as pilot:
        await ui.press(pilot, "f", "f", "c")
        assert app.stepper.state == FINISHED
