"""SVG snapshot of a suite: three files, one root each, one of them invalid (see test_snapshots.py)."""

from __future__ import annotations

from scenario_core.parameters.resolution import RunOverrides
from scenario_tui.app.shell import ScenarioApp

WIDE = (120, 40)

FILES = {
    "a_health.scenario": 'scenario: health\n  when: GET /health\n  then: $.status == "ok"\n',
    "b_pets.scenario": "@pets\nfeature: Pets\n  @smoke\n  scenario: list pets\n    when: GET /pets\n"
    "    then: status 200\n",
    # a structural error: `then: status banana` would only end its scenario (docs/spec/steps.md#errors-local-to-one-scenario)
    "c_broken.scenario": "scenario: broken\n  when: GET /health\n  then status 200\n",
}


def test_suite_tree(snap_compare, demo, tmp_path, monkeypatch, ui):
    for name, text in FILES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    app = ScenarioApp(list(FILES), RunOverrides.from_cli([], demo.url), {}, deterministic=True, watch=False)

    async def run_before(pilot) -> None:
        await ui.settle(pilot)
        await ui.press(pilot, "c")

    assert snap_compare(app, terminal_size=WIDE, run_before=run_before)
