"""Suites: `scenario-tui DIR` and `scenario-tui A B` open every file, one root each, run in order."""

from __future__ import annotations

import os
import time

import pytest

from scenario_core.parameters.resolution import RunOverrides
from scenario_tui.app.shell import ScenarioApp
from scenario_tui.cli import main as cli

SIZE = (120, 40)

HEALTH = """\
scenario: health
  when: GET /health
  then: $.status == "ok"
"""

LIST = """\
@pets
scenario: list pets
  when: GET /pets
  then: status 200

@slow
scenario: health
  when: GET /health
  then: status 200
"""

# A structural error refuses the file (an invalid condition such as `then: status banana` would
# only end its scenario: docs/spec/steps.md#errors-local-to-one-scenario).
BROKEN = """\
scenario: broken
  when: GET /health
  then status 200
"""


@pytest.fixture
def make_app(demo):
    """An app on a list of files, pointed at the demo API."""

    def make(paths) -> ScenarioApp:
        return ScenarioApp([str(p) for p in paths], RunOverrides.from_cli([], demo.url), {})

    return make


def write(tmp_path, name, text):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


async def test_two_files_one_root_each_run_in_order(tmp_path, make_app, ui):
    a, b = write(tmp_path, "a.scenario", HEALTH), write(tmp_path, "b.scenario", LIST)
    app = make_app([a, b])
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        lines = ui.tree_lines(app)
        roots = [line for line in lines if "▣" in line]
        assert [r.split("▣ ")[1] for r in roots] == ["a.scenario", "b.scenario"]
        assert app.status_bar.file_name == "2 files"
        await ui.press(pilot, "c")
        lines = ui.tree_lines(app)
        assert all("✓" in line for line in lines if "▣" in line), lines  # each file's root has its status
        assert "3 passed · 0 failed · 0 skipped" in app.status_bar.text
        # the same scenario name in two files: two nodes, two keys, two statuses
        health = [line for line in lines if "scenario health" in line]
        assert len(health) == 2 and all("✓" in line for line in health)


async def test_breakpoint_keys_stay_unique_across_files(tmp_path, make_app, ui):
    a, b = write(tmp_path, "a.scenario", HEALTH), write(tmp_path, "b.scenario", LIST)
    app = make_app([a, b])
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        # the second file's `health`: the run pauses there, not in the first file's
        nodes = [
            line.node
            for line in app.file_tree._tree_lines
            if "scenario health" in app.file_tree.label_for(line.node).plain
        ]
        app.file_tree.move_cursor(nodes[1])
        await ui.press(pilot, "b", "c")
        assert app.file_tree.breakpoints == {nodes[1].data.key}
        assert nodes[1].data.key[0] == 1
        assert "paused" in app.status_bar.text
        assert "✓" in app.file_tree.label_for(nodes[0]).plain  # the first file's health ran through


async def test_an_invalid_file_shows_its_errors_without_hiding_the_others(tmp_path, make_app, ui):
    a, bad = write(tmp_path, "a.scenario", HEALTH), write(tmp_path, "bad.scenario", BROKEN)
    app = make_app([a, bad])
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        lines = ui.tree_lines(app)
        assert "✗" in ui.line_with(lines, "bad.scenario — 1 error")
        ui.line_with(lines, "scenario health")  # the valid file still shows
        assert "1 of 2 files cannot run" in app.status_bar.text
        await ui.move_to(pilot, "bad.scenario")
        assert "bad.scenario:3:" in app.inspector.text and "error:" in app.inspector.text
        await ui.press(pilot, "c")  # the valid file still runs
        assert "1 passed · 0 failed" in app.status_bar.text


async def test_filtering_down_to_an_invalid_file_shows_its_errors(tmp_path, make_app, ui):
    a, bad = write(tmp_path, "a.scenario", HEALTH), write(tmp_path, "bad.scenario", BROKEN)
    app = make_app([a, bad])
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "slash")
        await pilot.press(*"bad")
        await ui.settle(pilot)
        assert ui.tree_lines(app) == ["✗ ▣ bad.scenario — 1 error"]
        assert "bad.scenario:3:" in app.inspector.text  # the node now under the cursor, though on the same line


async def test_a_changed_file_of_the_suite_reloads(tmp_path, make_app, ui):
    a, b = write(tmp_path, "a.scenario", HEALTH), write(tmp_path, "b.scenario", HEALTH)
    app = make_app([a, b])
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        first = app.files[0]
        b.write_text(LIST, encoding="utf-8")
        later = time.time() + 5
        os.utime(b, (later, later))
        await ui.wait_for(pilot, lambda: any("list pets" in line for line in ui.tree_lines(app)), "the reload")
        await ui.settle(pilot)
        assert app.files[0] is first  # only the changed file was read again


async def test_a_folder_expands_like_run(tmp_path, monkeypatch):
    write(tmp_path, "suite/b.scenario", HEALTH)
    write(tmp_path, "suite/a.scenario", HEALTH)
    write(tmp_path, "suite/deeper/c.scenario", HEALTH)
    write(tmp_path, "suite/notes.txt", "not a scenario")
    opened = {}

    def launch(path, *args, **kwargs):
        opened["path"] = path
        return 0

    monkeypatch.setattr("scenario_tui.app.launch.launch", launch)
    assert cli.main([str(tmp_path / "suite")]) == 0
    assert [os.path.relpath(p, tmp_path) for p in opened["path"]] == [
        "suite/a.scenario",
        "suite/b.scenario",
        "suite/deeper/c.scenario",
    ]


def test_an_empty_folder_is_one_line(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert cli.main([str(tmp_path / "empty")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no .scenario file in this folder" in err


def test_help_names_the_tui_form(capsys):
    try:
        cli.main(["--help"])
    except SystemExit:
        pass
    out = capsys.readouterr().out
    assert "scenario-tui FILE|DIR..." in out
    assert "run" in out and "params" in out


async def test_tags_select_across_the_suite(tmp_path, demo, ui):
    from scenario_tui.cli.parser import tag_selection

    a, b = write(tmp_path, "a.scenario", HEALTH), write(tmp_path, "b.scenario", LIST)
    app = ScenarioApp([str(a), str(b)], RunOverrides.from_cli([], demo.url), {}, tags=tag_selection(["pets"]))
    async with app.run_test(size=SIZE) as pilot:
        await ui.press(pilot, "c")
        assert "1 passed · 0 failed · 2 skipped" in app.status_bar.text
        lines = ui.tree_lines(app)
        assert "✓" in ui.line_with(lines, "scenario list pets")
        assert all("–" in line for line in lines if "scenario health" in line)


async def test_tags_that_select_nothing_are_said_at_once(tmp_path, demo, ui):
    # `run` refuses such a selection; the TUI opens (the file may be edited to match) and says so
    from scenario_tui.cli.parser import tag_selection

    a = write(tmp_path, "a.scenario", HEALTH)
    app = ScenarioApp(str(a), RunOverrides.from_cli([], demo.url), {}, tags=tag_selection(["nosuchtag"]))
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        assert "--tags 'nosuchtag' selects no scenario of these files" in app.status_bar.text
