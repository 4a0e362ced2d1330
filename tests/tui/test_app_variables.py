"""Live variables by layer, scope events (the feature-boundary reset above all), secrets."""

from __future__ import annotations

from scenario_core.report.masking import MASK

SIZE = (120, 40)


async def test_variables_after_an_extract(pets_file, make_app, ui):
    app = make_app(pets_file, variables={"owner": "ann"})
    async with app.run_test(size=SIZE) as pilot:
        await ui.press(pilot, *"nnnn")  # paused before POST /pets: the background has run
        variables = app.query_one("#variables")
        text = variables.text
        assert "Variables · scenario 'create pet'" in text
        lines = text.splitlines()
        token = ui.line_with(lines, "token")
        assert token.startswith("* token"), "the last step extracted it"
        assert MASK in token and "string" in token and "line 9 (background)" in token
        assert "shared: feature 'Pets'  (empty)" in lines  # background values never go to a store
        assert ui.line_with(lines, "owner").split() == ["owner", '"ann"', "string"]

        await ui.press(pilot, "n", "n", "n")  # POST /pets, status 201, extract petId
        text = app.query_one("#variables").text
        lines = text.splitlines()
        # paused before the next scenario, which carries petId from the feature's store
        assert "Variables · scenario 'read pet'" in text
        assert lines.index("shared: feature 'Pets'") < lines.index(ui.line_with(lines, "petId"))
        assert ui.line_with(lines, "petId").split() == ["*", "petId", "1", "number", "line", "22"]
        assert "this scenario  (empty)" in lines


async def test_scope_events_and_the_feature_boundary(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.press(pilot, "c")
        entries = app.query_one("#scope").entries
        assert "+ feature 'Pets' store created (empty)" in entries
        assert "▶ scenario 'create pet' started sharing feature 'Pets' store — fresh" in entries
        assert "⇢ petId = 1  into scenario, feature 'Pets'  (line 22)" in entries
        assert "▶ scenario 'read pet' started sharing feature 'Pets' store — carrying petId" in entries
        assert "■ feature 'Pets' ended — cleared shared variables: petId" in entries
        assert "▶ scenario 'no shared pet' started isolated" in entries
        assert entries.index("■ feature 'Pets' ended — cleared shared variables: petId") < entries.index(
            "▶ scenario 'no shared pet' started isolated"
        )
        assert entries[-1] == "■ run finished: 3 passed, 1 failed, 0 skipped"


async def test_pausing_after_a_feature_boundary_shows_the_reset(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario no shared pet")
        await ui.press(pilot, "b", "c")
        assert "paused at breakpoint, line 6 of 'no shared pet'" in app.status_bar.text
        assert "feature 'Pets' ended — cleared shared variables: petId" in app.status_bar.text
        entries = app.query_one("#scope").entries
        assert entries[-2:] == [
            "■ feature 'Pets' ended — cleared shared variables: petId",
            "▶ scenario 'no shared pet' started isolated",
        ]
        text = app.query_one("#variables").text
        assert "shared: none (isolated)" in text and "petId" not in text
        await ui.press(pilot, "c")
        assert "cleared" not in app.status_bar.text  # it stays for one scenario


async def test_an_overwrite_shows_old_and_new(scenario_file, make_app, ui):
    path = scenario_file("""\
        parameters:
          shareVariablesAcrossScenarios: true
        scenario: first
          when: GET /health
          extract: state from $.status
          when: GET /echo?status=late
          extract: state from $.query.status
        """)
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await ui.press(pilot, "c")
        entries = app.query_one("#scope").entries
        assert '✎ state overwritten in scenario: "ok" → "late"' in entries
        assert '✎ state overwritten in file store: "ok" → "late"' in entries
        assert "■ file 'test.scenario' ended — cleared shared variables: state" in entries


async def test_an_undefined_variable_is_explained_in_the_inspector(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.press(pilot, "c")
        await ui.move_to(pilot, "scenario no shared pet")
        inspector = app.query_one("#inspector").text
        assert "failed" in inspector and "line 29: undefined variable 'petId'" in inspector
        # the failed scenario is expanded by the end of the run
        await ui.move_to(pilot, "when GET /pets/{{petId}}  :29")
        inspector = app.query_one("#inspector").text
        assert "Inspector · when line 29" in inspector
        assert "undefined variable 'petId' in GET /pets/{{petId}}" in inspector
        assert "'petId' is extracted by scenario 'create pet' (line 22)" in inspector  # where, and why not here


async def test_secrets_are_masked_until_revealed(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.press(pilot, *"nnnnn")  # POST /pets has run with the token
        tree = app.file_tree
        await ui.move_to(pilot, "when POST /pets")
        inspector = app.query_one("#inspector").text
        assert f"Authorization: Bearer {MASK}" in inspector
        assert f'"token": "{MASK}"' not in inspector  # the login response is another step's
        token = (
            app.stepper.scenario.snapshot.scenario.get("token")
            or app.records[tree.cursor_node.data.key].before.scenario["token"]
        )
        assert token not in inspector
        assert token not in app.query_one("#variables").text

        await ui.press(pilot, "v")
        assert f"Authorization: Bearer {token}" in app.query_one("#inspector").text
        assert token in app.query_one("#variables").text
        assert app.query_one("#variables").border_subtitle == "secrets shown"
        await ui.press(pilot, "v")
        assert token not in app.query_one("#inspector").text


async def test_the_inspector_shows_request_response_and_extract(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.press(pilot, *"nnnnnnn")
        await ui.move_to(pilot, "when POST /pets")
        lines = app.query_one("#inspector").text.splitlines()
        assert ui.line_with(lines, "POST http://127.0.0.1:").endswith("/pets")
        ui.line_with(lines, "Content-Type: application/json")
        assert "201 Created" in ui.line_with(lines, "201")
        assert '  "name": "Rex",' in lines
        await ui.move_to(pilot, "extract petId")
        text = app.query_one("#inspector").text
        assert "petId from $.id" in text
        assert "matched 1  into scenario, feature 'Pets'" in text
        assert "── read from the response" in text


async def test_a_background_step_shows_its_latest_run(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.press(pilot, "c")
        await ui.move_to(pilot, "↺ background  :5")  # the definition, at the top of the file
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "extract token from $.token  :9")
        text = app.query_one("#inspector").text
        assert "scenario 'health'" in text  # the last scenario it ran for
        assert "passed" in text and "into scenario" in text
        assert MASK in text


async def test_after_the_run_a_cleared_store_shows_cleared_as_the_log_says(scenario_file, make_app, ui):
    path = scenario_file(
        "parameters:\n  shareVariablesAcrossScenarios: true\n\nscenario: first\n  when: GET /counter\n"
        "  extract: count from $.value\n\nscenario: second\n  when: GET /health\n"
    )
    app = make_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "c")
        assert app.stepper.finished is not None
        assert any("ended — cleared shared variables: count" in entry for entry in app.scope_log.entries)
        shown = app.variables_panel.text
        assert "shared: file  (cleared when the file ended: count)" in shown
        assert not any(row.name == "count" for row in app.variables_panel.rows)
