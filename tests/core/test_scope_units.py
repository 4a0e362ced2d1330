"""The units of a scope-parallel run (docs/spec/scopes.md#scope-parallel-runs): what `run --jobs N
--dist scope` may run at once."""

from __future__ import annotations

from scenario_core.language.parser import parse_text
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.units import scope_units

ISOLATED_AND_SHARING = """\
scenario: alone
  when: GET /a

feature: Pets
  parameters:
    shareVariablesAcrossScenarios: true
  scenario: create
    when: GET /b
  scenario: read
    when: GET /c

feature: Lookups
  scenario: one
    when: GET /d
  scenario: two
    when: GET /e

feature: Empty
"""


def units_of(text: str) -> list[tuple[str, bool, bool, list[str], list[str]]]:
    file = parse_text(text, "f.scenario")
    names = {id(f): f.name for f in file.features}
    return [
        (
            unit.label,
            unit.file_opens,
            unit.file_closes,
            sorted(names[i] for i in unit.feature_opens),
            sorted(names[i] for i in unit.feature_closes),
        )
        for unit in scope_units([file], RunOverrides())
    ]


def test_scope_parallel_runs_isolated_scenarios_alone_sharing_features_whole():
    assert units_of(ISOLATED_AND_SHARING) == [
        ("f.scenario › alone", True, False, [], []),
        ("f.scenario › Pets", False, False, ["Pets"], ["Pets"]),
        ("f.scenario › Lookups › one", False, False, ["Lookups"], []),
        ("f.scenario › Lookups › two", False, False, [], ["Lookups"]),
        ("f.scenario › Empty", False, True, ["Empty"], ["Empty"]),
    ]


def test_scope_parallel_runs_a_file_with_file_level_sharing_whole():
    text = "parameters:\n  shareVariablesAcrossScenarios: true\n\n" + ISOLATED_AND_SHARING
    assert units_of(text) == [("f.scenario", True, True, ["Empty", "Lookups", "Pets"], ["Empty", "Lookups", "Pets"])]


def test_scope_parallel_runs_a_feature_that_uses_the_file_store_keeps_the_file_whole():
    # the file shares, and a feature that does not say otherwise uses the file store with the
    # standalone scenarios beside it
    text = "parameters:\n  shareVariablesAcrossScenarios: true\n\nfeature: F\n  scenario: s\n    when: GET /a\n"
    assert [u[0] for u in units_of(text)] == ["f.scenario"]


def test_scope_parallel_runs_a_file_with_a_webhook_whole():
    webhook = (
        "scenario: alone\n  given a callback server\n    webhook: events\n      hook: created\n      port: 0\n"
        "  when: POST {{events.created}}\n"
    )
    text = ISOLATED_AND_SHARING.replace("scenario: alone\n  when: GET /a\n", webhook)
    assert [u[0] for u in units_of(text)] == ["f.scenario"]


def test_scope_parallel_runs_start_the_longest_unit_first_and_keep_source_order_among_equals():
    from scenario_core.run.units import schedule

    file = parse_text(ISOLATED_AND_SHARING, "f.scenario")
    units = scope_units([file], RunOverrides())
    assert [units[i].label for i in schedule(units)] == [
        "f.scenario › Pets",  # two scenarios, one after the other: started first
        "f.scenario › alone",
        "f.scenario › Lookups › one",
        "f.scenario › Lookups › two",
        "f.scenario › Empty",
    ]
