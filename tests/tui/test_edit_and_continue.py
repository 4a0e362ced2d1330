"""Edit and continue (docs/spec/scopes.md#editing-while-paused) through the TUI on a real file against the demo API: paused at a
step whose request uses {{petId}}, `=` edits petId in a layer, the Variables panel and the Scope
events log show the edit at once, and `a` re-sends the step: the request shows the new URL and its
new run replaces the old one in the inspector and the history. Deleting the variable makes the
re-sent step report it missing."""

from __future__ import annotations

import re

from scenario_core.run.events import RUN_LAYER, SCENARIO_LAYER
from scenario_core.run.stepper import PAUSED
from scenario_tui.widgets.value_viewer import ValueViewer
from scenario_tui.widgets.variable_editor import VariableEditor

SIZE = (120, 40)

# Line numbers matter: tests name them.
PETS = """\
scenario: read a pet
  when: GET /counter
  extract: petId from $.value
  when: GET /pets/{{petId}}
  then: status 404
"""
GET_LINE = 4


async def paused_at_get(pilot, ui, app) -> None:
    """A breakpoint on the GET that uses {{petId}}, and `c` to it."""
    await ui.settle(pilot)
    await ui.move_to(pilot, "scenario read a pet")
    await ui.press(pilot, "space")
    await ui.move_to(pilot, "when GET /pets/{{petId}}")
    await ui.press(pilot, "b", "c")
    assert app.stepper.state == PAUSED and app.stepper.current.step.location.line == GET_LINE


async def type_text(pilot, ui, text: str) -> None:
    for char in text:
        await pilot.press(char)
    await ui.settle(pilot)


async def edit(pilot, ui, app, name: str, value: str | None) -> VariableEditor:
    """`=` (it opens on the variable the paused step reads, focus on its value), another name
    when asked, then the value and Enter (None: ctrl+d deletes)."""
    await ui.press(pilot, "equals_sign")
    editor = app.screen
    assert isinstance(editor, VariableEditor)
    if editor.variable_name != name:
        editor.query_one("#variable-editor-name").focus()  # its text selected: typing replaces it
        await ui.settle(pilot)
        await type_text(pilot, ui, name)
        await ui.press(pilot, "enter")  # from the name to the value
    if value is None:
        await ui.press(pilot, "ctrl+d")
    else:
        await type_text(pilot, ui, value)  # the value field's text is selected: typing replaces it
        await ui.press(pilot, "enter")
    return editor


def runs_of_line(app, line: int) -> list:
    return [run for run in app.run_controller.history.runs if run.step.location.line == line]


async def test_edit_petId_then_resend_sends_the_new_url_and_replaces_the_result(scenario_file, make_app, ui):
    app = make_app(scenario_file(PETS))
    async with app.run_test(size=SIZE) as pilot:
        await paused_at_get(pilot, ui, app)
        old = app.stepper.current.before.lookup("petId")[1]
        await edit(pilot, ui, app, "petId", "2")
        assert not isinstance(app.screen, VariableEditor)  # applied: the editor closed
        assert f"✎ petId edited by you in scenario: {old} → 2" in app.scope_log.entries
        variables = app.variables_panel.text
        assert "petId" in variables and "edited by you" in variables
        await ui.press(pilot, "a")
        assert app.stepper.pause_reason == "resent"
        assert re.search(r"^GET http://\S+/pets/2$", app.inspector.text, re.MULTILINE)  # the request as sent
        assert f"passed when re-sent, line {GET_LINE} of 'read a pet'" in app.status_bar.text
        first = runs_of_line(app, GET_LINE)
        assert len(first) == 1
        # again, with another value: the new run replaces the old in the history and the inspector
        await edit(pilot, ui, app, "petId", "3")
        await ui.press(pilot, "a")
        again = runs_of_line(app, GET_LINE)
        assert len(again) == 1 and again[0] is not first[0] and again[0].replaces is first[0]
        assert re.search(r"^GET http://\S+/pets/3$", app.inspector.text, re.MULTILINE)
        assert app.records[again[0].key] is again[0]
        await ui.press(pilot, "c")  # and continue: the scenario goes on from there
        assert app.stepper.finished is not None and app.stepper.finished.passed == 1


