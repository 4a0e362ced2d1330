"""The tree at any width: a label too long for the panel ends with `…` before its line number,
which is never cut; the tree takes a share of the screen's width and `<` / `>` change it."""

from __future__ import annotations

from rich.text import Text

from scenario_tui.app.layout import MIN_PANELS, MIN_TREE, tree_width
from scenario_tui.widgets.tree_labels import fit_label

LONG = """\
feature: Inventory
  scenario: the file store still has the whole inventory after the pets were renamed from this feature
    when: GET /health
    then: status 200
"""


def shown_line(app, needle: str) -> str:
    """The tree's line with `needle` in its label, exactly as the screen shows it."""
    tree = app.file_tree
    for y, line in enumerate(tree._tree_lines):
        if needle in tree.label_for(line.node).plain:
            return tree.render_line(y - tree.scroll_offset.y).text
    raise AssertionError(f"no line with {needle!r}")


def test_fit_label_ends_with_an_ellipsis_and_keeps_the_line_number():
    label = Text("◇ scenario renamed from this feature  :61")
    assert fit_label(label, 22, 61).plain == "◇ scenario renam…  :61"
    assert fit_label(label, 22, 61).cell_len == 22
    assert fit_label(label, 60, 61) is label  # fits: unchanged
    assert fit_label(Text("▣ a-very-long-file-name.scenario"), 10, None).plain == "▣ a-very-…"


async def test_a_cut_label_ends_with_an_ellipsis_and_keeps_its_line_number(scenario_file, make_app, ui):
    path = scenario_file(LONG)
    for size in ((80, 24), (120, 40)):
        app = make_app(path)  # (writing the file again here would reload the running app)
        async with app.run_test(size=size) as pilot:
            await ui.settle(pilot)
            line = shown_line(app, "the whole inventory").rstrip()
            assert line.endswith("…  :2"), line
            assert "scenario the file" in line


async def test_the_tree_grows_with_the_terminal(pets_file, make_app, ui):
    widths = []
    for size in ((80, 24), (120, 40), (200, 50)):
        app = make_app(pets_file)
        async with app.run_test(size=size) as pilot:
            await ui.settle(pilot)
            widths.append(app.query_one("#left").size.width)
            await pilot.resize_terminal(100, 30)
            await ui.settle(pilot)
            assert app.query_one("#left").size.width == tree_width(100, app.tree_split.share)
    assert widths == [tree_width(80, 0.48), tree_width(120, 0.48), tree_width(200, 0.48)]
    assert widths[0] < widths[1] < widths[2]
    assert widths[2] >= 90  # proportional: no fixed width at 200 columns


async def test_greater_than_widens_the_tree_and_less_than_narrows_it(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=(120, 40)) as pilot:
        await ui.settle(pilot)
        left = app.query_one("#left")
        first = left.size.width
        await ui.press(pilot, "greater_than_sign")
        assert left.size.width > first
        await ui.press(pilot, *["less_than_sign"] * 20)  # stops at its bound, never below it
        assert left.size.width >= MIN_TREE
        assert left.size.width < first
        await ui.press(pilot, *["greater_than_sign"] * 20)
        assert 120 - left.size.width >= MIN_PANELS  # the panels on the right keep room
