"""The tree: source order, lazy children, Text labels, live run status per node."""

from __future__ import annotations

SIZE = (120, 40)


async def test_small_file_opens_expanded_to_its_scenarios(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        lines = ui.tree_lines(app)
        # the file, then its parameters, background, features and scenarios in source order
        assert lines[0].endswith("pets.scenario")
        order = [
            "⚙ parameters  :2",
            "↺ background  :5",
            "◆ feature Pets @pets  :12",
            "◇ scenario create pet  :16",
            "◇ scenario read pet  :23",
            "◆ feature Audit  :27",
            "◇ scenario no shared pet  :28",
            "◇ scenario health  :32",
        ]
        positions = [lines.index(ui.line_with(lines, text)) for text in order]
        assert positions == sorted(positions)
        assert not any("POST /pets" in line for line in lines), "scenarios stay collapsed"
        assert app.file_tree.cursor_node.data.kind == "file"  # the file node is highlighted
        assert "○" in ui.line_with(lines, "scenario create pet")  # pending


async def test_statuses_after_a_run(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.press(pilot, "c")
        lines = ui.tree_lines(app)
        assert "✓" in ui.line_with(lines, "scenario create pet")
        assert "✓" in ui.line_with(lines, "scenario read pet")
        assert "✓" in ui.line_with(lines, "feature Pets")
        assert "✗" in ui.line_with(lines, "scenario no shared pet")  # petId is not visible there
        assert "✗" in ui.line_with(lines, "feature Audit")
        assert "✓" in ui.line_with(lines, "scenario health")
        assert "✗" in lines[0]  # the file: a scenario failed
        assert "finished: failed" in app.status_bar.text
        assert "3 passed · 1 failed · 0 skipped" in app.status_bar.text

        # the failed scenario's steps: the request failed, the assertion after it was skipped
        await ui.move_to(pilot, "scenario no shared pet")
        # a run ends with the failed scenarios expanded
        lines = ui.tree_lines(app)
        assert "✗" in ui.line_with(lines, "when GET /pets/{{petId}}  :29")
        assert "–" in ui.line_with(lines, "then status 200  :30")
        assert "✓" in ui.line_with(lines, "file background")  # the background it ran first


async def test_labels_are_text_not_markup(scenario_file, make_app, ui):
    path = scenario_file("""\
        scenario: list [bold]all[/bold] pets [x]
          when: GET /pets?tag=[dog]
          then: status 200
        """)
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario list")
        await ui.press(pilot, "space")
        lines = ui.tree_lines(app)
        ui.line_with(lines, "scenario list [bold]all[/bold] pets [x]")
        ui.line_with(lines, "when GET /pets?tag=[dog]")


async def test_big_file_builds_children_on_demand(scenario_file, make_app, ui):
    text = "".join(f"scenario: s{i}\n  when: GET /health\n  then: status 200\n\n" for i in range(3000))
    path = scenario_file(text, "big.scenario")
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        tree = app.file_tree
        assert len(tree._tree_lines) == 3001  # the file and its scenarios, no step yet
        assert len(tree._tree_nodes) == 3002  # and the hidden root of the suite
        await ui.move_to(pilot, "scenario s2  ")
        await ui.press(pilot, "space")
        lines = ui.tree_lines(app)
        ui.line_with(lines, "when GET /health  :10")
        assert len(tree._tree_nodes) == 3004  # only that scenario's steps were built


async def test_the_cursor_follows_the_step_about_to_run(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.press(pilot, "n")
        cursor = app.file_tree.label_for(app.file_tree.cursor_node).plain
        assert cursor.startswith("▶ when POST /login  :6"), cursor  # the file background, first
        assert "paused before when line 6 of 'create pet'" in app.status_bar.text
        await ui.press(pilot, "n", "n", "n")
        cursor = app.file_tree.label_for(app.file_tree.cursor_node).plain
        assert cursor.startswith("▶ when POST /pets  :17"), cursor
        lines = ui.tree_lines(app)
        assert "✓" in ui.line_with(lines, "extract token from $.token")
        assert "○" in ui.line_with(lines, "then status 201")
