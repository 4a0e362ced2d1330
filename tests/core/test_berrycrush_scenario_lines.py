"""Lines BerryCrush samples write in a scenario's body besides its steps: a `finally:`
block that runs after the scenario's steps whether they passed or failed, `description:` and
`tags:` lines, and `include NAME` straight under the scenario. Runs go against the demo API on
loopback; the counter endpoint proves a request really went out."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from scenario_core.analysis.scope_analysis import analyze
from scenario_core.language.errors import InvalidFileError
from scenario_core.language.nodes.steps import FINALLY, DescribedStep, step_label
from scenario_core.language.parser import load_file, parse_text
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.events import ScenarioFinished, StepFinished
from scenario_core.run.executor import run_to_completion
from scenario_tui.cli.main import main

PETSTORE = Path(__file__).resolve().parents[2] / "core" / "demo" / "petstore.yaml"

# A second scenario that reads the counter: 2 when the finally: block's request went out.
COUNTER_IS_TWO = """
scenario: the counter shows the clean-up ran
  when I count
    call ^incrementCounter
    assert $.value equals 2
"""


def run(write_scenario, base_url: str, text: str, tags=None, then: str = ""):
    head = f"parameters:\n  openapi: {PETSTORE}\n  baseUrl: {base_url}\n"
    path = write_scenario(head + textwrap.dedent(text).lstrip("\n") + then)
    return run_to_completion([load_file(path)], RunOverrides({}), tags=tags)


def finished(events) -> dict[str, ScenarioFinished]:
    return {e.scenario.name: e for e in events if isinstance(e, ScenarioFinished)}


def errors(text: str) -> list[str]:
    try:
        parse_text(text, "t.scenario")
    except InvalidFileError as error:
        return [f"{d.location.line}: {d.message}" for d in error.diagnostics]
    return []


# ---------------------------------------------------------------- finally:


def test_finally_runs_after_the_steps_pass(write_scenario, demo):
    events = run(
        write_scenario,
        demo.url,
        """
        scenario: health, then clean up
          when I check the health endpoint
            call ^getHealth
            assert status 200
          finally: clean up
            call ^incrementCounter
            assert status 200
        """,
        then=COUNTER_IS_TWO,
    )
    assert {name: e.status for name, e in finished(events).items()} == {
        "health, then clean up": "passed",
        "the counter shows the clean-up ran": "passed",
    }


def test_finally_runs_after_a_step_fails_and_the_first_failure_stands(write_scenario, demo):
    events = run(
        write_scenario,
        demo.url,
        """
        scenario: a failing check, then clean up
          when I check the health endpoint
            call ^getHealth
            assert status 500
          then this is skipped
            call ^getHealth
          finally: clean up
            call ^incrementCounter
            assert status 200
        """,
        then=COUNTER_IS_TWO,
    )
    scenarios = finished(events)
    failed = scenarios["a failing check, then clean up"]
    assert failed.status == "failed" and failed.message.startswith("line 7:")
    assert scenarios["the counter shows the clean-up ran"].status == "passed"
    steps = [(e.step.line, e.status) for e in events if isinstance(e, StepFinished)][:5]
    assert steps == [(6, "passed"), (7, "failed"), (9, "skipped"), (11, "passed"), (12, "passed")]


def test_a_failing_finally_fails_a_passing_scenario_and_ends_its_block(write_scenario, demo):
    events = run(
        write_scenario,
        demo.url,
        """
        scenario: health, then a broken clean-up
          when I check the health endpoint
            call ^getHealth
          finally: clean up
            call ^getHealth
            assert status 201
            call ^incrementCounter
        """,
    )
    (scenario,) = finished(events).values()
    assert scenario.status == "failed" and scenario.message.startswith("line 9:")
    assert [e.status for e in events if isinstance(e, StepFinished)] == ["passed", "passed", "failed", "skipped"]


def test_finally_does_not_run_in_a_scenario_a_local_error_ends(write_scenario, demo, tmp_path, capsys):
    """docs/spec/steps.md#errors-local-to-one-scenario: a local error ends its scenario before it sends anything; its finally:
    block cleans up after steps that ran, so it does not run either."""
    text = textwrap.dedent(
        """
        scenario: an unknown operation
          when I call what does not exist
            call ^noSuchOperation
          finally: clean up
            call ^incrementCounter
        """
    )
    path = write_scenario(f"parameters:\n  openapi: {PETSTORE}\n" + text + COUNTER_IS_TWO.replace("2", "1"))
    report = tmp_path / "report.json"
    main(["run", str(path), "--base-url", demo.url, "--report-json", str(report)])
    capsys.readouterr()
    (file,) = json.loads(report.read_text(encoding="utf-8"))["files"]
    # docs/spec/cli.md#scenario-status: a local error is `error`
    assert [s["status"] for s in file["scenarios"]] == ["error", "passed"]


def test_finally_comes_last_and_once():
    text = (
        "scenario: s\n  when: GET /a\n  finally: clean up\n    call ^x\n  when: GET /b\n  finally: again\n    call ^y\n"
    )
    assert errors(text) == [
        "5: finally: comes last in a scenario, after its steps (it is on line 3)",
        "6: a scenario has one finally: block; the first is on line 3",
    ]


def test_finally_is_the_scenarios_last_step_in_the_tree():
    file = parse_text("scenario: s\n  when: GET /a\n  finally: clean up\n    call ^deletePet\n", "t.scenario")
    last = file.scenarios[0].steps[-1]
    assert isinstance(last, DescribedStep) and last.keyword == FINALLY and last.text == "clean up"
    assert step_label(last) == "finally: clean up"  # the tree and the inspector show it so


def test_the_scope_analysis_walks_finally_steps():
    file = parse_text(
        "scenario: s\n  when I create\n    call ^createPet\n    extract $.id => petId\n"
        "  finally: clean up\n    call ^deletePet\n      id: {{petId}}\n    assert $.x equals {{nothing}}\n",
        "t.scenario",
    )
    found = analyze(file)
    undefined = {(r.name, r.location.line) for r in found.references if r.visibility == "never"}
    assert undefined == {("nothing", 8)}


# ---------------------------------------------------------------- description: and tags:


def test_description_lines_are_the_scenarios_description():
    file = parse_text(
        "scenario: s\n  description: Checks the health\n  parameters:\n    timeout: 5\n  when: GET /a\n", "t.scenario"
    )
    (scenario,) = file.scenarios
    assert scenario.description == "Checks the health" and scenario.parameters is not None


def test_tags_lines_add_tags_that_select(write_scenario, demo):
    events = run(
        write_scenario,
        demo.url,
        """
        scenario: tagged in the body
          tags: smoke, health
          when: GET /health
        scenario: not tagged
          when: GET /health
        """,
        tags=["smoke"],
    )
    assert {name: e.status for name, e in finished(events).items()} == {
        "tagged in the body": "passed",
        "not tagged": "skipped",
    }


def test_a_tags_line_needs_names():
    assert errors("scenario: s\n  tags:\n  when: GET /a\n") == ["2: tags: needs tag names: tags: smoke, pets"]


# ---------------------------------------------------------------- include under a scenario


def test_an_include_under_a_scenario_binds_its_arguments(write_scenario, demo):
    events = run(
        write_scenario,
        demo.url,
        """
        scenario: reuse it
          include echo_label
            label: corpus
        fragment: echo_label
          when I echo a label
            call ^echoGet
              header_X-Label: "{{label}}"
            assert $.headers.x-label equals "corpus"
        """,
    )
    assert [e.status for e in finished(events).values()] == ["passed"]


def test_tags_and_finally_stay_plain_names_in_parameters_bodies_and_calls():
    file = parse_text(
        "parameters:\n  tags: smoke\nscenario: s\n  when: POST /x\n    body:\n      tags: [1]\n      finally: 2\n"
        "  when: ^op\n    tags: a\n",
        "t.scenario",
    )
    assert file.parameters is not None and file.parameters.entries[0].key == "tags"
    body, call = file.scenarios[0].steps
    assert body.body.text == '{"tags": [1], "finally": 2}'
    assert [p.name for p in call.parameters] == ["tags"]
