"""`g` on a step: continue until just before it. Refused, with the reason, on a node that never
runs and on a step the run is past."""

from __future__ import annotations

from scenario_core.run.stepper import PAUSED

SIZE = (120, 40)


def notes(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_g_runs_until_just_before_the_step(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario read pet")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "then $.name")
        await ui.press(pilot, "g")
        assert app.stepper.state == PAUSED
        assert "paused before then line 25 of 'read pet'" in app.status_bar.text
        assert "✓" in ui.line_with(ui.tree_lines(app), "scenario create pet")
        # once reached, c runs on to the end: g pauses once
        await ui.move_to(pilot, "scenario create pet")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "when POST /pets")
        await ui.press(pilot, "g")
        assert any("past line 17" in note for note in notes(app))
        assert "paused before then line 25" in app.status_bar.text  # nothing ran


async def test_g_on_a_node_that_never_runs_is_refused(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "parameters")
        await ui.press(pilot, "g")
        assert any("g runs to a step: this is a parameters" in note for note in notes(app))
        assert app.stepper.state == "idle"


async def test_g_on_a_step_of_a_scenario_not_selected(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario health")
        await ui.press(pilot, "b", "o")  # only 'health', paused entering it
        assert "paused at breakpoint" in app.status_bar.text
        await ui.move_to(pilot, "scenario create pet")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "when POST /pets")
        await ui.press(pilot, "g")
        assert any("Line 17 never runs in this run: its scenario is not selected" in note for note in notes(app))


async def test_g_before_the_run_on_a_step_that_tags_leave_out(pets_file, make_app, ui):
    from scenario_core.language.tag_expressions import parse_tag_expression

    app = make_app(pets_file, tags=parse_tag_expression("@pets"))
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario health")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "when GET /health")
        await ui.press(pilot, "g")
        assert any("Line 33 never runs in this run" in note for note in notes(app))
        assert app.stepper.state == "idle"
