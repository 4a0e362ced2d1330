"""Operation calls in the TUI, as a person sees them: the tree says what each `^op` calls, the
inspector which child went where, with the operation's summary; a schema failure shows its
problems. Against the demo API and its own descriptions (examples/openapi.scenario)."""

from __future__ import annotations

from pathlib import Path

from scenario_core.run.stepper import FINISHED

SIZE = (140, 42)
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "openapi.scenario"


async def test_operation_calls_show_their_method_path_and_placements(make_app, ui):
    app = make_app(EXAMPLE)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario read it by id")
        await ui.press(pilot, "space")
        lines = ui.tree_lines(app)
        assert "when ^getPetById → GET /pets/{id}" in ui.line_with(lines, "^getPetById")
        await ui.press(pilot, "c")
        assert app.stepper.state == FINISHED
        assert "3 passed" in app.status_bar.text
        await ui.move_to(pilot, "when ^getPetById")
        await pilot.pause()
        text = app.query_one("#inspector").text
        assert "^getPetById (GET /pets/{id}) — Get one pet" in text
        assert "id → path: " in text
        assert "/pets/1" in text


async def test_an_operation_call_as_written_before_it_runs(make_app, ui):
    app = make_app(EXAMPLE)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario read it by id")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "when ^getPetById")
        await pilot.pause()
        text = app.query_one("#inspector").text
        assert "request, as written" in text and "^getPetById" in text and "id: {{petId}}" in text


async def test_a_schema_failure_lists_each_offending_value(make_app, ui, scenario_file, tmp_path):
    petstore = EXAMPLE.parents[1] / "core" / "demo" / "petstore.yaml"
    wrong = tmp_path / "wrong.yaml"  # disagrees with the demo API: its health status is a string
    wrong.write_text(
        petstore.read_text(encoding="utf-8").replace(
            "status: {type: string, enum: [ok]}", "status: {type: integer}", 1
        ),
        encoding="utf-8",
    )
    path = scenario_file(f"""\
        parameters:
          openapi: {wrong}
        scenario: health
          when: ^getHealth
          then: schema
        """)
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "c")
        assert app.stepper.state == FINISHED
        await ui.move_to(pilot, "scenario health")
        # a run ends with the failed scenario expanded
        await ui.move_to(pilot, "then schema")
        await pilot.pause()
        text = app.query_one("#inspector").text
        assert "failed  against the response schema of getHealth (GET /health)" in text
        assert '$.status  expected integer, got "ok"' in text
