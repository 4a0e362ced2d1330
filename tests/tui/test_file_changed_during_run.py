"""Saving the file while a run is active or paused keeps the run and says that R reloads it; when
nothing runs, a save reloads as before; R always reloads (restarting the run)."""

from __future__ import annotations

import os

from scenario_core.run.stepper import IDLE, PAUSED

SIZE = (120, 40)


def touch(path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    stat = os.stat(path)
    os.utime(path, (stat.st_atime, stat.st_mtime + 2))  # a new mtime, however coarse the clock


async def test_a_save_while_paused_keeps_the_run(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.press(pilot, "n", "n")
        assert app.stepper.state == PAUSED
        touch(pets_file, pets_file.read_text() + "\nscenario: added\n  when: GET /health\n")
        await ui.wait_for(pilot, lambda: "file changed" in app.status_bar.text, "the notice")
        await pilot.pause(1.2)  # more polls: still kept
        assert app.stepper.state == PAUSED
        assert "file changed — R reloads (restarts the run)" in app.status_bar.text
        assert "scenario added" not in "\n".join(ui.tree_lines(app))
        await ui.press(pilot, "n")  # the run goes on, the notice stays
        assert "file changed" in app.status_bar.text
        await ui.press(pilot, "R")
        assert app.stepper.state == IDLE
        assert "file changed" not in app.status_bar.text
        assert "scenario added" in "\n".join(ui.tree_lines(app))


async def test_a_save_while_idle_reloads(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        touch(pets_file, pets_file.read_text() + "\nscenario: added\n  when: GET /health\n")
        await ui.wait_for(pilot, lambda: "scenario added" in "\n".join(ui.tree_lines(app)), "the reload")
        assert "file changed" not in app.status_bar.text
