"""The inspector wraps long lines by default, `w` keeps them whole with ←/→ scrolling (zoomed too),
and `y` copies the inspected request as a curl command through the terminal's clipboard."""

from __future__ import annotations

from textual.geometry import Region

SIZE = (120, 40)
LONG = "x" * 150 + "-END"

FILE = f"""\
scenario: long
  when: POST /echo?note={"n" * 120}-QEND
    headers:
      Authorization: Bearer tok-secret-12345
    body: {{"name": "{LONG}"}}
  then: status 200
"""


def _shown(widget) -> str:
    """The text the inspector's body draws (all of it, not just what is scrolled into view)."""
    body = widget.query_one("#inspector-body")
    strips = body.render_lines(Region(0, 0, body.size.width, body.size.height))
    return "\n".join(strip.text for strip in strips)


async def _ran(pilot, ui):
    await ui.settle(pilot)
    await ui.press(pilot, "c")
    await ui.move_to(pilot, "scenario long")
    await ui.press(pilot, "enter")  # expand it
    await ui.move_to(pilot, "when POST /echo")


async def test_long_lines_wrap_and_w_scrolls_them_sideways(scenario_file, make_app, ui):
    app = make_app(scenario_file(FILE))
    async with app.run_test(size=SIZE) as pilot:
        await _ran(pilot, ui)
        inspector = app.inspector
        assert inspector.max_scroll_x == 0
        shown = _shown(inspector)
        assert "-QEND" in shown and shown.count("-END") >= 2  # the request body and the echo: whole
        await ui.press(pilot, "w")
        assert not inspector.wrap and inspector.max_scroll_x > 0
        assert (
            "-END"
            not in inspector.query_one("#inspector-body")
            .render_lines(Region(0, 0, inspector.scrollable_content_region.width, 1))[0]
            .text
        )
        inspector.focus()
        await ui.press(pilot, "right", "right")
        assert inspector.scroll_x > 0
        await ui.press(pilot, "left", "left")
        assert inspector.scroll_x == 0
        for _ in range(3):  # typed faster than the screen refreshes: each one counts
            await pilot.press("right")
        await ui.settle(pilot)
        assert inspector.scroll_x == 3 * inspector.SIDE_STEP
        await ui.press(pilot, "left", "left", "left")
        await ui.press(pilot, "z")  # zoomed: still unwrapped, still scrolls
        assert app.screen.maximized is inspector and inspector.max_scroll_x > 0
        await ui.press(pilot, "right")
        assert inspector.scroll_x > 0
        await ui.press(pilot, "w")
        assert inspector.wrap and inspector.max_scroll_x == 0


async def test_y_copies_the_request_as_curl_masked_until_v(scenario_file, make_app, ui):
    app = make_app(scenario_file(FILE))
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "y")  # nothing sent yet: says so, copies nothing
        assert app.clipboard == ""
        await _ran(pilot, ui)
        await ui.press(pilot, "y")
        copied = app.clipboard
        assert copied.startswith("curl -X POST 'http://127.0.0.1:")
        assert "/echo?note=nnn" in copied and LONG in copied
        assert "tok-secret-12345" not in copied and "Authorization: Bearer" in copied
        await ui.press(pilot, "escape")  # the box that shows it (see test_y_shows_the_command_...)
        await ui.press(pilot, "v", "y")
        assert "Authorization: Bearer tok-secret-12345" in app.clipboard


async def test_y_on_a_then_step_copies_the_request_whose_response_it_checked(scenario_file, make_app, ui):
    app = make_app(scenario_file(FILE))
    async with app.run_test(size=SIZE) as pilot:
        await _ran(pilot, ui)
        await ui.move_to(pilot, "then status 200")
        await ui.press(pilot, "y")
        assert app.clipboard.startswith("curl -X POST 'http://127.0.0.1:")
        assert "/echo?note=nnn" in app.clipboard


async def test_y_shows_the_command_to_select_and_never_claims_it_was_copied(scenario_file, make_app, ui):
    from textual.widgets import TextArea

    from scenario_tui.widgets.curl_view import CurlView

    app = make_app(scenario_file(FILE))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await _ran(pilot, ui)
        await ui.press(pilot, "y")
        assert isinstance(app.screen, CurlView)
        shown = app.screen.query_one(TextArea).text
        assert shown == app.clipboard and shown.startswith("curl -X POST")  # whole, selectable
        note = app.screen.note
        assert "Copied if your terminal supports OSC 52" in note and "select it below" in note
        assert "Secrets are masked: v reveals them" in note
        assert not any("Copied the request" in str(n.message) for n in app._notifications)  # no claim
        await ui.press(pilot, "escape")
        assert not isinstance(app.screen, CurlView)
