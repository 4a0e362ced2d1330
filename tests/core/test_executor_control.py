"""Driving an execution: pull-based pausing, stop() mid-request, cancellation, tag selection and
the shape of the stream (one ScenarioFinished per scenario, counts in RunFinished)."""

from __future__ import annotations

import threading
import time

import httpx
import pytest

from scenario_core.language.parser import load_file
from scenario_core.run.events import (
    FeatureFinished,
    FileFinished,
    RequestSent,
    RunFinished,
    RunStarted,
    ScenarioFinished,
    ScenarioStarted,
    ScopeCleared,
    StepFinished,
    StepStarted,
)
from scenario_core.run.executor import Execution, run_to_completion
from scenario_core.run.plan import plan_scenario


def load(demo, write_scenario, text):
    return load_file(write_scenario(text.replace("BASE", demo.url)))


def of(events, cls):
    return [e for e in events if isinstance(e, cls)]


SLOW = """\
parameters:
  baseUrl: "BASE"
  shareVariablesAcrossScenarios: true
feature: F
  scenario: waits
    when: GET /counter
    extract: n from $.value
    when: GET /slow?ms=60000
    then: status 200
  scenario: never reached
    when: GET /health
scenario: never reached either
  when: GET /health
"""


def test_nothing_runs_until_the_consumer_pulls(demo, write_scenario):
    file = load(
        demo,
        write_scenario,
        'parameters:\n  baseUrl: "BASE"\nscenario: s\n  when: GET /counter\n  when: GET /counter\n',
    )
    stream = Execution([file]).events()
    try:
        event = next(stream)
        while not isinstance(event, StepStarted):
            event = next(stream)
        time.sleep(0.2)  # paused: the consumer does not pull
        with httpx.Client() as client:
            assert (client.get(demo.url + "/counter")).json() == {"value": 1}
        rest = [e for e in stream]
    finally:
        stream.close()
    assert [r.json["value"] for r in rest if hasattr(r, "json") and isinstance(r.json, dict)] == [2, 3]
    assert rest[-1].passed == 1


def test_stop_cancels_the_request_in_flight_and_ends_interrupted(demo, write_scenario):
    execution = Execution([load(demo, write_scenario, SLOW)])
    events = []
    started = time.perf_counter()

    stopper = threading.Timer(0.2, execution.stop)  # from another thread, while recv waits
    for event in execution.events():
        events.append(event)
        if isinstance(event, RequestSent) and "/slow" in event.url:
            stopper.start()
    stopper.join()
    took = time.perf_counter() - started
    assert took < 15  # /slow would have taken 60 s
    interrupted = [e for e in of(events, StepFinished) if e.interrupted]
    assert [(e.step.line, e.status, e.message) for e in interrupted] == [
        (8, "failed", "interrupted"),
        (9, "skipped", "interrupted"),
    ]
    assert [(e.scenario.name, e.status, e.message, e.interrupted) for e in of(events, ScenarioFinished)] == [
        ("waits", "failed", "interrupted", True)
    ]
    assert [e.scenario.name for e in of(events, ScenarioStarted)] == ["waits"]
    # The open stores are still reported cleared, and the run ends interrupted.
    assert [type(e) for e in events[-4:]] == [FeatureFinished, ScopeCleared, FileFinished, RunFinished]
    assert of(events, ScopeCleared)[0].names == ("n",)
    final = events[-1]
    assert final.interrupted and (final.passed, final.failed, final.skipped) == (0, 1, 0) and not final.ok
    assert execution._client._client is None  # the HTTP client was closed


def test_stop_between_steps_skips_the_rest(demo, write_scenario):
    file = load(
        demo,
        write_scenario,
        'parameters:\n  baseUrl: "BASE"\nscenario: s\n  when: GET /health\n  then: status 200\n  when: GET /health\n',
    )
    execution = Execution([file])
    events = []
    for event in execution.events():
        events.append(event)
        if isinstance(event, StepFinished) and event.step.line == 4:
            execution.stop()  # from the consumer itself, between pulls
    assert [(e.step.line, e.status, e.message) for e in of(events, StepFinished)] == [
        (4, "passed", None),
        (5, "skipped", "interrupted"),
        (6, "skipped", "interrupted"),
    ]
    assert len(of(events, RequestSent)) == 1
    assert [(e.status, e.message) for e in of(events, ScenarioFinished)] == [("skipped", "interrupted")]
    assert [e.interrupted for e in of(events, StepFinished)] == [False, True, True]
    assert of(events, ScenarioFinished)[0].interrupted and events[-1].interrupted


def test_closing_the_stream_closes_the_client_and_sends_nothing_more(demo, write_scenario):
    execution = Execution([load(demo, write_scenario, SLOW)])
    stream = execution.events()
    for event in stream:
        if isinstance(event, RequestSent) and "/slow" in event.url:
            break
    stream.close()  # the consumer gives up: the stream's `finally:` blocks run
    assert execution._client._client is None
    with httpx.Client() as client:  # /counter was called once (the first step), /slow never
        assert client.get(demo.url + "/counter").json() == {"value": 2}


def test_an_execution_runs_once(demo, write_scenario):
    execution = Execution([load(demo, write_scenario, "scenario: s\n  when: GET BASE/health\n")])
    assert isinstance([e for e in execution][0], RunStarted)
    with pytest.raises(RuntimeError):
        for _ in execution.events():
            pass


