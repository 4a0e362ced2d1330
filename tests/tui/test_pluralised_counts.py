"""Counts are pluralised correctly everywhere: `1 feature · 1 scenario · 1 fragment`, never
`1 features`; `2 fragments`, `0 features`."""

from __future__ import annotations

from scenario_core.support.plural import counted

ONE_OF_EACH = """\
fragment: healthy
  then: status 200

feature: Pets
  scenario: up
    when: GET /health
    include: healthy
"""


def test_counted_pluralises_unless_one():
    assert counted(1, "feature") == "1 feature"
    assert counted(0, "feature") == "0 features"
    assert counted(2, "fragment") == "2 fragments"
    assert counted(2000, "name", thousands=True) == "2,000 names"
    assert counted(3, "match", "matches") == "3 matches"


async def test_the_inspector_says_1_feature_1_scenario_1_fragment(scenario_file, make_app, ui):
    app = make_app(scenario_file(ONE_OF_EACH))
    async with app.run_test(size=(80, 24)) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "test.scenario")
        assert "1 feature · 1 scenario · 1 fragment" in app.inspector.text
        await ui.move_to(pilot, "scenario up")
        assert "2 steps of its own" in app.inspector.text
