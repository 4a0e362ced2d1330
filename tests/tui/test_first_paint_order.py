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


async def test_the_collector_is_paused_while_the_app_starts_and_on_once_it_painted(
    pets_file, make_app, ui, monkeypatch
):
    """support.collector: no collection walks the trees being made until the first paint; after
    it (and after an app that ends before painting) the collector is on."""
    import gc

    enabled_while_loading: list[bool] = []
    load = ScenarioApp._load

    def spy(self: ScenarioApp, keep: bool) -> bool:
        enabled_while_loading.append(gc.isenabled())
        return load(self, keep)

    monkeypatch.setattr(ScenarioApp, "_load", spy)
    app = make_app(pets_file)
    async with app.run_test(size=(100, 30)) as pilot:
        await ui.settle(pilot)
        assert enabled_while_loading[0] is False
        assert app.first_paint_at is not None and gc.isenabled()
    assert gc.isenabled()
