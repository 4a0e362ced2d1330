"""The parameters panel: every key, its value, where it came from and what it overrides, and
the sharing of the highlighted feature or scenario."""

from __future__ import annotations

SIZE = (120, 40)


def flat(text: str) -> str:
    return " ".join(text.split())


async def test_a_feature_that_overrides_timeout(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "feature Pets")
        shown = flat(app.query_one("#parameters").text)
        assert "Parameters · feature 'Pets'" in shown
        assert "shares with feature 'Pets'" in shown
        assert "timeout = 10 ← feature 'Pets' line 15 (file 30, default 30)" in shown
        assert "shareVariablesAcrossScenarios = true ← feature 'Pets' line 14 (default false)" in shown
        assert "baseUrl = http://127.0.0.1:" in shown and "← command line (default (none))" in shown
        assert "openapi = (none) ← default" in shown

        # its scenarios run with the feature's values; a step shows its scenario's
        await ui.move_to(pilot, "scenario read pet")
        shown = flat(app.query_one("#parameters").text)
        assert "Parameters · scenario 'read pet'" in shown
        assert "timeout = 10 ← feature 'Pets' line 15" in shown

        # another feature and a standalone scenario keep the file's
        await ui.move_to(pilot, "feature Audit")
        shown = flat(app.query_one("#parameters").text)
        assert "isolated" in shown
        assert "timeout = 30 ← file line 3 (default 30)" in shown
        await ui.move_to(pilot, "scenario health")
        shown = flat(app.query_one("#parameters").text)
        assert "Parameters · scenario 'health'" in shown
        assert "timeout = 30 ← file line 3 (default 30)" in shown


async def test_the_file_node_and_a_step(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        shown = flat(app.query_one("#parameters").text)
        assert "Parameters · file pets.scenario" in shown
        assert "standalone scenarios: isolated" in shown
        await ui.move_to(pilot, "scenario create pet")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "when POST /pets")
        shown = flat(app.query_one("#parameters").text)
        assert "Parameters · scenario 'create pet' · when line 17" in shown
        assert "timeout = 10 ← feature 'Pets' line 15" in shown


async def test_command_line_values_show_as_command_line(pets_file, make_app, ui):
    app = make_app(pets_file, params=["timeout=5", "shareVariablesAcrossScenarios=true"])
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "feature Pets")
        shown = flat(app.query_one("#parameters").text)
        assert "timeout = 5 ← command line (feature 'Pets' 10, file 30, default 30)" in shown
        assert "← command line (default (none))" in shown  # --base-url
        # sharing set on the command line applies run-wide: the file store
        assert "shares file-wide" in shown


async def test_wide_terminals_put_each_key_on_one_line(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=(200, 50)) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "feature Pets")
        lines = app.query_one("#parameters").text.splitlines()
        timeout = ui.line_with(lines, "timeout")
        assert flat(timeout) == "timeout 10 feature 'Pets' line 15 (file 30, default 30)"


async def test_the_demo_s_own_base_url_is_labelled_demo_on_screen(pets_file, make_app, ui):
    # `scenario-tui demo` passes its API's URL as --base-url does; the screen says whose it is
    app = make_app(pets_file)
    app.display_options.base_url_source = "demo"
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "feature Pets")
        shown = flat(app.query_one("#parameters").text)
        assert "baseUrl = http://127.0.0.1:" in shown and "← demo (default (none))" in shown
        assert "command line" not in shown


def test_scenario_tui_demo_opens_the_tui_saying_demo(monkeypatch):
    import argparse

    from scenario_tui.app import launch as launching
    from scenario_tui.cli.open_tui import demo

    seen: dict = {}
    monkeypatch.setattr(launching, "launch", lambda *args, **options: seen.update(options) or 0)
    assert demo(argparse.Namespace(file=None, port=0)) == 0
    assert seen["base_url_source"] == "demo"
