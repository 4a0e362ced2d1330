"""Stepping: n pauses before each step, c runs to a breakpoint, s stops (cancelling a request in
flight), r restarts from a fresh state; network faults are failed steps, never a crash."""

from __future__ import annotations

import asyncio
import threading

from scenario_core.run.stepper import FINISHED, PAUSED, RUNNING, STEP
from tests.core.http_doubles import LoopbackServer

SIZE = (120, 40)


class Held(LoopbackServer):
    """Answers 200 to each request only once the test sets `release`; `arrived` is set when a
    request is in, so a test acts while it is certainly in flight however slow the machine."""

    def __init__(self) -> None:
        super().__init__()
        self.arrived = threading.Event()
        self.release = threading.Event()

    async def handle(self, reader, writer):
        await reader.readuntil(b"\r\n\r\n")
        self.arrived.set()
        while not self.release.is_set():
            await asyncio.sleep(0.01)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
        await writer.drain()


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
    with Held() as held:  # never released: only the stop ends the request
        path = scenario_file(f"""\
            scenario: slow
              when: GET {held.url}/held
              then: status 200
            scenario: never reached
              when: GET /health
            """)
        app = make_app(path)
        async with app.run_test(size=SIZE) as pilot:
            await ui.press(pilot, "n")  # paused before the held request
            await pilot.press("n")  # send it
            await ui.wait_for(pilot, held.arrived.is_set, "the held request in flight", 30)
            assert app.stepper.state == RUNNING
            await pilot.press("s")
            # Stopped by the key: the server would never answer (ui.press would wait for that).
            await ui.wait_for(pilot, lambda: app.stepper.state == FINISHED, "the stop", 30)
            await ui.settle(pilot)
            assert "stopped" in app.status_bar.text
            lines = ui.tree_lines(app)
            assert "✗" in ui.line_with(lines, "scenario slow")
            assert "○" in ui.line_with(lines, "scenario never reached")
            await ui.move_to(pilot, "/held")
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
    with Held() as held:
        path = scenario_file(f"""\
            scenario: slowish
              when: GET {held.url}/held
              when: GET /health
              when: GET /health
            """)
        app = make_app(path)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("c")
            await ui.wait_for(
                pilot,
                lambda: (
                    held.arrived.is_set()
                    and app.stepper.state == RUNNING
                    and app.stepper.current is not None
                    and app.stepper.current.step.line == 2
                ),
                "the held request in flight",
                30,
            )
            await pilot.press("n")
            await ui.wait_for(pilot, lambda: app.stepper.mode == STEP, "the pause request", 30)
            held.release.set()  # only now does the request in flight finish
            await ui.wait_for(pilot, lambda: app.stepper.state == PAUSED, "the pause", 30)
            await ui.settle(pilot)
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
