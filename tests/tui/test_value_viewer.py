"""Enter on a variable opens the value viewer: the whole value as pretty JSON, its type, the step
that set it, and every write of it in this run (old → new); masked until `v`; Escape closes."""

from __future__ import annotations

from scenario_tui.widgets.value_viewer import ValueViewer

SIZE = (120, 40)
NOTE = "a fairly long string value that goes on " + "and on " * 30 + "to its END"

FILE = f"""\
feature: Shared
  parameters:
    shareVariablesAcrossScenarios: true
  scenario: first
    when: POST /echo
      body: {{"note": "{NOTE}", "n": 1, "token": "tok-0123456789"}}
    then: status 200
    extract: note from $.json.note
    extract: n from $.json.n
    extract: token from $.json.token
  scenario: second
    when: POST /echo
      body: {{"n": 2, "obj": {{"a": [1, 2], "b": "x"}}}}
    then: status 200
    extract: n from $.json.n
    extract: obj from $.json.obj
    then: status 200
"""
PAUSED_LAST = "n" * 10  # paused before the last of the 10 steps: the feature's store not cleared yet


async def open_variable(pilot, ui, layer: str, name: str) -> ValueViewer:
    app = pilot.app
    panel = app.variables_panel
    panel.focus()
    await ui.settle(pilot)
    target = next(i for i, row in enumerate(panel.rows) if row[0].startswith(layer) and row[1] == name)
    for _ in range(len(panel.rows)):
        if panel.cursor == target:
            break
        await ui.press(pilot, "down" if panel.cursor < target else "up")
    assert panel.rows[panel.cursor][1] == name
    await ui.press(pilot, "enter")
    assert isinstance(app.screen, ValueViewer)
    return app.screen


async def test_the_viewer_shows_the_whole_value_its_setter_and_history(scenario_file, make_app, ui):
    app = make_app(scenario_file(FILE))
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, *PAUSED_LAST)  # (after the run the store shows cleared, as the log says)
        viewer = await open_variable(pilot, ui, "shared", "n")
        text = viewer.text
        assert viewer.lines[0] == "n  number  in shared: feature 'Shared'"
        assert viewer.lines[1] == "set by line 15  extract n from $.json.n  · scenario 'second'"
        assert "── history in this run (2 writes)" in text
        assert "line 9  extract n from $.json.n  · scenario 'first' · into scenario, feature 'Shared'" in text
        assert "    (new) → 1" in text and "    1 → 2" in text
        await ui.press(pilot, "escape")
        assert not isinstance(app.screen, ValueViewer)

        viewer = await open_variable(pilot, ui, "shared", "note")
        assert f'"{NOTE}"' in "".join(viewer.lines)  # whole, however long
        await ui.press(pilot, "escape")

        viewer = await open_variable(pilot, ui, "this scenario", "obj")
        assert viewer.lines[0] == "obj  object  in this scenario"
        assert viewer.lines[3:10] == ["{", '  "a": [', "    1,", "    2", "  ],", '  "b": "x"', "}"]
        await ui.press(pilot, "escape")


async def test_secrets_stay_masked_until_v(scenario_file, make_app, ui):
    app = make_app(scenario_file(FILE))
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, *PAUSED_LAST)
        viewer = await open_variable(pilot, ui, "shared", "token")
        assert "tok-0123456789" not in viewer.text and "••••••" in viewer.text
        await ui.press(pilot, "v")  # revealed while the viewer is open: it is built again
        assert '"tok-0123456789"' in viewer.text
        await ui.press(pilot, "escape", "v")


async def test_history_resets_with_the_run(scenario_file, make_app, ui):
    app = make_app(scenario_file(FILE))
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "c")
        assert len(app.scope_log.history.of("n")) == 2
        await ui.press(pilot, "r")  # restarted: paused before the first step
        assert app.scope_log.history.of("n") == []
