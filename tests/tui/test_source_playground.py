"""`j` on a response that is not JSON opens the playground in XPath mode (an XML body) or regex
mode (text): the expression is read as the executor reads the source, and ctrl+s writes the
`extract:` line after the step through the one writer (scenario_core.editor.writeback).
Against the demo API's XML endpoint, with Pilot."""

from __future__ import annotations

from scenario_core.run.stepper import PAUSED
from scenario_tui.widgets.source_playground import SourcePlayground

SIZE = (120, 40)

XML = """\
scenario: xml
  when: GET /pets.xml
  then: status 200
"""


async def paused_on(pilot, ui, app, request: str) -> None:
    await ui.settle(pilot)
    await ui.move_to(pilot, "scenario xml")
    await ui.press(pilot, "space")
    await ui.move_to(pilot, "then status 200")
    await ui.press(pilot, "b", "c")
    assert app.stepper.state == PAUSED
    await ui.move_to(pilot, request)
    await ui.press(pilot, "j")


async def test_xpath_mode_on_the_demo_xml_endpoint_writes_the_extract_with_ctrl_s(tmp_path, make_app, ui):
    path = tmp_path / "xml.scenario"
    path.write_text(XML)
    app = make_app(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await paused_on(pilot, ui, app, "when GET /pets.xml")
        screen = app.screen
        assert isinstance(screen, SourcePlayground) and screen.kind == "xpath"
        for char in "string(/pets/@count)":
            await pilot.press(char)
        await ui.settle(pilot)
        assert "extract stores count = " in screen.text
        assert 'ctrl+s writes: extract: count from xpath "string(/pets/@count)"' in screen.text
        assert '<pets count="0"' in screen.text  # the body, indented below
        await ui.press(pilot, "ctrl+s")
        assert not isinstance(app.screen, SourcePlayground)
    assert path.read_text() == XML.replace(
        "  then: status 200\n", '  extract: count from xpath "string(/pets/@count)"\n  then: status 200\n'
    )


async def test_regex_mode_on_a_text_body_and_a_no_match_says_so(tmp_path, make_app, ui):
    path = tmp_path / "text.scenario"
    path.write_text(XML.replace("/pets.xml", "/text"))
    app = make_app(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await paused_on(pilot, ui, app, "when GET /text")
        screen = app.screen
        assert isinstance(screen, SourcePlayground) and screen.kind == "regex"
        for char in "not (\\w+)":
            await pilot.press(char)
        await ui.settle(pilot)
        assert "extract stores match = " in screen.text and "json" in screen.text
        for _ in range(len("not (\\w+)")):
            await pilot.press("backspace")
        for char in "zzz":
            await pilot.press(char)
        await ui.settle(pilot)
        assert "regex matched nothing in the body" in screen.text
        await ui.press(pilot, "escape")
    assert path.read_text() == XML.replace("/pets.xml", "/text")
