"""After a run, the failed scenarios are expanded and the cursor is on the first failed step."""

from __future__ import annotations

SIZE = (120, 40)


async def test_after_a_run_the_first_failure_is_under_the_cursor(scenario_file, make_app, ui):
    text = "".join(
        f"scenario: s{i}\n  when: GET /health\n  then: status {404 if i in (7, 9) else 200}\n" for i in range(12)
    )
    app = make_app(scenario_file(text))
    async with app.run_test(size=SIZE) as pilot:
        await ui.press(pilot, "c")
        lines = ui.tree_lines(app)
        assert ui.line_with(lines, "scenario s7 ").lstrip().startswith("▾ ✗")
        assert ui.line_with(lines, "scenario s9 ").lstrip().startswith("▾ ✗")
        assert ui.line_with(lines, "scenario s8 ").lstrip().startswith("▸ ✓")
        cursor = app.file_tree.cursor_node.data
        assert cursor.kind == "step" and cursor.line == 3 * 7 + 3  # s7's `then: status 404`
        assert "Inspector · then line 24" in app.inspector.text
