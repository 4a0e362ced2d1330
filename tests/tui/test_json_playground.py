"""`j`: the JSON-path playground on a real response from the demo API: a path typed
shows its matches and what extract would store; ctrl+s writes the extract after the step, in the
file's dialect, and the app reloads keeping the tree as it was."""

from __future__ import annotations

from pathlib import Path

from scenario_core.run.stepper import FINISHED
from scenario_tui.widgets.json_playground import JsonPlayground

SIZE = (120, 40)

OURS = """\
scenario: echo
  when: POST /echo
    body: {"data": {"id": 7}, "items": [{"id": 1}, {"id": 2}]}
  then: status 200
"""


async def type_path(pilot, ui, path: str) -> None:
    for char in path:
        await pilot.press(char)
    await ui.settle(pilot)


async def test_playground_shows_matches_and_writes_the_extract_after_the_step(scenario_file, make_app, ui):
    path = scenario_file(OURS)
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "c")
        assert app.stepper.state == FINISHED
        await ui.move_to(pilot, "scenario echo")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "when POST /echo")
        await ui.press(pilot, "j")
        screen = app.screen
        assert isinstance(screen, JsonPlayground)
        await type_path(pilot, ui, "$.json.items[*].id")
        assert "2 matches" in screen.text
        assert "$.json.items[0].id = 1" in screen.text and "$.json.items[1].id = 2" in screen.text
        assert "extract stores id = [1, 2]" in screen.text
        assert "ctrl+s writes: extract: id from $.json.items[*].id" in screen.text
        await ui.press(pilot, "ctrl+s")
        assert not isinstance(app.screen, JsonPlayground)
        await ui.wait_for(pilot, lambda: "extract id" in "\n".join(ui.tree_lines(app)), "the reload")
        assert path.read_text() == OURS.replace(
            "  then: status 200\n", "  extract: id from $.json.items[*].id\n  then: status 200\n"
        )
        assert "reloaded" in app.status_bar.text
        # the reload keeps the tree as it was: the scenario open, the cursor on the same step
        assert "when POST /echo" in app.file_tree.label_for(app.file_tree.cursor_node).plain
        ui.line_with(ui.tree_lines(app), "then status 200")


async def test_playground_path_that_matches_nothing_names_the_closest_paths(scenario_file, make_app, ui):
    app = make_app(scenario_file(OURS))
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "c")
        await ui.move_to(pilot, "scenario echo")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "when POST /echo")
        await ui.press(pilot, "j")
        await type_path(pilot, ui, "$.id")
        assert "$.id matched nothing in the response body; the body has $.json.data.id, $.json.items[0].id" in (
            app.screen.text
        )
        await type_path(pilot, ui, "[")
        assert "invalid JSON path" in app.screen.text


async def test_playground_on_a_step_run_shown_in_the_history(scenario_file, make_app, ui):
    app = make_app(scenario_file(OURS))
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "c", "h", "up")  # the history, on the request step
        await ui.press(pilot, "j")
        assert isinstance(app.screen, JsonPlayground)
        assert "response of line 2" in app.screen.query_one("#playground").border_title
        await type_path(pilot, ui, "$.json.data.id")
        assert "extract stores id = 7" in app.screen.text


async def test_playground_on_a_step_not_run_says_so(scenario_file, make_app, ui):
    app = make_app(scenario_file(OURS))
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario echo")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "when POST /echo")
        await ui.press(pilot, "j")
        assert not isinstance(app.screen, JsonPlayground)


DEMO = Path(__file__).resolve().parents[2] / "core" / "demo"

BERRYCRUSH = f"""\
parameters:
  openapi: {DEMO / "petstore.yaml"}

scenario: health
  when I check the health
    call ^getHealth
    assert status 200
  then it is fine
    assert status 200
"""


async def test_playground_writes_berrycrush_extract_as_a_directive_under_the_described_step(
    scenario_file, make_app, ui
):
    path = scenario_file(BERRYCRUSH)
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "c")
        assert app.stepper.state == FINISHED
        await ui.move_to(pilot, "scenario health")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "when I check the health")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "call ^getHealth")
        await ui.press(pilot, "j")
        assert isinstance(app.screen, JsonPlayground)
        await type_path(pilot, ui, "$.status")
        assert "1 match" in app.screen.text
        await ui.press(pilot, "ctrl+s")
        await ui.wait_for(pilot, lambda: "extract" in "\n".join(ui.tree_lines(app)), "the reload")
        assert path.read_text() == BERRYCRUSH.replace(
            "    call ^getHealth\n", "    call ^getHealth\n    extract $.status => status\n"
        )


async def test_playground_writes_after_the_step_found_in_a_file_changed_since_it_was_loaded(
    scenario_file, make_app, ui
):
    path = scenario_file(OURS)
    app = make_app(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "c")
        await ui.move_to(pilot, "scenario echo")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "when POST /echo")
        await ui.press(pilot, "j")
        await type_path(pilot, ui, "$.json.data.id")
        changed = "# a comment above moves every line\n" + OURS
        path.write_text(changed)
        await ui.press(pilot, "ctrl+s")  # the step is found by the syntax tree, not by its old line
        assert path.read_text() == changed.replace(
            "  then: status 200\n", "  extract: id from $.json.data.id\n  then: status 200\n"
        )
        assert not isinstance(app.screen, JsonPlayground)


async def test_playground_highlights_the_matches_in_the_body(scenario_file, make_app, ui):
    from scenario_tui.widgets.json_body_lines import MATCH_STYLE

    app = make_app(scenario_file(OURS))
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "c")
        await ui.move_to(pilot, "scenario echo")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "when POST /echo")
        await ui.press(pilot, "j")
        await type_path(pilot, ui, "$.json.items[*].id")
        screen = app.screen
        shown = screen.shown
        highlighted = {shown.plain[span.start : span.end].strip() for span in shown.spans if span.style == MATCH_STYLE}
        assert highlighted == {'"id": 1', '"id": 2'}  # the two matches' lines, nothing else
        assert "── response body ──" in screen.text and '"data": {' in screen.text


def test_body_lines_highlight_a_matched_container_whole_and_stay_bounded():
    from scenario_tui.widgets.json_body_lines import MATCH_STYLE, MAX_LINES, body_lines

    text, first = body_lines({"a": {"b": [1, 2]}, "c": 3}, {"$.a"}, str)
    lines = text.plain.splitlines()
    marked = [
        lines[i]
        for i in range(len(lines))
        if any(s.style == MATCH_STYLE and text.plain.count("\n", 0, s.start) == i for s in text.spans)
    ]
    assert [line.strip() for line in marked] == ['"a": {', '"b": [', "1,", "2", "]", "},"]
    assert first == 1
    big, _ = body_lines(list(range(MAX_LINES * 2)), set(), str)
    assert len(big.plain.splitlines()) == MAX_LINES + 1 and "the body goes on" in big.plain
