"""`d` (the TUI over `run --compare`'s comparison): what a response answers differently from the same step's earlier response — of the
previous run in this session, or of a loaded JSON report. JSON by path (added, removed, changed,
at any depth), any other body line by line; values masked as everywhere on screen."""

from __future__ import annotations

import json

from scenario_core.report.compare import ADDED, CHANGED, LINES, REMOVED, Change
from scenario_tui.widgets.response_diff import body_changes
from scenario_tui.widgets.value_viewer import ValueViewer

SIZE = (120, 40)

COUNTER = """\
scenario: count
  when: POST /login
    body: {"username": "demo", "password": "demo"}
  when: GET /counter
  then: status 200
"""


def test_json_bodies_are_compared_by_path_at_any_depth():
    old = json.dumps({"id": 1, "name": "Rex", "tags": ["a", "b"], "owner": {"age": 3}, "gone": True}).encode()
    new = json.dumps({"id": 1, "name": "Max", "tags": ["a"], "owner": {"age": 3, "since": 2020}, "new key": 1}).encode()
    changes = body_changes(old, "application/json", new, "application/json; charset=utf-8")
    assert changes == [
        Change(CHANGED, "$.name", "Rex", "Max"),
        Change(REMOVED, "$.tags[1]", "b"),
        Change(ADDED, "$.owner.since", new=2020),
        Change(REMOVED, "$.gone", True),
        Change(ADDED, "$['new key']", new=1),
    ]
    assert body_changes(old, "application/json", old, "application/json") == []
    # a number that became a string, or 1 that became true, is a change
    assert body_changes(b'{"a": 1}', "application/json", b'{"a": true}', "application/json") == [
        Change(CHANGED, "$.a", 1, True)
    ]


def test_text_and_xml_bodies_are_compared_line_by_line():
    old = b"<pet>\n  <name>Rex</name>\n  <age>3</age>\n</pet>\n"
    new = b"<pet>\n  <name>Max</name>\n  <age>3</age>\n</pet>\n"
    assert body_changes(old, "application/xml", new, "application/xml") == [
        Change(LINES, "line 2", lines=("-  <name>Rex</name>", "+  <name>Max</name>"))
    ]
    assert body_changes(b"same", "text/plain", b"same", "text/plain") == []


async def finish(pilot, ui, app) -> None:
    await ui.press(pilot, "c")
    assert app.stepper.finished is not None
    await ui.move_to(pilot, "scenario count")
    await ui.press(pilot, "right")  # expanded: its steps show


async def test_d_compares_with_the_same_step_of_the_previous_run(scenario_file, make_app, ui):
    app = make_app(scenario_file(COUNTER))
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await finish(pilot, ui, app)  # the counter answers 1
        await ui.move_to(pilot, "when GET /counter")
        await ui.press(pilot, "d")  # nothing earlier yet: says how to get something to compare
        assert not isinstance(app.screen, ValueViewer)
        assert any("No earlier response of this step" in n.message for n in app._notifications)
        await ui.press(pilot, "r")
        await finish(pilot, ui, app)  # the counter answers 2
        await ui.move_to(pilot, "when GET /counter")
        await ui.press(pilot, "d")
        viewer = app.screen
        assert isinstance(viewer, ValueViewer)
        text = viewer.text
        assert "against the previous run in this session" in text
        assert "status 200  (the same)" in text and "1 changed" in text
        assert "~ $.value  1 → 2" in text
        await ui.press(pilot, "escape")
        await ui.move_to(pilot, "then status 200")  # a then: compares the response it read
        await ui.press(pilot, "d")
        assert isinstance(app.screen, ValueViewer) and "~ $.value  1 → 2" in app.screen.text
        await ui.press(pilot, "escape")
        await ui.move_to(pilot, "when POST /login")  # a secret that changed stays masked
        await ui.press(pilot, "d")
        text = app.screen.text
        assert "$.token" in text
        tokens = [run.response.json["token"] for run in app.run_controller.history.runs[:1]]
        assert tokens and all(token not in text for token in tokens)


async def test_d_compares_with_a_loaded_json_report(scenario_file, make_app, ui, tmp_path):
    report = tmp_path / "yesterday.json"
    steps = [
        {"line": 2, "keyword": "when", "status": "passed", "message": None,
         "response": {"status": 200, "headers": [["Content-Type", "application/json"]], "body": {"token": "x"}}},
        {"line": 4, "keyword": "when", "status": "passed", "message": None,
         "response": {"status": 200, "headers": [["Content-Type", "application/json"]],
                      "body": {"value": 41, "unit": "calls"}}},
        {"line": 5, "keyword": "then", "status": "passed", "message": None},
    ]  # fmt: skip
    scenario = {"name": "count", "feature": None, "line": 1, "status": "passed", "steps": steps}
    report.write_text(json.dumps({"files": [{"path": "test.scenario", "scenarios": [scenario]}]}), encoding="utf-8")
    app = make_app(scenario_file(COUNTER))
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        app.response_compare.load(str(report))
        await finish(pilot, ui, app)
        await ui.move_to(pilot, "when GET /counter")
        await ui.press(pilot, "d")
        text = app.screen.text
        assert "against the report yesterday.json" in text
        assert "~ $.value  41 → 1" in text and '- $.unit  "calls"' in text
        await ui.press(pilot, "escape")
        app.response_compare.load(str(tmp_path / "missing.json"))
        await ui.settle(pilot)
        assert any("missing.json" in n.message for n in app._notifications), [n.message for n in app._notifications]
