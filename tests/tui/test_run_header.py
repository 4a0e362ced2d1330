"""The header line: never loses the state at 120 columns (the scenario's name is clipped first),
never stale (a note of the past gives way to where the run paused), and `finished in` counts the
time the run ran, not the time it sat paused."""

from __future__ import annotations

import asyncio
import re

SIZE = (120, 40)

LONG = """\
scenario: a scenario whose name goes on and on, far longer than any header line could ever hold in one row
  when: GET /health
  then: status 200
  when: GET /health
"""


async def test_the_state_is_never_cut_off(scenario_file, make_app, ui):
    path = scenario_file(LONG, name="a-file-with-a-rather-long-name-too.scenario")
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario a scenario")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "then status 200")
        await ui.press(pilot, "b", "c")
        shown = app.status_bar.shown
        assert len(shown) <= SIZE[0] - 2
        assert "paused at breakpoint, line 3 of 'a scenario whose" in shown
        assert "…'" in shown  # the name is what gave way
        # and at 80 columns, still the whole state
        await pilot.resize_terminal(80, 24)
        await ui.settle(pilot)
        assert "paused at breakpoint, line 3 of 'a sc" in app.status_bar.shown
        assert len(app.status_bar.shown) <= 78


async def test_a_breakpoint_note_gives_way_to_the_pause(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario read pet")
        await ui.press(pilot, "b")
        assert "breakpoint set on" in app.status_bar.text
        await ui.press(pilot, "c")
        text = app.status_bar.text
        assert "breakpoint set" not in text
        assert "paused at breakpoint, line 6 of 'read pet'" in text


async def test_finished_in_excludes_the_time_paused(scenario_file, make_app, ui):
    app = make_app(scenario_file(LONG), deterministic=False)
    async with app.run_test(size=SIZE) as pilot:
        await ui.press(pilot, "n")
        await asyncio.sleep(1.2)  # sitting paused
        await ui.press(pilot, "c")
        found = re.search(r"finished: passed in ([\d.]+) (ms|s)", app.status_bar.text)
        assert found, app.status_bar.text
        seconds = float(found.group(1)) / (1000 if found.group(2) == "ms" else 1)
        assert seconds < 1.0


async def test_a_breakpoint_in_a_fragment_names_the_fragment_and_the_scenario_that_included_it(
    scenario_file, make_app, ui
):
    path = scenario_file("""\
        fragment: pet is Rex the dog
          then: status 200

        scenario: create a pet
          when: GET /health
          include: pet is Rex the dog
        """)
    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "fragment pet is Rex")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "then status 200  :2")
        await ui.press(pilot, "b", "c")
        assert "paused at breakpoint, line 2 of fragment 'pet is Rex the dog' in 'create a pet'" in app.status_bar.text
        shown = app.status_bar.shown  # at 80 columns: whole, the names clipped
        assert "line 2 of fragment 'pet is" in shown and "' in 'creat" in shown and len(shown) <= 78
        await ui.press(pilot, "n")  # the last step ran: not in a fragment any more
        assert "fragment" not in app.status_bar.text


async def test_a_name_is_not_clipped_while_zero_counts_can_give_way(pets_file, make_app, ui):
    # at 80 columns, `paused before when line 6 of 'read pet'` with `1 passed · 0 failed · 0
    # skipped` did not fit: the name was cut to `read …` before the zeros went, 14 columns free
    app = make_app(pets_file)
    async with app.run_test(size=(80, 24)) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, *"nnnnnnn")
        shown = app.status_bar.shown
        assert "paused before when line 6 of 'read pet'" in shown and "1 passed" in shown
        assert "0 failed" not in shown and len(shown) <= 78


async def test_counts_that_cannot_fit_whole_go_rather_than_end_in_an_ellipsis(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=(80, 24)) as pilot:
        await ui.settle(pilot)
        app.status_bar.set(
            file_name="pets.scenario",
            state="paused before then line 17 of fragment 'login'",
            subject="rename the pet",
            counts="3 passed · 0 failed · 0 skipped",
        )
        await ui.settle(pilot)
        shown = app.status_bar.shown
        assert "line 17 of fragment 'login' in '" in shown and len(shown) <= 78
        assert "passed" not in shown and not shown.endswith("…")  # not `3…`
