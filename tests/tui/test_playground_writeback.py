"""ctrl+s in the JSON-path playground (`j`) on real files against the demo API: the extract is
written after the step found in the file on disk by its place in the syntax tree, keeping every
byte it does not change (line ends, a BOM); a file that stopped being UTF-8, or whose step is gone,
is refused in one line and left as it was, and the app goes on."""

from __future__ import annotations

from scenario_core.run.stepper import PAUSED
from scenario_tui.widgets.json_playground import JsonPlayground

SIZE = (120, 40)

OURS = """\
scenario: echo
  when: POST /echo
    body: {"data": {"id": 7}}
  then: status 200
"""
EXTRACT = "  extract: id from $.json.data.id"


async def type_path(pilot, ui, path: str) -> None:
    for char in path:
        await pilot.press(char)
    await ui.settle(pilot)


async def paused_with_playground(pilot, ui, app, path: str = "$.json.data.id") -> JsonPlayground:
    """Paused before `then:` (a breakpoint), the playground open on POST /echo's response."""
    await ui.settle(pilot)
    await ui.move_to(pilot, "scenario echo")
    await ui.press(pilot, "space")
    await ui.move_to(pilot, "then status 200")
    await ui.press(pilot, "b", "c")
    assert app.stepper.state == PAUSED
    await ui.move_to(pilot, "when POST /echo")
    await ui.press(pilot, "j")
    screen = app.screen
    assert isinstance(screen, JsonPlayground)
    await type_path(pilot, ui, path)
    assert "1 match" in screen.text
    return screen


def notes(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_ctrl_s_keeps_crlf_line_ends_and_the_bom(tmp_path, make_app, ui):
    path = tmp_path / "crlf.scenario"
    original = b"\xef\xbb\xbf" + OURS.replace("\n", "\r\n").encode()
    path.write_bytes(original)
    app = make_app(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await paused_with_playground(pilot, ui, app)
        await ui.press(pilot, "ctrl+s")
        assert not isinstance(app.screen, JsonPlayground)
    expected = original.replace(b"  then: status 200\r\n", EXTRACT.encode() + b"\r\n  then: status 200\r\n")
    assert path.read_bytes() == expected


async def test_a_file_no_longer_utf8_is_refused_in_one_line_by_j_and_ctrl_s(tmp_path, make_app, ui):
    path = tmp_path / "latin.scenario"
    path.write_text(OURS, encoding="utf-8")
    latin = "# café\n".encode("latin-1") + OURS.encode()
    app = make_app(path, watch=False)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await paused_with_playground(pilot, ui, app)
        path.write_bytes(latin)  # while paused, the file stops being UTF-8
        await ui.press(pilot, "ctrl+s")
        assert path.read_bytes() == latin  # nothing written
        assert any("latin.scenario:1:6: the file is not UTF-8 text" in note for note in notes(app)), notes(app)
        await ui.press(pilot, "escape")
        await ui.press(pilot, "j")  # opening it again reads the file for the preview
        assert isinstance(app.screen, JsonPlayground)
        await type_path(pilot, ui, "$.json.data.id")
        assert "1 match" in app.screen.text and "ctrl+s writes" not in app.screen.text
        await ui.press(pilot, "ctrl+s")
        assert path.read_bytes() == latin
        assert app.is_running


async def test_a_line_separator_or_form_feed_above_the_step_is_no_line_break(tmp_path, make_app, ui):
    path = tmp_path / "odd.scenario"
    text = "# one\u2028line, a form\ffeed, a \x1c group\n" + OURS
    path.write_text(text, encoding="utf-8")
    app = make_app(path, watch=False)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await paused_with_playground(pilot, ui, app)
        await ui.press(pilot, "ctrl+s")
        assert not isinstance(app.screen, JsonPlayground), notes(app)
    assert path.read_text(encoding="utf-8") == text.replace("  then: status 200\n", EXTRACT + "\n  then: status 200\n")


async def test_a_step_moved_on_disk_is_found_by_the_syntax_tree_not_its_line(tmp_path, make_app, ui):
    path = tmp_path / "moved.scenario"
    path.write_text(OURS, encoding="utf-8")
    app = make_app(path, watch=False)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await paused_with_playground(pilot, ui, app)
        # a scenario added above: the step's old line now holds another `when` step
        moved = "scenario: first\n  when: GET /health\n" + OURS
        path.write_text(moved, encoding="utf-8")
        await ui.press(pilot, "ctrl+s")
        assert not isinstance(app.screen, JsonPlayground), notes(app)
    assert path.read_text(encoding="utf-8") == moved.replace("  then: status 200\n", EXTRACT + "\n  then: status 200\n")


async def test_a_step_gone_from_the_file_on_disk_is_refused_in_one_line(tmp_path, make_app, ui):
    path = tmp_path / "gone.scenario"
    path.write_text(OURS, encoding="utf-8")
    app = make_app(path, watch=False)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await paused_with_playground(pilot, ui, app)
        changed = OURS.replace("POST /echo", "PUT /echo")
        path.write_text(changed, encoding="utf-8")
        await ui.press(pilot, "ctrl+s")
        assert path.read_text(encoding="utf-8") == changed
        assert isinstance(app.screen, JsonPlayground)
        assert any("step 'when: POST /echo'" in note and "not found" in note for note in notes(app)), notes(app)
        assert all("\n" not in note for note in notes(app))


BERRYCRUSH = """\
scenario: echo
  when I echo
    call raw POST /echo
      body: {"a => b": 5}
    assert status 200
"""


async def test_a_berrycrush_path_holding_a_quote_and_an_arrow_is_written_so_it_parses(tmp_path, make_app, ui):
    from scenario_core.language.parser import parse_text

    path = tmp_path / "bc.scenario"
    path.write_text(BERRYCRUSH, encoding="utf-8")
    app = make_app(path, watch=False)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "c")
        await ui.move_to(pilot, "scenario echo")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "when I echo")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "call raw POST /echo")
        await ui.press(pilot, "j")
        assert isinstance(app.screen, JsonPlayground)
        await type_path(pilot, ui, '$.json["a => b"]')
        assert "1 match" in app.screen.text
        await ui.press(pilot, "ctrl+s")
        assert not isinstance(app.screen, JsonPlayground), notes(app)
    written = path.read_text(encoding="utf-8")
    described = parse_text(written, str(path)).items[0].steps[0]
    extract = described.steps[1]
    assert (extract.keyword, extract.path, extract.name) == ("extract", '$.json["a => b"]', "a____b")
    assert "    extract '$.json[\"a => b\"]' => a____b\n" in written
