"""Tree keys: → expands (then goes to the first child), ← collapses (then goes to the parent)."""

from __future__ import annotations

SIZE = (120, 40)


async def test_right_expands_then_enters_left_collapses_then_climbs(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario create pet")
        node = app.file_tree.cursor_node
        assert not node.is_expanded
        await ui.press(pilot, "right")
        assert node.is_expanded and app.file_tree.cursor_node is node
        ui.line_with(ui.tree_lines(app), "when POST /pets")
        await ui.press(pilot, "right")
        assert app.file_tree.cursor_node is node.children[0]
        await ui.press(pilot, "left")  # a closed child: to its parent
        assert app.file_tree.cursor_node is node
        await ui.press(pilot, "left")  # open: it closes
        assert not node.is_expanded and app.file_tree.cursor_node is node
        await ui.press(pilot, "left")  # closed: to the feature
        assert app.file_tree.cursor_node.data.kind == "feature"
        await ui.press(pilot, "left", "left")  # the feature closes, then the file
        assert app.file_tree.cursor_node.data.kind == "file"
        await ui.press(pilot, "left", "left")  # the file closes; its parent is hidden: stays
        assert app.file_tree.cursor_node.data.kind == "file"
