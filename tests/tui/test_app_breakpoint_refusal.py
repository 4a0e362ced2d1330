"""`b` on a node where a breakpoint could never fire is refused, with the reason in the status line."""

from __future__ import annotations

SIZE = (120, 40)


async def test_b_on_parameters_is_refused(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "⚙ parameters  :2")
        await ui.press(pilot, "b")
        assert app.file_tree.breakpoints == set()
        assert "no breakpoint here: parameters are settings and never run" in app.status_bar.text
        await ui.move_to(pilot, "scenario health")
        await ui.press(pilot, "b")  # where one can fire, it is set
        assert len(app.file_tree.breakpoints) == 1
        assert "breakpoint set" in app.status_bar.text


async def test_b_on_the_file_root_pauses_when_the_file_starts(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "b", "c")
        assert app.file_tree.breakpoints == {(0,)}
        assert "paused" in app.status_bar.text
