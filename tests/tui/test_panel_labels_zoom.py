"""Small panel fixes: block labels, a scenario's breakpoint note, `z` filling the screen, the
palette's screenshot, and the errors view scrolling with its keys at once."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import ContentSwitcher

SIZE = (120, 40)


async def test_blocks_are_named_once(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "parameters")
        assert app.inspector.lines[0] == "parameters  line 2"
        await ui.move_to(pilot, "background")
        assert app.inspector.lines[0] == "background  line 5"
        await ui.move_to(pilot, "feature Pets")
        assert app.inspector.lines[0] == "feature 'Pets'  line 12"  # a name: quoted
        await ui.move_to(pilot, "create pet")
        await pilot.press("enter")  # expand: its file background group
        await ui.settle(pilot)
        await ui.move_to(pilot, "file background")
        assert app.inspector.lines[0] == "file background  line 5"


async def test_a_scenario_with_a_breakpoint_says_so(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario health")
        assert "not run yet — b sets a breakpoint on it" in app.inspector.text
        await ui.press(pilot, "b")
        assert "breakpoint set — c runs to it" in app.inspector.text
        assert "b sets a breakpoint" not in app.inspector.text
        await ui.press(pilot, "b")
        assert "not run yet — b sets a breakpoint on it" in app.inspector.text


async def test_zoom_fills_the_screen_for_parameters_and_variables(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        for panel in (app.parameters_panel, app.variables_panel, app.inspector):
            panel.focus()
            await ui.press(pilot, "z")
            assert app.screen.maximized is panel
            # the whole screen but the status line and the footer
            assert panel.outer_size.height >= SIZE[1] - 2, panel
            assert panel.outer_size.width == SIZE[0]
            await ui.press(pilot, "z")
            assert app.screen.maximized is None


async def test_screenshot_goes_to_the_working_directory(pets_file, make_app, ui, tmp_path, monkeypatch):
    home = tmp_path / "home"  # no Downloads folder in it
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DOWNLOAD_DIR", str(home / "Downloads"))
    shots = tmp_path / "cwd"
    shots.mkdir()
    monkeypatch.chdir(shots)
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        app.deliver_screenshot()  # what Palette → Screenshot calls
        await ui.wait_for(pilot, lambda: list(shots.glob("*.svg")), "the screenshot")
        await ui.wait_for(
            pilot, lambda: any("Saved screenshot to" in str(n.message) for n in app._notifications), "the notification"
        )
        saved = next(shots.glob("*.svg"))
        note = next(str(n.message) for n in app._notifications if "Saved screenshot" in str(n.message))
        assert str(Path(saved)) in note or saved.name in note
        assert not (home / "Downloads").exists()


async def test_errors_view_scrolls_with_page_down_and_end_at_once(scenario_file, make_app, ui):
    text = "".join(f"scenario: s{i}\n  when GET /health\n" for i in range(40))  # 40 errors
    app = make_app(scenario_file(text, "bad.scenario"))
    async with app.run_test(size=(80, 24)) as pilot:
        await ui.settle(pilot)
        errors = app.query_one("#errors")
        assert app.query_one(ContentSwitcher).current == "errors"
        assert errors.max_scroll_y > 0
        await ui.press(pilot, "pagedown")
        assert errors.scroll_y > 0
        await ui.press(pilot, "end")
        assert errors.scroll_y == errors.max_scroll_y
