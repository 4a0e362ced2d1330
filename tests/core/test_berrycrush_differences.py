"""Where BerryCrush behaves otherwise, we keep our rules (docs/spec/berrycrush.md#differences): one test per row,
each written in BerryCrush's dialect and run against the demo API, asserting our rule."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from scenario_core.language.errors import InvalidFileError
from scenario_core.language.parser import load_file
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.events import RequestSent, ScenarioFinished, StepFinished
from scenario_core.run.executor import run_to_completion

PETSTORE = Path(__file__).resolve().parents[2] / "core" / "demo" / "petstore.yaml"


def run(demo, write_scenario, text: str, **overrides):
    path = write_scenario(f"parameters:\n  openapi: {PETSTORE}\n" + text)
    return run_to_completion([load_file(path)], RunOverrides({"baseUrl": demo.url, **overrides}))


def finished(events) -> dict[str, ScenarioFinished]:
    return {e.scenario.name: e for e in events if isinstance(e, ScenarioFinished)}


def statuses(events) -> dict[str, str]:
    return {name: e.status for name, e in finished(events).items()}


def failures(events) -> list[str]:
    return [e.message for e in events if isinstance(e, StepFinished) and e.status == "failed"]


def errors(write_scenario, text: str) -> list[str]:
    with pytest.raises(InvalidFileError) as caught:
        load_file(write_scenario(text))
    return [d.message for d in caught.value.diagnostics]


HEALTH = "    call ^getHealth\n"
IN_FEATURE = "      call ^getHealth\n"  # under a step of a feature's scenario


def test_difference_1_extract_reaches_the_store_at_once_even_if_the_scenario_then_fails(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        f"""  shareVariablesAcrossScenarios: true
scenario: extracts then fails
  when I check health
{HEALTH}    extract $.status => health
    assert status 500
scenario: reads it
  then it is shared
    assert {{{{health}}}} equals "ok"
""",
    )
    assert statuses(events) == {"extracts then fails": "failed", "reads it": "passed"}


def test_difference_2_backgrounds_include_arguments_and_outline_cells_never_reach_a_store(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        f"""  shareVariablesAcrossScenarios: true
background:
  given the API is up
{HEALTH}    extract $.status => fromBackground
fragment: noop
  given nothing
{HEALTH}
scenario: includes
  given a fragment with an argument
    include noop
      argument: 1
outline: rows
  when I check {{{{cell}}}}
{HEALTH}
  examples:
    | cell |
    | a    |
""",
    )
    last = list(finished(events).values())[-1]
    assert set(last.snapshot.store_values) == set()


def test_difference_3_a_feature_without_the_key_in_a_sharing_file_shares_the_file_store(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        f"""  shareVariablesAcrossScenarios: true
scenario: standalone extracts
  when I check
{HEALTH}    extract $.status => first
feature: F
  scenario: sees it and extracts
    then it sees the file store
      assert {{{{first}}}} equals "ok"
    when I check again
{IN_FEATURE}      extract $.status => second
  scenario: a later one sees both
    then both are there
      assert {{{{second}}}} equals "ok"
""",
    )
    assert set(statuses(events).values()) == {"passed"}


def test_difference_4_a_sharing_feature_starts_empty_and_is_cleared_when_it_ends(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        f"""  shareVariablesAcrossScenarios: true
scenario: file extracts
  when I check
{HEALTH}    extract $.status => fileValue
feature: F
  parameters:
    shareVariablesAcrossScenarios: true
  scenario: does not see the file store
    then it is not there
      assert {{{{fileValue}}}} equals "ok"
  scenario: extracts into F
    when I check
{IN_FEATURE}      extract $.status => featureValue
scenario: after F
  then F's store is gone
    assert {{{{featureValue}}}} equals "ok"
""",
    )
    assert statuses(events) == {
        "file extracts": "passed",
        "does not see the file store": "failed",
        "extracts into F": "passed",
        "after F": "failed",
    }
    assert "undefined variable 'fileValue'" in failures(events)[0]
    assert "undefined variable 'featureValue'" in failures(events)[1]


def test_difference_5_a_feature_with_false_is_isolated_even_in_a_sharing_file(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        f"""  shareVariablesAcrossScenarios: true
scenario: file extracts
  when I check
{HEALTH}    extract $.status => fileValue
feature: F
  parameters:
    shareVariablesAcrossScenarios: false
  scenario: isolated
    then it is not there
      assert {{{{fileValue}}}} equals "ok"
""",
    )
    assert statuses(events)["isolated"] == "failed"


def test_difference_6_extract_matching_nothing_fails_the_step(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        f"""scenario: s
  when I check
{HEALTH}    extract $.nothing => x
""",
    )
    assert failures(events) == ["$.nothing matched nothing in the response body; its top-level keys: status"]


def test_difference_7_an_undefined_reference_fails_before_sending(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """scenario: s
  when I read a pet
    call ^getPetById
      id: {{nope}}
