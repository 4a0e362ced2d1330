"""The static analysis runs after the first paint, and after what waits for it (the first-paint
time the benchmark reads does not include the analysis)."""

from __future__ import annotations

from scenario_tui.app.shell import ScenarioApp


async def test_the_analysis_runs_after_the_first_paint(pets_file, make_app, ui, monkeypatch):
    painted_before: list[bool] = []
    analyse = ScenarioApp._analyse

    def spy(self: ScenarioApp) -> None:
        painted_before.append(self.first_paint_at is not None)
        analyse(self)

    monkeypatch.setattr(ScenarioApp, "_analyse", spy)
    app = make_app(pets_file)
    async with app.run_test(size=(100, 30)) as pilot:
        await ui.settle(pilot)
        assert painted_before == [True]
