"""The inspector on BerryCrush's scenario-body lines: a scenario's `description:` is
shown with it, and a `finally:` block says when it runs."""

from __future__ import annotations

from scenario_core.language.parser import parse_text
from scenario_tui.app.node_summary import scenario_summary
from scenario_tui.widgets.display import Display
from scenario_tui.widgets.tree_items import TreeItem


def test_the_scenario_summary_shows_its_description():
    file = parse_text("scenario: s\n  description: Checks the health\n  when: GET /health\n", "t.scenario")
    (scenario,) = file.scenarios
    _, lines = scenario_summary(TreeItem("scenario", (0, 0), scenario, label="s"), None, None, Display())
    assert [line.plain for line in lines[:2]] == ["scenario 's'  line 1", "Checks the health"]


def test_the_inspector_says_when_a_finally_block_runs():
    from scenario_tui.widgets.inspector import Inspector

    file = parse_text("scenario: s\n  when: GET /a\n  finally: clean up\n    call ^deletePet\n", "t.scenario")
    inspector = Inspector(Display())
    inspector.show_step(file.scenarios[0].steps[-1], None)
    assert inspector.lines[0] == "finally clean up"
    assert "runs after the scenario's other steps, whether they passed or failed" in inspector.lines