def test_tags_select_scenarios_by_their_own_or_their_features_tags(demo, write_scenario):
    file = load(
        demo,
        write_scenario,
        """\
parameters:
  baseUrl: "BASE"
@pets
feature: Pets
  scenario: in tagged feature
    when: GET /health
feature: Other
  @smoke
  scenario: tagged
    when: GET /health
  scenario: untagged
    when: GET /health
scenario: standalone untagged
  when: GET /health
""",
    )
    events = run_to_completion([file], tags={"smoke", "@pets"})
    assert [e.scenario.name for e in of(events, ScenarioStarted)] == ["in tagged feature", "tagged"]
    finished = [(e.scenario.name, e.status, e.message) for e in of(events, ScenarioFinished)]
    assert finished == [
        ("in tagged feature", "passed", None),
        ("tagged", "passed", None),
        ("untagged", "skipped", "not selected by tags (wanted @pets, @smoke)"),
        ("standalone untagged", "skipped", "not selected by tags (wanted @pets, @smoke)"),
    ]
    final = events[-1]
    assert (final.passed, final.failed, final.skipped, final.total, final.interrupted) == (2, 0, 2, 4, False)
    assert (of(events, FileFinished)[0].passed, of(events, FileFinished)[0].skipped) == (2, 2)
    # A skipped scenario has no step events at all.
    assert {e.step.line for e in of(events, StepFinished)} == {6, 10}


def test_without_tags_every_scenario_runs_and_finishes_once(demo, write_scenario):
    file = load(
        demo,
        write_scenario,
        """\
parameters:
  baseUrl: "BASE"
@x
scenario: a
  when: GET /health
scenario: b
  when: GET /status/500
  then: status 200
""",
    )
    events = run_to_completion([file])
    assert [(e.scenario.name, e.status) for e in of(events, ScenarioFinished)] == [("a", "passed"), ("b", "failed")]
    assert (events[-1].passed, events[-1].failed, events[-1].skipped) == (1, 1, 0)
    assert isinstance(events[0], RunStarted) and isinstance(events[-1], RunFinished)


def test_an_empty_file_runs_nothing(write_scenario):
    events = run_to_completion([load_file(write_scenario("# nothing here\n"))])
    assert [type(e).__name__ for e in events] == ["RunStarted", "FileStarted", "FileFinished", "RunFinished"]


def test_an_unreadable_openapi_description_fails_the_scenarios_not_the_run(write_scenario):
    file = load_file(write_scenario("parameters:\n  openapi: missing.yaml\nscenario: s\n  when: GET /health\n"))
    events = run_to_completion([file])
    [finished] = of(events, ScenarioFinished)
    assert finished.status == "failed"
    assert "cannot be read" in finished.message
    assert [e.status for e in of(events, StepFinished)] == ["skipped"]


def test_the_plan_is_known_before_running(write_scenario):
    file = load_file(
        write_scenario("""\
background:
  when: GET /health
fragment: f
  then: status 200
scenario: s
  include: f
""")
    )
    plan = plan_scenario(file, None, file.scenarios[0])
    assert [(p.line, p.phase, [i.line for i in p.via], p.index) for p in plan] == [
        (2, "background:file", [], 0),
        (4, "scenario", [6], 1),
    ]


def test_stop_while_the_consumer_holds_an_event_never_cancels_the_consumer(demo, write_scenario):
    file = load(
        demo, write_scenario, 'parameters:\n  baseUrl: "BASE"\nscenario: s\n  when: GET /health\n  then: status 200\n'
    )
    execution = Execution([file])
    events = []
    for event in execution.events():
        events.append(event)
        if type(event).__name__ == "ResponseReceived":
            threading.Timer(0.05, execution.stop).start()
            time.sleep(0.2)  # the consumer's own wait: stop() must not cut it short
    assert [(e.step.line, e.status, e.message) for e in of(events, StepFinished)] == [
        (4, "passed", None),
        (5, "skipped", "interrupted"),
    ]
    assert events[-1].interrupted


def test_stop_while_paused_before_a_step_never_runs_it(demo, write_scenario):
    # A debugger pauses right after StepStarted: a stop there is not that step's failure.
    file = load(
        demo,
        write_scenario,
        'parameters:\n  baseUrl: "BASE"\nscenario: s\n  when: GET /health\n  then: status 200\n  when: GET /health\n',
    )
    execution = Execution([file])
    events = []
    for event in execution.events():
        events.append(event)
        if isinstance(event, StepStarted) and event.step.line == 5:
            execution.stop()
    assert [(e.step.line, e.status, e.message) for e in of(events, StepFinished)] == [
        (4, "passed", None),
        (5, "skipped", "interrupted"),
        (6, "skipped", "interrupted"),
    ]
    assert len(of(events, RequestSent)) == 1
    assert not [e for e in events if type(e).__name__ == "AssertionChecked"]
    finished = of(events, ScenarioFinished)[0]
    assert (finished.status, finished.message) == ("skipped", "interrupted")  # a stop, not a failure
    assert events[-1].interrupted and (events[-1].passed, events[-1].failed, events[-1].skipped) == (0, 0, 1)
