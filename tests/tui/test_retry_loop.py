"""The debugger's retry loop (docs/spec/scopes.md#editing-while-paused), against the demo API:
paused on a failed `then:`, fix the variable its request read, `a` sends that request again
(with the steps between it and the `then:`) and the `then:` passes; the header and the inspector
say what was sent. Checking the old response again would test nothing new."""

from __future__ import annotations

import re

from scenario_core.run.stepper import PAUSED
from scenario_tui.widgets.variable_editor import VariableEditor

SIZE = (120, 40)

# Line numbers matter: tests name them. Pet 1 is made; petId reads 2 (the counter's second call).
MADE = """\
scenario: read the pet made
  when: POST /login
    body: {"username": "demo", "password": "demo"}
  extract: token from $.token
  when: POST /pets
    headers:
      Authorization: Bearer {{token}}
    body: {"name": "Rex"}
  when: GET /counter
  when: GET /counter
  extract: petId from $.value
  when: GET /pets/{{petId}}
  extract: kind from header Content-Type
  then: $.name == "Rex"
  then: status 200
"""
GET_LINE, EXTRACT_LINE, THEN_LINE = 12, 13, 14


async def paused_on_the_failed_then(pilot, ui, app) -> None:
    await ui.settle(pilot)
    await ui.press(pilot, "f", "c")  # break on failure, continue
    stepper = app.stepper
    assert stepper.state == PAUSED and stepper.pause_reason == "failure"
    assert stepper.paused_after.step.location.line == THEN_LINE


async def set_value(pilot, ui, app, value: str) -> VariableEditor:
    """`=` opens on the variable the paused step reads, focus on its value: type and Enter."""
    await ui.press(pilot, "equals_sign")
    editor = app.screen
    assert isinstance(editor, VariableEditor)
    await ui.press(pilot, *value, "enter")
    return editor


async def test_fix_the_variable_then_a_resends_the_request_and_the_then_passes(scenario_file, make_app, ui):
    app = make_app(scenario_file(MADE))
    async with app.run_test(size=SIZE) as pilot:
        await paused_on_the_failed_then(pilot, ui, app)
        failed = app.stepper.paused_after
        assert failed.read_request.url.endswith("/pets/2") and failed.read_response.status == 404
        editor = await set_value(pilot, ui, app, "1")
        assert editor.initial[0] == "petId"  # the variable its request read, not one to type
        assert not isinstance(app.screen, VariableEditor)
        await ui.press(pilot, "a")
        stepper = app.stepper
        resent = stepper.paused_after
        assert stepper.pause_reason == "resent" and resent.step.location.line == THEN_LINE
        assert resent.status == "passed" and resent.replaces is failed
        # the request it reads was sent again, with the new value, and answered 200
        assert resent.read_request is not failed.read_request
        assert resent.read_request.url.endswith("/pets/1") and resent.read_response.status == 200
        # the step between ran again too, and the new runs replace the old in the history
        lines = [run.step.location.line for run in resent.resent]
        assert lines == [GET_LINE, EXTRACT_LINE]
        history = [run for run in app.run_controller.history.runs if run.step.location.line in (GET_LINE, THEN_LINE)]
        assert len(history) == 2 and resent in history
        header = app.status_bar.text
        assert "passed after re-sending GET /pets/1 → 200" in header and f"line {THEN_LINE}" in header
        inspector = app.inspector.text
        assert re.search(rf"re-sent first: GET /pets/1 → 200 OK \(line {GET_LINE}\)", inspector)
        await ui.press(pilot, "c")  # and on: the scenario passes, its failure replaced
        finished = app.stepper.finished
        assert finished is not None and finished.passed == 1 and finished.failed == 0


async def test_paused_before_a_then_a_sends_its_request_again_first(scenario_file, make_app, ui):
    app = make_app(scenario_file(MADE))
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario read the pet made")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, 'then $.name == "Rex"')
        await ui.press(pilot, "b", "c")
        stepper = app.stepper
        assert stepper.state == PAUSED and stepper.current.step.location.line == THEN_LINE
        await set_value(pilot, ui, app, "1")
        await ui.press(pilot, "a")
        resent = stepper.paused_after
        assert stepper.pause_reason == "resent" and resent.step.location.line == THEN_LINE
        assert resent.status == "passed" and resent.read_request.url.endswith("/pets/1")
        assert [run.step.location.line for run in resent.resent] == [GET_LINE, EXTRACT_LINE]


async def test_a_request_that_fails_when_re_sent_pauses_right_after_it(scenario_file, make_app, ui):
    app = make_app(scenario_file(MADE))
    async with app.run_test(size=SIZE) as pilot:
        await paused_on_the_failed_then(pilot, ui, app)
        await ui.press(pilot, "equals_sign")
        editor = app.screen
        assert isinstance(editor, VariableEditor)
        await ui.press(pilot, "ctrl+d")  # petId deleted: its request cannot be built
        await ui.press(pilot, "a")
        stepper = app.stepper
        assert stepper.paused_after.step.location.line == GET_LINE
        assert stepper.paused_after.status == "failed"
        assert "undefined variable 'petId'" in app.inspector.text
        await ui.press(pilot, "c")
        assert stepper.finished is not None and stepper.finished.failed == 1
