"""Messages are never cut and never cover a failure: a note too long for the header's line gets a
line of its own below it (wrapped if it must be), and notifications show at the top right, over
the variables, never over the inspector's failure text."""

from __future__ import annotations

from textual.widgets._toast import Toast

from scenario_core.run.stepper import PAUSED

FAILING = """\
scenario: breaks
  when: GET /health
  then: status 404
"""

ENDED = "feature 'Pets' ended — cleared shared variables: petId, petName"
LONGER = ENDED + ", and the token from the login, and a few more words for a second line"


async def test_a_long_header_note_gets_a_line_of_its_own_never_cut(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=(80, 24)) as pilot:
        await ui.settle(pilot)
        app.status_bar.set(note=ENDED)
        await ui.settle(pilot)
        first, below = app.status_bar.shown.split("\n")
        assert "ready — n steps, c runs" in first and below == ENDED
        assert app.status_bar.size.height == 2  # the panels moved down a line: nothing covered
        assert app.query_one("#switcher").region.y == 2
        app.status_bar.set(note=LONGER)  # longer than the screen is wide: wrapped, whole
        await ui.settle(pilot)
        assert app.status_bar.size.height == 3
        assert app.status_bar.shown.split("\n")[1] == LONGER
        app.status_bar.set(note="reloaded")  # a short note: back on the one line
        await ui.settle(pilot)
        assert app.status_bar.shown.endswith("ready — n steps, c runs  reloaded")
        assert app.status_bar.size.height == 1


async def test_a_breakpoint_note_is_whole_at_80_columns(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=(80, 24)) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario no shared pet")
        await ui.press(pilot, "b")
        assert "breakpoint set on scenario line 28 (1 in all)" in app.status_bar.shown


async def test_a_notification_never_covers_the_inspectors_failure_text(scenario_file, make_app, ui):
    app = make_app(scenario_file(FAILING))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await ui.press(pilot, "f", "c")  # `f` notifies: break on failure is on
        assert app.stepper.state == PAUSED
        app.notify("Secrets shown — v masks them again, and a few more words to make it long.")
        await ui.settle(pilot)
        toasts = list(app.screen.query(Toast))
        assert toasts
        inspector = app.inspector.region
        for toast in toasts:
            assert not toast.region.overlaps(inspector), (toast.region, inspector)
            assert toast.region.y >= 1  # below the header's first line


async def test_a_state_too_long_for_the_line_never_wraps_onto_a_second_one(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=(80, 24)) as pilot:
        await ui.settle(pilot)
        app.status_bar.set(
            state="paused before then line 17 of fragment 'login'",
            subject="the file store still has the inventory",
            counts="4 passed · 0 failed · 0 skipped",
        )
        await ui.settle(pilot)
        assert app.status_bar.size.height == 1  # the counts give way at the edge, not a line down
        assert "paused before then line 17 of fragment 'login' in 'the f…'" in app.status_bar.shown
