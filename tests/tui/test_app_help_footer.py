"""The help screen lists every key the app binds; the footer shows z, v, R and Tab where they apply."""

from __future__ import annotations

from rich.console import Console
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from scenario_tui.app.shell import ScenarioApp
from scenario_tui.widgets.help_screen import HelpScreen, app_keys
from scenario_tui.widgets.theme_styles import rich_theme

SIZE = (160, 50)


def help_text(screen) -> str:
    # the app's styles (theme_styles): a table's column style is looked up strictly
    theme = rich_theme(screen.app.get_css_variables())
    console = Console(width=200, record=True, file=open("/dev/null", "w"), theme=theme)
    for static in screen.query(Static):
        console.print(static.content)
    return console.export_text()


def footer_keys(app) -> set[str]:
    return {key.key for key in app.screen.query(FooterKey) if not key.has_class("-disabled")}


async def test_help_lists_every_key_the_app_binds(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = help_text(app.screen)
        for binding in ScenarioApp.BINDINGS:
            assert f"\n{binding.key_display or binding.key} " in "\n" + text.replace("\n ", "\n"), binding
        for needle in ("$EDITOR", "filter the tree", "→ ←", "Enter", "Tab"):
            assert needle in text
        await ui.press(pilot, "escape")
        assert not isinstance(app.screen, HelpScreen)


def test_a_binding_the_help_does_not_name_yet_is_listed_with_its_description():
    from textual.binding import Binding

    rows = app_keys([Binding("k", "keep", "Keep"), Binding("n", "next_step", "Next")])
    assert ("k", "Keep") in rows
    assert sum(1 for key, _ in rows if key == "n") == 1


async def test_footer_shows_zoom_reload_tab_and_secrets_once_a_run_has_data(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        keys = footer_keys(app)
        assert {"z", "R", "tab", "e", "slash"} <= keys, keys
        assert "v" not in keys  # nothing to reveal before a run
        await ui.press(pilot, "n", "n")
        await ui.settle(pilot)
        assert "v" in footer_keys(app)
