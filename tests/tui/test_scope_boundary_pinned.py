"""At 80×24 the Scope events log has three lines: the feature boundary that cleared `petId`
scrolled away within a step. The last boundary that cleared a store stays on the log's top
lines once later events scroll it out of view; scrolled back above it, the log is as written."""

from __future__ import annotations

import html
import re

from scenario_core.run.stepper import PAUSED

SMALL = (80, 24)


def screen_lines(app) -> list[str]:
    """The screen's rows as text, from its SVG (a row's text is split where its style changes)."""
    rows: dict[int, str] = {}
    for row, text in re.findall(r'clip-path="url\(#terminal-\d+-line-(\d+)\)">([^<]*)</text>', app.export_screenshot()):
        rows[int(row)] = rows.get(int(row), "") + html.unescape(text).replace("\xa0", " ")
    return [rows[row] for row in sorted(rows)]


async def test_the_last_boundary_stays_on_top_while_later_events_scroll_by(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SMALL) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario no shared pet")
        await ui.press(pilot, "b", "c")  # just after feature 'Pets' ended
        log = app.scope_log
        assert any(e.startswith("■ feature 'Pets' ended — cleared shared variables: petId") for e in log.entries)
        await ui.press(pilot, "n", "n", "n", "n")  # the background's login and its extract: more events
        assert app.stepper.state == PAUSED
        assert log.scroll_offset.y > log.pinned[0] >= 0  # the boundary is above the view ...
        assert log.pinned_text.startswith("■ feature 'Pets' ended — cleared")  # ... and kept on top
        assert any("feature 'Pets' ended — cleared" in line for line in screen_lines(app))  # on screen
        log.scroll_home(animate=False)  # scrolled back above it: nothing pinned
        await ui.settle(pilot)
        assert log.pinned_text == ""