async def test_delete_petId_then_resend_reports_the_missing_variable(scenario_file, make_app, ui):
    app = make_app(scenario_file(PETS))
    async with app.run_test(size=SIZE) as pilot:
        await paused_at_get(pilot, ui, app)
        await edit(pilot, ui, app, "petId", None)
        assert not isinstance(app.screen, VariableEditor)
        assert any(entry.startswith("✎ petId deleted by you from scenario") for entry in app.scope_log.entries)
        await ui.press(pilot, "a")
        resent = app.stepper.paused_after
        assert resent.status == "failed" and resent.request is None
        assert "undefined variable 'petId'" in app.inspector.text
        assert f"failed when re-sent, line {GET_LINE} of 'read a pet'" in app.status_bar.text


async def test_editor_refusal_is_one_line_in_the_dialog_which_stays_open(scenario_file, make_app, ui):
    app = make_app(scenario_file(PETS))
    async with app.run_test(size=SIZE) as pilot:
        await paused_at_get(pilot, ui, app)
        editor = await edit(pilot, ui, app, "param.timeout", "5")
        assert app.screen is editor
        assert "is a parameter, not a variable" in editor.refusal
        await ui.press(pilot, "escape")
        assert not isinstance(app.screen, VariableEditor)


async def test_edit_and_resend_say_why_not_when_the_run_is_not_paused(scenario_file, make_app, ui):
    app = make_app(scenario_file(PETS))
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "equals_sign")
        assert not isinstance(app.screen, VariableEditor)
        await ui.press(pilot, "a")
        messages = [n.message for n in app._notifications]
        assert any("while the run is paused" in m for m in messages)
        assert any("a re-sends the step the run is paused on" in m for m in messages)


async def test_a_secret_edited_stays_masked_in_the_scope_log_and_the_variables(scenario_file, make_app, ui):
    app = make_app(scenario_file(PETS))
    async with app.run_test(size=SIZE) as pilot:
        await paused_at_get(pilot, ui, app)
        await edit(pilot, ui, app, "apiToken", "hunter2-edited-secret")
        entry = next(e for e in app.scope_log.entries if e.startswith("✎ apiToken set by you"))
        assert "hunter2" not in entry and "hunter2" not in app.variables_panel.text
        assert app.stepper.current.before.lookup("apiToken") == (True, "hunter2-edited-secret")


async def test_the_value_viewer_says_an_edited_value_was_set_by_you(scenario_file, make_app, ui):
    app = make_app(scenario_file(PETS))
    async with app.run_test(size=SIZE) as pilot:
        await paused_at_get(pilot, ui, app)
        old = app.stepper.current.before.lookup("petId")[1]
        await edit(pilot, ui, app, "petId", "2")
        panel = app.variables_panel
        panel.focus()
        await ui.settle(pilot)
        assert panel.rows[panel.cursor][1] == "petId"  # the only variable
        await ui.press(pilot, "enter")
        viewer = app.screen
        assert isinstance(viewer, ValueViewer)
        assert viewer.lines[1] == f"set by you (edited while paused at line {GET_LINE})  · scenario 'read a pet'"
        assert f"edited by you  while paused at line {GET_LINE}" in viewer.text
        assert f"    {old} → 2" in viewer.text


SHARED = """\
parameters:
  shareVariablesAcrossScenarios: true

scenario: first
  when: GET /counter
  extract: petId from $.value

scenario: second
  when: GET /counter
  extract: count from $.value
  when: GET /pets/{{petId}}
  then: status 404
"""


async def test_the_editor_opens_on_the_layer_of_the_variable_under_the_cursor(scenario_file, make_app, ui):
    # the layer comes from the row's data (a store's label, as the stepper names it), not its title
    app = make_app(scenario_file(SHARED))
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario second")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "when GET /pets/{{petId}}")
        await ui.press(pilot, "b", "c")
        assert app.stepper.state == PAUSED
        panel = app.variables_panel
        panel.focus()
        await ui.settle(pilot)
        opened = {}
        for index in range(len(panel.rows)):
            panel.cursor = index
            row = panel.rows[index]
            await ui.press(pilot, "equals_sign")
            editor = app.screen
            assert isinstance(editor, VariableEditor)
            opened[row.name] = (row.title, editor.initial[0], editor.initial_layer)
            await ui.press(pilot, "escape")
            panel.focus()
            await ui.settle(pilot)
        layers = {layer.label for layer in app.stepper.editable_layers()}
        store = next(label for label in layers if label not in (SCENARIO_LAYER, RUN_LAYER))
        assert store == "file store"  # titled `shared: file` in the panel
        assert opened == {"count": ("shared: file", "count", store), "petId": ("shared: file", "petId", store)}
