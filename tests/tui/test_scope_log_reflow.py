"""The scope events log reflows after a resize, and summarises long lists of names (Enter lists
them whole in the value viewer)."""

from __future__ import annotations

from scenario_tui.widgets.value_viewer import ValueViewer

COUNT = 12
NAMES = [f"c{i}" for i in range(COUNT)]
BODY = "{" + ", ".join(f'"{n}": {i}' for i, n in enumerate(NAMES)) + "}"
EXTRACTS = "".join(f"    extract: {n} from $.json.{n}\n" for n in NAMES)

FILE = f"""\
feature: Many
  parameters:
    shareVariablesAcrossScenarios: true
  scenario: writes many
    when: POST /echo
      body: {BODY}
    then: status 200
{EXTRACTS}  scenario: carries them
    when: GET /health
    then: status 200
"""


def _widest(log) -> int:
    return max(strip.cell_length for strip in log.lines)


async def test_the_log_reflows_after_a_resize(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=(120, 40)) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "c")
        log = app.scope_log
        before = len(log.lines)
        assert _widest(log) == log.scrollable_content_region.width > 50
        await pilot.resize_terminal(80, 24)
        await ui.settle(pilot)
        width = log.scrollable_content_region.width
        assert _widest(log) <= width < 50  # drawn again at the new width: nothing clipped
        assert len(log.lines) > before  # the long lines wrapped onto more
        assert any("cleared shared variables: petId" in line for line in log.entries)
        await pilot.resize_terminal(120, 40)
        await ui.settle(pilot)
        assert _widest(log) == log.scrollable_content_region.width
        assert len(log.lines) == before


async def test_long_lists_are_summarised_and_enter_lists_them(scenario_file, make_app, ui):
    app = make_app(scenario_file(FILE))
    async with app.run_test(size=(120, 40)) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "c")
        log = app.scope_log
        carrying = ui.line_with(log.entries, "carries them")
        assert carrying.endswith(f"— carrying {COUNT} variables: c0, c1, c10, … — Enter lists them")
        cleared = ui.line_with(log.entries, "feature 'Many' ended")
        assert cleared.endswith(f"— cleared {COUNT} shared variables: c0, c1, c10, … — Enter lists them")
        log.focus()
        await ui.press(pilot, "enter")
        viewer = app.screen
        assert isinstance(viewer, ValueViewer)
        assert viewer.lines == [f"feature 'Many' cleared: {COUNT} names", ", ".join(sorted(NAMES))]
        await ui.press(pilot, "escape")
        assert not isinstance(app.screen, ValueViewer)


async def test_two_thousand_names_stay_one_short_line(scenario_file, make_app, ui):
    from scenario_core.run import events as ev

    app = make_app(scenario_file(FILE))
    async with app.run_test(size=(80, 24)) as pilot:
        await ui.settle(pilot)
        file = app.file
        names = tuple(f"c{i}" for i in range(2000))
        app.scope_log.record(ev.FeatureFinished(file=file, feature=file.features[0], store=None, cleared=names))
        app.scope_log.flush()
        line = app.scope_log.entries[-1]
        assert line == "■ feature 'Many' ended — cleared 2,000 shared variables: c0, c1, c2, … — Enter lists them"
