"""`p` in the TUI: a curl command pasted in a small dialog becomes a new step after the highlighted
one, written by the one writer into the file on disk (every other byte kept), and the app reloads."""

from __future__ import annotations

from textual.widgets import TextArea

from scenario_tui.widgets.curl_paste import CurlPaste

SIZE = (120, 40)

FILE = """\
parameters:
  baseUrl: http://127.0.0.1:9

scenario: echo
  when: POST /echo
    body: {"data": {"id": 7}}
  then: status 200
"""


def notes(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def _paste(pilot, ui, app, command: str) -> None:
    await ui.settle(pilot)
    await ui.move_to(pilot, "scenario echo")
    await ui.press(pilot, "space")
    await ui.move_to(pilot, "when POST /echo")
    await ui.press(pilot, "p")
    assert isinstance(app.screen, CurlPaste)
    app.screen.query_one(TextArea).text = command
    await ui.press(pilot, "ctrl+s")


async def test_p_pastes_a_curl_command_after_the_step_and_the_tree_shows_it(tmp_path, make_app, ui):
    path = tmp_path / "paste.scenario"
    path.write_bytes(FILE.replace("\n", "\r\n").encode())
    app = make_app(path, watch=False)
    command = "curl 'http://127.0.0.1:9/pets?tag=dog' \\\n  -H 'authorization: Bearer abc.def' \\\n  -H 'sec-fetch-mode: cors'"
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await _paste(pilot, ui, app, command)
        assert not isinstance(app.screen, CurlPaste)
        await ui.wait_for(pilot, lambda: any("GET /pets?tag=dog" in line for line in ui.tree_lines(app)), "reload")
        assert "Wrote 'when: GET /pets?tag=dog' at line 7." in notes(app)
        assert any(n.startswith("The step needs the run variables token") for n in notes(app)), notes(app)
    assert path.read_bytes().decode() == FILE.replace(
        '    body: {"data": {"id": 7}}\n',
        '    body: {"data": {"id": 7}}\n  when: GET /pets?tag=dog\n    headers:\n      authorization: Bearer {{token}}\n',
    ).replace("\n", "\r\n")


async def test_another_host_is_written_as_a_whole_url(tmp_path, make_app, ui):
    path = tmp_path / "paste.scenario"
    path.write_text(FILE, encoding="utf-8")
    app = make_app(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await _paste(pilot, ui, app, "curl -X DELETE https://other.test/pets/1")
    assert "  when: DELETE https://other.test/pets/1\n  then: status 200\n" in path.read_text(encoding="utf-8")


async def test_a_command_that_cannot_be_read_is_one_line_and_nothing_is_written(tmp_path, make_app, ui):
    path = tmp_path / "paste.scenario"
    path.write_text(FILE, encoding="utf-8")
    app = make_app(path, watch=False)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await _paste(pilot, ui, app, "curl 'http://127.0.0.1:9/a")
        assert isinstance(app.screen, CurlPaste)  # the dialog stays, to fix the command
        assert any(n.startswith("import curl: a ' quote is not closed") for n in notes(app)), notes(app)
        await ui.press(pilot, "escape")
        assert app.is_running
    assert path.read_text(encoding="utf-8") == FILE


async def test_p_on_a_scenario_says_to_highlight_a_step(tmp_path, make_app, ui):
    path = tmp_path / "paste.scenario"
    path.write_text(FILE, encoding="utf-8")
    app = make_app(path, watch=False)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario echo")
        await ui.press(pilot, "p")
        assert not isinstance(app.screen, CurlPaste)
        assert any("Highlight a step" in n for n in notes(app))
