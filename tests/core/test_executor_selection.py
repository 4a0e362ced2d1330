"""Execution(include=...): a caller's own choice of scenarios beside tags (the pytest plugin's
-k/-m). A scenario left out sends nothing, and a reader of what it extracts is told so."""

from __future__ import annotations

from scenario_core.language.parser import load_file
from scenario_core.run.events import RequestSent, ScenarioFinished
from scenario_core.run.executor import Execution
from scenario_core.run.options import run_options

TEXT = """\
parameters:
  baseUrl: "BASE"
  shareVariablesAcrossScenarios: true
@smoke
scenario: make
  when: GET /counter
  extract: n from $.value
@smoke
scenario: use
  when: GET /echo?n={{n}}
scenario: other
  when: GET /health
"""


def run(demo, write_scenario, selected, tags=None) -> list:
    node = load_file(write_scenario(TEXT.replace("BASE", demo.url)))
    return list(Execution([node], run_options(tags=tags), include=selected).events())


def finished(events) -> dict[str, ScenarioFinished]:
    return {e.scenario.name: e for e in events if isinstance(e, ScenarioFinished)}


def test_a_scenario_left_out_sends_nothing_and_its_reader_says_so(demo, write_scenario):
    events = run(demo, write_scenario, lambda scenario, feature: scenario.name != "make")
    results = finished(events)
    assert (results["make"].status, results["make"].message) == ("skipped", "not selected")
    assert results["other"].status == "passed"
    assert not any(isinstance(e, RequestSent) and "/counter" in e.url for e in events)
    assert results["use"].message.endswith("'n' is extracted by scenario 'make' (line 7), which was not selected.")


def test_tags_and_selection_both_apply(demo, write_scenario):
    events = run(demo, write_scenario, lambda scenario, feature: scenario.name != "use", tags={"smoke"})
    results = finished(events)
    assert results["make"].status == "passed"
    assert (results["use"].status, results["use"].message) == ("skipped", "not selected")
    assert results["other"].message == "not selected by tags (wanted @smoke)"