""",
    )
    assert not [e for e in events if isinstance(e, RequestSent)]
    assert failures(events)[0].startswith("undefined variable 'nope' in id of ^getPetById")


def test_difference_8_an_unknown_parameter_key_is_an_error_unless_the_file_reads_it(write_scenario):
    assert errors(write_scenario, "parameters:\n  shareVariables: true\n") == [
        "unknown parameter 'shareVariables'; did you mean 'shareVariablesAcrossScenarios'?"
    ]
    file = load_file(
        write_scenario(
            "parameters:\n  region: eu\nscenario: s\n  given the region {{param.region}}\n"
            "    assert {{param.region}} equals eu\n"
        )
    )
    assert file.parameters.get("region").value == "eu"


def test_difference_9_a_parameter_value_cannot_read_a_variable(write_scenario):
    found = errors(write_scenario, 'parameters:\n  baseUrl: "{{host}}"\n')
    assert len(found) == 1 and "{{" in found[0]


def test_difference_10_one_parameters_block_per_level_and_no_duplicate_keys(write_scenario):
    assert errors(write_scenario, "parameters:\n  timeout: 5\n  timeout: 6\n") == [
        "duplicate parameter 'timeout'; it is already set on line 2"
    ]
    found = errors(
        write_scenario,
        "parameters:\n  timeout: 5\nscenario: s\n  given x\n    assert status 200\nparameters:\n  timeout: 6\n",
    )
    assert len(found) == 1 and "file-level parameters: must come before the first scenario:" in found[0]


def test_difference_11_a_connection_failure_fails_the_step(write_scenario):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    path = write_scenario(
        f"parameters:\n  openapi: {PETSTORE}\n  baseUrl: http://127.0.0.1:{port}\nscenario: s\n  when I check\n{HEALTH}"
    )
    events = run_to_completion([load_file(path)])
    assert statuses(events) == {"s": "failed"}
    assert "refused" in failures(events)[0] or "connect" in failures(events)[0]


def test_difference_12_timeout_bounds_each_request_and_applies_per_scenario(demo, write_scenario):
    started = time.perf_counter()
    events = run(
        demo,
        write_scenario,
        """scenario: slow
  parameters:
    timeout: 1
  when I wait
    call ^slow
      ms: 60000
""",
    )
    assert time.perf_counter() - started < 15  # the 1 s timeout, not the minute /slow takes
    assert failures(events)[0].startswith("timed out after 1 s (timeout: scenario")


def test_difference_13_matches_is_whole_value_in_assert_and_a_search_in_then(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        f"""scenario: assert
  when I check
{HEALTH}    assert $.status matches "o"
scenario: then
  when: GET /health
  then: $.status matches "o"
""",
    )
    assert statuses(events) == {"assert": "failed", "then": "passed"}


def test_difference_14_a_step_with_no_directives_and_no_python_step_is_a_check_error(write_scenario):
    from scenario_core.custom_steps.diagnostics import custom_diagnostics
    from scenario_core.custom_steps.registry import Registry

    file = load_file(write_scenario("scenario: s\n  given the moon is full\n"))
    assert [d.message for d in custom_diagnostics(file, Registry())][0].startswith('no step matches "the moon is full"')


def test_difference_15_fragment_blocks_in_a_scenario_file_are_used_and_includes_nest(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        f"""fragment: inner
  given health
{HEALTH}    extract $.status => deep
fragment: outer
  given the inner one
    include inner
scenario: s
  given nested includes
    include outer
  then it ran
    assert {{{{deep}}}} equals "ok"
""",
    )
    assert statuses(events) == {"s": "passed"}


def test_difference_16_ignore_wip_and_slow_tags_mean_nothing(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        f"""@ignore @wip @slow
scenario: still runs
  when I check
{HEALTH}""",
    )
    assert statuses(events) == {"still runs": "passed"}
    assert [e for e in events if isinstance(e, RequestSent)]


def test_difference_17_a_file_level_background_is_allowed(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        f"""background:
  given health
{HEALTH}    extract $.status => bg
scenario: s
  then the background ran
    assert {{{{bg}}}} equals "ok"
""",
    )
    assert statuses(events) == {"s": "passed"}


def test_difference_18_an_outline_row_sees_the_same_layers_as_any_scenario(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        f"""  shareVariablesAcrossScenarios: true
scenario: extracts
  when I check
{HEALTH}    extract $.status => shared
outline: rows
  then row {{{{n}}}} sees the file store
    assert {{{{shared}}}} equals "ok"
  examples:
    | n |
    | 1 |
    | 2 |
""",
    )
    assert set(statuses(events).values()) == {"passed"}
