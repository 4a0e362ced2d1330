"""Invalid files open on an errors view (never a crash); the file is watched and reloads, keeping
the tree's expansion and cursor where the same nodes still exist."""

from __future__ import annotations

import os
import time

from textual.widgets import ContentSwitcher

SIZE = (120, 40)

INVALID = """\
parameters:
  shareVariables: true
  timeout: "30"

scenario: health
  when: GET /health
"""


async def test_an_invalid_file_opens_on_its_errors(scenario_file, make_app, ui):
    path = scenario_file(INVALID, "bad.scenario")
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        assert app.query_one(ContentSwitcher).current == "errors"
        errors = app.query_one("#errors")
        assert errors.border_title == "bad.scenario: 2 errors — the file cannot run"
        assert errors.lines == [
            f"{path}:2:3: error: unknown parameter 'shareVariables'; did you mean 'shareVariablesAcrossScenarios'?",
            "    2 │   shareVariables: true",
            f'{path}:3:12: error: timeout must be a positive integer number of seconds, got "30" (remove the quotes)',
            '    3 │   timeout: "30"',
        ]
        assert "invalid: 2 errors" in app.status_bar.text
        await ui.press(pilot, "n")  # nothing runs, nothing breaks
        assert app.stepper.state == "idle"


async def test_an_unreadable_file_is_an_error_too(scenario_file, make_app, ui):
    path = scenario_file("", "latin1.scenario")
    path.write_bytes(b"scenario: caf\xe9\n  when: GET /health\n")
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        assert app.query_one(ContentSwitcher).current == "errors"
        assert app.query_one("#errors").lines[0].endswith("1:14: error: the file is not UTF-8 text")


def _touch(path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    later = time.time() + 2  # a new mtime even on coarse clocks
    os.utime(path, (later, later))


async def test_saving_reloads_keeping_expansion_and_cursor(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario read pet")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, 'then $.name == "Rex"')
        await ui.press(pilot, "b")

        # a new scenario above shifts every line: the keys are names and positions, not lines
        text = pets_file.read_text().replace(
            "scenario: read pet", "scenario: list pets\n    when: GET /pets\n  scenario: read pet"
        )
        _touch(pets_file, text)
        # the file is polled every 0.5 s: wait for the reload, however late a busy machine polls
        await ui.wait_for(pilot, lambda: "scenario list pets" in "\n".join(ui.tree_lines(app)), "the reload", 30)
        await ui.settle(pilot)
        lines = ui.tree_lines(app)
        ui.line_with(lines, "scenario list pets  :23")
        cursor = app.file_tree.label_for(app.file_tree.cursor_node).plain
        assert cursor.startswith("● ") and 'then $.name == "Rex"  :27' in cursor  # breakpoint kept
        assert "when GET /pets/{{petId}}  :26" in "\n".join(lines)  # still expanded
        assert "reloaded" in app.status_bar.text

        # broken: the errors view; fixed again: the tree is back
        _touch(pets_file, text.replace("feature: Audit", "feature Audit"))
        switcher = app.query_one(ContentSwitcher)
        await ui.wait_for(pilot, lambda: switcher.current == "errors", "the errors view", 30)
        await ui.settle(pilot)
        assert app.query_one(ContentSwitcher).current == "errors"
        assert ":29:1: error:" in app.query_one("#errors").lines[0]
        _touch(pets_file, text)
        await ui.wait_for(pilot, lambda: switcher.current == "main", "the tree back", 30)
        await ui.settle(pilot)
        assert app.query_one(ContentSwitcher).current == "main"
        assert 'then $.name == "Rex"  :27' in app.file_tree.label_for(app.file_tree.cursor_node).plain


async def test_R_reloads_by_hand_and_stops_the_run(pets_file, make_app, ui):
    app = make_app(pets_file, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ui.press(pilot, "n", "n")
        pets_file.write_text(pets_file.read_text().replace("scenario: health", "scenario: healthy"))
        await pilot.pause(0.7)
        assert "scenario healthy" not in "\n".join(ui.tree_lines(app))  # not watched
        await ui.press(pilot, "R")
        ui.line_with(ui.tree_lines(app), "scenario healthy")
        assert app.stepper.state == "idle"
        assert "ready" in app.status_bar.text


async def test_a_reload_that_resumes_after_the_app_began_to_quit_reads_nothing(pets_file, make_app, ui, monkeypatch):
    """A file saved as the user quits: the reload worker waits for the run to wind down, and by
    then the screen is being taken down. It stops there, without an error at exit."""
    app = make_app(pets_file, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        loads = []
        monkeypatch.setattr(app, "_load", lambda keep: loads.append(keep))
        monkeypatch.setattr(type(app), "is_running", property(lambda self: False))
        await app._reload()
        monkeypatch.undo()
        assert loads == []
        await app._reload()  # running: it reads the file again
        assert "reloaded" in app.status_bar.text
