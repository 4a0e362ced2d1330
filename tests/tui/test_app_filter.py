"""`/` filters the tree by name or tag; Escape clears; tags show after names."""

from __future__ import annotations

SIZE = (120, 40)


async def test_slash_filters_by_name_and_escape_clears(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "slash")
        assert app.focused.id == "tree-filter"
        await pilot.press(*"read")
        await ui.settle(pilot)
        lines = ui.tree_lines(app)
        ui.line_with(lines, "scenario read pet")
        ui.line_with(lines, "feature Pets")  # its feature stays, as a path to it
        assert not any("create pet" in line or "health" in line or "Audit" in line for line in lines), lines
        assert not any("background" in line or "parameters" in line for line in lines)
        assert "/read: 1 scenario" in app.file_tree.border_title
        await ui.press(pilot, "enter")  # back to the tree, the filter stays
        assert app.focused is app.file_tree
        assert not any("health" in line for line in ui.tree_lines(app))
        await ui.press(pilot, "slash", "escape")  # Escape clears
        lines = ui.tree_lines(app)
        ui.line_with(lines, "scenario health")
        ui.line_with(lines, "scenario create pet")
        assert app.focused is app.file_tree
        assert app.file_tree.border_title == "pets.scenario"


async def test_filter_by_tag_keeps_a_tagged_features_scenarios(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "slash")
        await pilot.press(*"@pets")
        await ui.settle(pilot)
        lines = ui.tree_lines(app)
        ui.line_with(lines, "scenario create pet")  # under feature Pets @pets
        ui.line_with(lines, "scenario read pet")
        assert not any("health" in line or "no shared pet" in line for line in lines), lines


async def test_filter_keeps_statuses_and_a_run_going(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.press(pilot, "c")
        await ui.press(pilot, "slash")
        await pilot.press(*"health")
        await ui.settle(pilot)
        await ui.press(pilot, "escape")
        lines = ui.tree_lines(app)
        assert "✓" in ui.line_with(lines, "scenario health")
        assert "✓" in ui.line_with(lines, "scenario create pet")


async def test_tags_show_dim_after_the_name(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        node = next(line.node for line in app.file_tree._tree_lines if line.node.data.kind == "feature")
        label = app.file_tree.label_for(node)
        start = label.plain.index("@pets")
        styles = [str(span.style) for span in label.spans if span.start <= start < span.end]
        assert any("dim" in style for style in styles), styles


async def test_the_inspector_follows_the_node_the_filter_leaves_under_the_cursor(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        assert "Inspector · file" in app.inspector.text
        await ui.press(pilot, "slash")
        await pilot.press(*"health")
        await ui.settle(pilot)
        await ui.press(pilot, "enter", "down")
        assert "scenario 'health'" in app.inspector.text
        await ui.press(pilot, "slash", "escape")
        assert "scenario 'health'" in app.inspector.text  # the cursor stays on it


async def test_escape_in_the_filtered_tree_clears_the_filter(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "slash")
        await pilot.press(*"read")
        await ui.press(pilot, "enter")  # back to the tree, the filter kept
        assert app.focused is app.file_tree
        assert not any("health" in line for line in ui.tree_lines(app))
        await ui.press(pilot, "escape")  # in the tree: the filter goes too
        ui.line_with(ui.tree_lines(app), "scenario health")
        assert app.file_tree.border_title == "pets.scenario" and not app.file_tree.filter
        assert app.focused is app.file_tree
