"""Snapshots of the debugger's loop at 80×24 and 120×40 (deterministic, as in test_snapshots.py;
update with --snapshot-update, then look at the SVGs): paused on a failed `then:`, the editor
opened on the variable its request read; after `a`, the request re-sent and the `then:` passed;
a collapsed feature showing the warning under it; and `d`, a response against the previous run's."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from scenario_core.parameters.resolution import RunOverrides
from scenario_tui.app.shell import ScenarioApp

SIZES = [(120, 40), (80, 24)]
IDS = ["120x40", "80x24"]

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
  then: $.name == "Rex"
"""

COUNTER = """\
scenario: count
  when: GET /counter
  then: status 200
"""


@pytest.fixture
def loop_app(demo, pets_file, monkeypatch):
    monkeypatch.chdir(pets_file.parent)

    def make(name: str, text: str | None = None) -> ScenarioApp:
        if text is not None:
            (pets_file.parent / name).write_text(text, encoding="utf-8")
        return ScenarioApp(name, RunOverrides.from_cli([], demo.url), {}, deterministic=True, watch=False)

    return make


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_editor_opened_on_the_variable_the_failed_then_read(snap_compare, loop_app, ui, size):
    async def run_before(pilot) -> None:
        await ui.settle(pilot)
        await ui.press(pilot, "f", "c")
        pilot.app.clear_notifications()  # ("Break on failure: on." would time out mid-snapshot)
        await ui.press(pilot, "equals_sign")
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False  # a blinking cursor is caught on or off by chance

    assert snap_compare(loop_app("made.scenario", MADE), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_then_passed_after_its_request_was_re_sent(snap_compare, loop_app, ui, size):
    async def run_before(pilot) -> None:
        await ui.settle(pilot)
        await ui.press(pilot, "f", "c", "equals_sign", "1", "enter", "a")
        pilot.app.clear_notifications()

    assert snap_compare(loop_app("made.scenario", MADE), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_a_collapsed_feature_shows_the_warning_under_it(snap_compare, loop_app, ui, size):
    async def run_before(pilot) -> None:
        await ui.settle(pilot)
        await ui.move_to(pilot, "feature Audit")
        await ui.press(pilot, "left")

    assert snap_compare(loop_app("pets.scenario"), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_response_changes_since_the_previous_run(snap_compare, loop_app, ui, size):
    async def run_before(pilot) -> None:
        await ui.settle(pilot)
        await ui.press(pilot, "c", "r", "c")
        await ui.move_to(pilot, "scenario count")
        await ui.press(pilot, "right")
        await ui.move_to(pilot, "when GET /counter")
        await ui.press(pilot, "d")

    assert snap_compare(loop_app("count.scenario", COUNTER), terminal_size=size, run_before=run_before)
