"""Fixtures for the TUI's pilot and snapshot tests: a pets file that exercises every scope rule,
an app factory pointed at the demo API, and helpers that press keys and wait for the run."""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import pytest

from scenario_core.parameters.resolution import RunOverrides
from scenario_tui.app.shell import ScenarioApp

# Line numbers matter: tests name them.
PETS = """\
# pets: login, create, read, then an isolated feature and a standalone scenario
parameters:
  timeout: 30

background:
  when: POST /login
    body: {"username": "demo", "password": "demo"}
  then: status 200
  extract: token from $.token

@pets
feature: Pets
  parameters:
    shareVariablesAcrossScenarios: true
    timeout: 10
  scenario: create pet
    when: POST /pets
      headers:
        Authorization: Bearer {{token}}
      body: {"name": "Rex", "tag": "dog"}
    then: status 201
    extract: petId from $.id
  scenario: read pet
    when: GET /pets/{{petId}}
    then: $.name == "Rex"

feature: Audit
  scenario: no shared pet
    when: GET /pets/{{petId}}
    then: status 200

scenario: health
  when: GET /health
  then: $.status == "ok"
"""

LINES = {
    "feature Pets": 12,
    "timeout 10": 15,
    "create pet": 16,
    "POST /pets": 17,
    "extract petId": 22,
    "read pet": 23,
    "GET petId": 24,
    "feature Audit": 27,
    "no shared pet": 28,
    "health": 32,
    "extract token": 9,
    "timeout 30": 3,
}


@pytest.fixture
def pets_file(tmp_path: Path) -> Path:
    path = tmp_path / "pets.scenario"
    path.write_text(PETS, encoding="utf-8")
    return path


@pytest.fixture
def scenario_file(tmp_path: Path):
    """Write dedented scenario text to tmp_path/NAME."""

    def write(text: str, name: str = "test.scenario") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return write


@pytest.fixture
def make_app(demo):
    """An app on PATH with --base-url pointing at the demo API (unless base_url=False)."""

    def make(path, *, base_url: bool | str = True, params=(), variables=None, **options) -> ScenarioApp:
        url = demo.url if base_url is True else (base_url or None)
        overrides = RunOverrides.from_cli(list(params), url)
        return ScenarioApp(str(path), overrides, variables or {}, **options)

    return make


@pytest.fixture
def snapshot_app(demo, pets_file, monkeypatch):
    """The app of the SVG snapshots: on pets.scenario (or NAME beside it) by a relative path, the
    demo API as its base URL, deterministic (no timings, ports as PORT), no file watching."""
    monkeypatch.chdir(pets_file.parent)

    def make(name: str = "pets.scenario") -> ScenarioApp:
        return ScenarioApp(name, RunOverrides.from_cli([], demo.url), {}, deterministic=True, watch=False)

    return make


class UI:
    """Helpers for pilot tests (a fixture: with --import-mode=importlib, tests cannot import conftest)."""

    @staticmethod
    async def settle(pilot) -> None:
        """Let messages, workers (the run) and timers settle."""
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.02)

    @staticmethod
    async def press(pilot, *keys: str) -> None:
        """Press each key and wait for what it started to finish (a step, a run, a reload)."""
        for key in keys:
            await pilot.press(key)
            await UI.settle(pilot)

    @staticmethod
    async def wait_for(pilot, condition, what: str, seconds: float = 30) -> None:
        """Let the app run until `condition()` holds, however loaded the machine: `seconds` only
        turns a condition that never comes into a failure instead of a hang, so it is generous."""
        deadline = time.perf_counter() + seconds
        while not condition():
            assert time.perf_counter() < deadline, f"{what} did not happen within {seconds} s"
            await pilot.pause(0.01)

    @staticmethod
    def tree_lines(app) -> list[str]:
        return app.file_tree.rendered_lines()

    @staticmethod
    def line_with(lines: list[str], needle: str) -> str:
        found = [line for line in lines if needle in line]
        assert found, f"no line with {needle!r} in:\n" + "\n".join(lines)
        return found[0]

    @staticmethod
    async def move_to(pilot, text: str) -> None:
        """Put the tree's cursor on the first visible node whose label contains `text`."""
        tree = pilot.app.file_tree
        for line in tree._tree_lines:
            if text in tree.label_for(line.node).plain:
                tree.move_cursor(line.node)
                await pilot.pause()
                return
        raise AssertionError(f"no visible node with {text!r}:\n" + "\n".join(tree.rendered_lines()))


@pytest.fixture
def ui() -> type[UI]:
    return UI


async def screen_settled(pilot, seconds: float = 30) -> None:
    """Wait until the screen stops changing: workers done and three looks in a row the same. A
    snapshot taken on a busy machine otherwise catches a timer or a deferred refresh (a scroll,
    the static analysis's marks) that has not fired yet; the wait is longer when the machine
    is slower, never shorter than the state needs."""
    deadline = time.perf_counter() + seconds
    # A text cursor blinks every 0.5 s: on a loaded machine the looks can all fall on one side
    # of a blink, so the screenshot would catch the cursor shown or hidden by chance. Held shown.
    for widget in pilot.app.screen.query("Input, TextArea"):
        widget.cursor_blink = False
    looks: list[str] = []
    while len(looks) < 3 or len(set(looks[-3:])) > 1:
        assert time.perf_counter() < deadline, f"the screen kept changing for {seconds} s"
        await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.03)
        looks.append(pilot.app.export_screenshot())


@pytest.fixture
def snap_compare(snap_compare):
    """pytest-textual-snapshot's snap_compare, its screenshot taken once the screen has settled."""

    def compare(app, press=(), terminal_size=(80, 24), run_before=None):
        async def settled_first(pilot) -> None:
            if run_before is not None:
                result = run_before(pilot)
                if result is not None:
                    await result
            await screen_settled(pilot)

        return snap_compare(app, press=press, terminal_size=terminal_size, run_before=settled_first)

    return compare
