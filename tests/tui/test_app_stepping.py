"""Stepping: n pauses before each step, c runs to a breakpoint, s stops (cancelling a request in
flight), r restarts from a fresh state; network faults are failed steps, never a crash."""

from __future__ import annotations

import time

from scenario_core.run.stepper import FINISHED, PAUSED, RUNNING

SIZE = (120, 40)


async def test_a_breakpoint_on_a_scenario_stops_the_run(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario read pet")
        await ui.press(pilot, "b")
        assert ui.line_with(ui.tree_lines(app), "scenario read pet").lstrip("▸▾ │├└").startswith("●")
        await ui.press(pilot, "c")
        assert app.stepper.state == PAUSED
        # paused entering 'read pet': before the first step it runs, the file background's
        assert "paused at breakpoint, line 6 of 'read pet'" in app.status_bar.text
        lines = ui.tree_lines(app)
        assert "✓" in ui.line_with(lines, "scenario create pet")
        assert "▶ when POST /login" in ui.line_with(lines, "▶")
        assert "about to run" in app.query_one("#inspector").text
        # c again: the breakpoint is behind us, the run goes to the end
        await ui.press(pilot, "c")
        assert app.stepper.state == FINISHED
        assert "3 passed · 1 failed" in app.status_bar.text


async def test_a_breakpoint_on_a_step_and_on_a_fragment(scenario_file, make_app, ui):
    path = scenario_file("""\
        fragment: ok
          then: status 200

        scenario: one
          when: GET /health
          include: ok
          when: GET /health
          then: status 200
        scenario: two
          when: GET /health
          include: ok
        """)
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario one")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "then status 200  :8")
        await ui.press(pilot, "b")
        await ui.move_to(pilot, "fragment ok")
        await ui.press(pilot, "b")
        await ui.press(pilot, "c")
        # the fragment's step: its line is the fragment's, named as such, then the scenario that ran it
        assert "paused at breakpoint, line 2 of fragment 'ok' in 'one'" in app.status_bar.text
        await ui.press(pilot, "c")
        assert "paused at breakpoint, line 8 of 'one'" in app.status_bar.text
        await ui.press(pilot, "c")
        assert "paused at breakpoint, line 2 of fragment 'ok' in 'two'" in app.status_bar.text  # again
        await ui.press(pilot, "b")  # the cursor is on the step: this sets one there, no harm
        await ui.press(pilot, "c")
        assert app.stepper.state == FINISHED


async def test_stop_cancels_the_request_in_flight(scenario_file, make_app, ui):
    path = scenario_file("""\
        scenario: slow
          when: GET /slow?ms=20000
          then: status 200
        scenario: never reached
          when: GET /health
        """)
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await ui.press(pilot, "n")  # paused before the slow request
        await pilot.press("n")  # send it
        await pilot.pause(0.3)
        assert app.stepper.state == RUNNING
        started = time.perf_counter()
        await ui.press(pilot, "s")
        assert time.perf_counter() - started < 5
        assert app.stepper.state == FINISHED
        assert "stopped" in app.status_bar.text
        lines = ui.tree_lines(app)
        assert "✗" in ui.line_with(lines, "scenario slow")
        assert "○" in ui.line_with(lines, "scenario never reached")
        await ui.move_to(pilot, "when GET /slow")
        assert "interrupted" in app.query_one("#inspector").text
        assert app.query_one("#scope").entries[-1].startswith("■ run stopped")


async def test_restart_runs_again_from_a_fresh_state(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.press(pilot, "c")
        assert app.stepper.state == FINISHED
        await ui.press(pilot, "r")
        assert app.stepper.state == PAUSED
        assert "paused before when line 6 of 'create pet'" in app.status_bar.text
        lines = ui.tree_lines(app)
        assert "○" in ui.line_with(lines, "scenario health")  # statuses are reset
        assert app.query_one("#scope").entries == [
            "▶ scenario 'create pet' started sharing feature 'Pets' store — fresh"
        ] or app.query_one("#scope").entries[:2] == [
            "+ feature 'Pets' store created (empty)",
            "▶ scenario 'create pet' started sharing feature 'Pets' store — fresh",
        ]
        await ui.press(pilot, "c")
        assert "3 passed · 1 failed" in app.status_bar.text


async def test_n_while_running_pauses_at_the_next_step(scenario_file, make_app, ui):
    path = scenario_file("""\
        scenario: slowish
          when: GET /slow?ms=1500
          when: GET /health
          when: GET /health
        """)
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await ui.wait_for(
            pilot,
            lambda: (
                app.stepper.state == RUNNING and app.stepper.current is not None and app.stepper.current.step.line == 2
            ),
            "the slow request in flight",
        )
        await ui.press(pilot, "n")
        assert app.stepper.state == PAUSED
        assert "paused before when line 3 of 'slowish'" in app.status_bar.text


async def test_a_refused_connection_is_a_failed_step(pets_file, make_app, ui):
    app = make_app(pets_file, base_url="http://127.0.0.1:9")  # nothing listens on the discard port
    async with app.run_test(size=SIZE) as pilot:
        await ui.press(pilot, "c")
        assert app.stepper.state == FINISHED
        lines = ui.tree_lines(app)
        assert "✗" in ui.line_with(lines, "scenario create pet")
        await ui.move_to(pilot, "scenario create pet")
        text = app.query_one("#inspector").text
        assert "failed" in text and "line 6:" in text


async def test_every_action_is_in_the_command_palette(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        titles = {command.title for command in app.get_system_commands(app.screen)}
        assert {
            "Next step",
            "Continue",
            "Toggle breakpoint",
            "Restart",
            "Stop",
            "Reveal or mask secrets",
            "Reload file",
            "Help",
            "Quit",
            "Theme",
        } <= titles
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"next step")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await ui.settle(pilot)
        assert app.stepper.state == PAUSED


async def test_help_and_quit(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.press(pilot, "question_mark")
        assert app.screen.__class__.__name__ == "HelpScreen"
        await ui.press(pilot, "escape")
        assert app.screen.__class__.__name__ != "HelpScreen"
        await ui.press(pilot, "n")
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


async def test_n_typed_ahead_steps_that_many_times(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n", "n", "n")  # faster than the steps run
        for _ in range(50):
            await ui.settle(pilot)
            if "paused before when line 17" in app.status_bar.text:
                break
        assert "paused before when line 17 of 'create pet'" in app.status_bar.text


async def test_tab_moves_focus_and_z_fills_the_screen_with_a_panel(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=(80, 24)) as pilot:
        await ui.settle(pilot)
        assert app.focused is app.file_tree
        await ui.press(pilot, "tab", "tab", "tab", "tab")
        assert app.focused is app.inspector
        await ui.press(pilot, "z")
        assert app.screen.maximized is app.inspector
        await ui.press(pilot, "n")  # keys still work while a panel fills the screen
        assert "paused before" in app.status_bar.text
        await ui.press(pilot, "z")
        assert app.screen.maximized is None


async def test_an_empty_file_runs_nothing(scenario_file, make_app, ui):
    path = scenario_file("# nothing here yet\n", "empty.scenario")
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await ui.press(pilot, "n")
        assert app.stepper.state == FINISHED
        assert "finished: no scenario to run" in app.status_bar.text
        assert ui.tree_lines(app)[0].endswith("empty.scenario")
        await ui.press(pilot, "c", "r", "s", "b")  # nothing to do: nothing breaks
        assert app.stepper.state == FINISHED
