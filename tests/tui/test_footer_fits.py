"""The footer shows whole keys only, the most useful first: at 80 columns it keeps n, c, b, ?,
h and break on failure's on/off state; no key is ever cut by the screen's edge."""

from __future__ import annotations

from textual.widgets._footer import FooterKey

from scenario_tui.widgets.key_footer import fitting, key_width


def shown(app) -> list[FooterKey]:
    return list(app.screen.query(FooterKey))


def test_fitting_keeps_the_most_useful_keys_whole_in_their_order():
    keys = [("quit", "q", "Quit"), ("next_step", "n", "Next"), ("break_on_failure(True)", "f", "Break on fail ○")]
    assert fitting(keys, 100, False) == [0, 1, 2]
    room = key_width("n", "Next", True) + key_width("f", "Break on fail ○", True)
    assert fitting(keys, room, True) == [1, 2]  # q left out whole, not cut
    assert fitting(keys, room - 1, True) == [0, 1]  # f no longer fits: a smaller key that does shows


async def test_the_footer_keeps_the_most_useful_keys_and_the_break_on_failure_state_at_80_columns(
    pets_file, make_app, ui
):
    app = make_app(pets_file)
    async with app.run_test(size=(80, 24)) as pilot:
        await ui.settle(pilot)
        await ui.wait_for(pilot, lambda: shown(app), "the footer's keys")
        keys = {key.key_display: key.description for key in shown(app)}
        assert {"n", "c", "b", "?", "h", "f"} <= set(keys), keys
        assert keys["f"] == "Break on fail ○"
        await ui.press(pilot, "n", "n", "f")
        await pilot.pause(0.1)
        keys = {key.key_display: key.description for key in shown(app)}
        assert keys["f"] == "Break on fail ●"
        assert "v" in keys  # a run has shown requests: v reveals their secrets


async def test_no_footer_key_is_cut_at_the_screen_edge(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=(120, 40)) as pilot:
        for width in (120, 80, 100, 200):
            await pilot.resize_terminal(width, 40)
            await ui.settle(pilot)
            await pilot.pause(0.1)  # the footer lays itself out again after the resize
            await ui.wait_for(pilot, lambda: shown(app), "the footer's keys")
            for key in shown(app):
                assert key.region.right <= width, (width, key.key_display, key.region)
                text = key.render().plain
                assert key.description in text  # whole: `R Reload`, never `R Re`
