"""The TUI records OpenAPI coverage as `run --coverage` does, and `C` shows the same table
(Pilot, against the demo API and its description)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from scenario_tui.widgets.coverage_screen import NO_DESCRIPTION, NOT_RUN, CoverageScreen

PETSTORE = Path(__file__).resolve().parents[2] / "core" / "demo" / "petstore.yaml"
TEXT = f"""\
parameters:
  openapi: {PETSTORE}
scenario: list and read
  when: GET /health
  then: status 200
  when: ^listPets
    query:
      limit: 2
  then: status 200
  when: GET /pets/999
  then: status 404
"""


def _screen_text(app) -> str:
    screen = app.screen
    assert isinstance(screen, CoverageScreen)
    return screen.text


async def test_tui_coverage_key_shows_the_same_table_as_run_coverage(scenario_file, make_app, ui, demo):
    path = scenario_file(TEXT)
    headless = subprocess.run(
        [str(Path(sys.executable).with_name("scenario-tui")), "run", str(path), "--base-url", demo.url, "--coverage"],
        capture_output=True,
        text=True,
        timeout=60,
        env={k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR")},
    )
    assert headless.returncode == 0, headless.stdout + headless.stderr
    expected = "Coverage:" + headless.stdout.split("\nCoverage:", 1)[1].rstrip("\n")
    assert "✓ listPets (GET /pets)" in expected and "✗ deletePet (DELETE /pets/{id})" in expected

    demo.reset()
    app = make_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await ui.press(pilot, "C")
        assert _screen_text(app) == NOT_RUN
        await ui.press(pilot, "escape", "c")
        await ui.wait_for(pilot, lambda: app.stepper.finished is not None, "the run's end")
        await ui.press(pilot, "C")
        assert _screen_text(app) == expected
        assert "Coverage: 3 of " in _screen_text(app)
        await ui.press(pilot, "escape")
        assert not isinstance(app.screen, CoverageScreen)


async def test_tui_coverage_restart_starts_a_fresh_coverage(scenario_file, make_app, ui):
    app = make_app(scenario_file(TEXT))
    async with app.run_test(size=(120, 40)) as pilot:
        await ui.press(pilot, "c")
        await ui.wait_for(pilot, lambda: app.stepper.finished is not None, "the run's end")
        await ui.press(pilot, "r", "n", "n")  # a new run: its first request only so far
        await ui.press(pilot, "C")
        text = _screen_text(app)
        assert "Coverage: 1 of " in text and "✓ getHealth (GET /health)" in text
        assert "✗ listPets (GET /pets)" in text


async def test_tui_coverage_without_a_description_says_so(scenario_file, make_app, ui):
    app = make_app(scenario_file("scenario: s\n  when: GET /health\n  then: status 200\n"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ui.press(pilot, "c")
        await ui.wait_for(pilot, lambda: app.stepper.finished is not None, "the run's end")
        await ui.press(pilot, "C")
        assert _screen_text(app) == NO_DESCRIPTION
