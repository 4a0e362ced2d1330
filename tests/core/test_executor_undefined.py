"""Undefined variables (docs/spec/steps.md): the step fails before anything is sent, saying what is
visible and, when the name is extracted elsewhere in the file, why it is not visible here."""

from __future__ import annotations

from scenario_core.language.parser import load_file
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.events import RequestSent, ScenarioFinished, StepFinished
from scenario_core.run.executor import run_to_completion


def ln(text: str, needle: str, nth: int = 1) -> int:
    return [i for i, line in enumerate(text.splitlines(), 1) if needle in line][nth - 1]


def run(demo, write_scenario, text, *, tags=None, run_variables=None):
    path = write_scenario(text.replace("BASE", demo.url))
    return run_to_completion([load_file(path)], RunOverrides(), run_variables, tags)


def message_of(events, scenario: str) -> str:
    finished = next(e for e in events if isinstance(e, ScenarioFinished) and e.scenario.name == scenario)
    assert finished.status == "failed", finished
    return finished.message


HEAD = 'parameters:\n  baseUrl: "BASE"\n'


def test_the_message_names_the_step_what_is_visible_and_the_isolating_feature(demo, write_scenario):
    text = (
        HEAD
        + """\
  shareVariablesAcrossScenarios: true
background:
  when: POST /login
    body: {"username": "demo", "password": "demo"}
  extract: token from $.token
scenario: create pet
  when: POST /pets
    headers:
      Authorization: Bearer {{token}}
    body: {"name": "Rex"}
  extract: petId from $.id
feature: Audit
  parameters:
    shareVariablesAcrossScenarios: false
  scenario: read pet
    when: GET /pets/{{petId}}
"""
    )
    events = run(demo, write_scenario, text)
    assert message_of(events, "read pet") == (
        f"line {ln(text, '{{petId}}')}: undefined variable 'petId' in GET /pets/{{{{petId}}}}; visible here: token. "
        f"'petId' is extracted by scenario 'create pet' (line {ln(text, 'extract: petId')}), but feature 'Audit' "
        f"sets shareVariablesAcrossScenarios: false (line {ln(text, 'shareVariables', 2)})."
    )
    # Nothing was sent for the failing step: the only requests are the two logins and the POST.
    assert [e.url.rsplit("/", 1)[-1] for e in events if isinstance(e, RequestSent)] == ["login", "pets", "login"]


def test_isolated_by_the_files_false_names_its_line(demo, write_scenario):
    text = (
        HEAD
        + """\
  shareVariablesAcrossScenarios: false
scenario: make
  when: GET /counter
  extract: n from $.value
scenario: use
  when: GET /echo?n={{n}}
"""
    )
    events = run(demo, write_scenario, text)
    assert message_of(events, "use").endswith(
        f"'n' is extracted by scenario 'make' (line {ln(text, 'extract: n')}), but the file sets "
        "shareVariablesAcrossScenarios: false (line 3)."
    )


def test_isolated_by_default_says_so(demo, write_scenario):
    text = (
        HEAD
        + """\
scenario: make
  when: GET /counter
  extract: n from $.value
scenario: use
  when: GET /echo?n={{n}}
"""
    )
    assert message_of(run(demo, write_scenario, text), "use").endswith(
        "but standalone scenarios do not share variables (shareVariablesAcrossScenarios is false by default)."
    )


def test_the_extractor_is_isolated_while_this_scenario_shares(demo, write_scenario):
    text = (
        HEAD
        + """\
  shareVariablesAcrossScenarios: true
feature: Quiet
  parameters:
    shareVariablesAcrossScenarios: false
  scenario: make
    when: GET /counter
    extract: n from $.value
scenario: use
  when: GET /echo?n={{n}}
"""
    )
    assert message_of(run(demo, write_scenario, text), "use").endswith(
        f"'n' is extracted by scenario 'make' (line {ln(text, 'extract: n')}), but that scenario is isolated: "
        f"feature 'Quiet' sets shareVariablesAcrossScenarios: false (line {ln(text, 'shareVariables', 2)})."
    )


def test_the_extractor_is_in_another_feature_with_its_own_store(demo, write_scenario):
    text = (
        HEAD
        + """\
feature: One
  parameters:
    shareVariablesAcrossScenarios: true
  scenario: make
    when: GET /counter
    extract: n from $.value
feature: Two
  parameters:
    shareVariablesAcrossScenarios: true
  scenario: use
    when: GET /echo?n={{n}}
"""
    )
    assert message_of(run(demo, write_scenario, text), "use").endswith(
        f"'n' is extracted by scenario 'make' (line {ln(text, 'extract: n')}), but feature 'Two' has its own "
        f"store (shareVariablesAcrossScenarios: true, line {ln(text, 'shareVariables', 2)}) and does not see the store of feature 'One'."
    )


def test_the_extractor_runs_later_in_the_file(demo, write_scenario):
    text = (
        HEAD
        + """\
  shareVariablesAcrossScenarios: true
scenario: use
  when: GET /echo?n={{n}}
scenario: make
  when: GET /counter
  extract: n from $.value
"""
    )
    assert message_of(run(demo, write_scenario, text), "use").endswith(
        f"'n' is extracted by scenario 'make' (line {ln(text, 'extract: n')}), but that scenario runs later "
        f"in the file (line {ln(text, 'scenario: make')})."
    )


def test_the_name_is_extracted_later_in_this_same_scenario(demo, write_scenario):
    text = (
        HEAD
        + """\
fragment: count
  when: GET /counter
  extract: n from $.value
scenario: too early
  when: GET /echo?n={{n}}
  include: count
"""
    )
    assert message_of(run(demo, write_scenario, text), "too early") == (
        f"line {ln(text, '{{n}}')}: undefined variable 'n' in GET /echo?n={{{{n}}}}; visible here: nothing. "
        f"'n' is extracted later in this scenario (line {ln(text, 'extract: n')}, via fragment 'count')."
    )


def test_the_name_is_extracted_only_by_another_features_background(demo, write_scenario):
    text = (
        HEAD
        + """\
  shareVariablesAcrossScenarios: true
feature: Logged in
  background:
    when: POST /login
      body: {"username": "demo", "password": "demo"}
    extract: token from $.token
  scenario: inside
    when: GET /health
scenario: outside
  when: GET /echo
    headers:
      Authorization: Bearer {{token}}
"""
    )
    assert message_of(run(demo, write_scenario, text), "outside") == (
        f"line {ln(text, 'when: GET /echo')}: undefined variable 'token' in header Authorization of GET /echo; "
        f"visible here: nothing. 'token' is extracted only by the background of feature 'Logged in' "
        f"(line {ln(text, 'extract: token')}): what a background extracts stays in its own scenario."
    )


def test_the_extractor_ran_but_failed_before_extracting(demo, write_scenario):
    text = (
        HEAD
        + """\
  shareVariablesAcrossScenarios: true
scenario: make
  when: GET /status/500
  then: status 200
  extract: n from $.status
scenario: use
  when: GET /echo?n={{n}}
"""
    )
    assert message_of(run(demo, write_scenario, text), "use").endswith(
        f"'n' is extracted by scenario 'make' (line {ln(text, 'extract: n')}), but that scenario failed before "
        f"extracting it (line {ln(text, 'then: status 200')}: expected status 200, got 500 (body: "
        '{"status": 500})).'
    )


def test_the_extractor_was_not_selected_by_tags(demo, write_scenario):
    text = (
        HEAD
        + """\
  shareVariablesAcrossScenarios: true
scenario: make
  when: GET /counter
  extract: n from $.value
@smoke
scenario: use
  when: GET /echo?n={{n}}
"""
    )
    assert message_of(run(demo, write_scenario, text, tags={"smoke"}), "use").endswith(
        "but that scenario was not selected by tags."
    )


def test_no_step_extracts_the_name(demo, write_scenario):
    text = HEAD + "scenario: use\n  when: GET /echo\n  then: $.query.n == {{n}}\n"
    events = run(demo, write_scenario, text, run_variables={"a": 1, "b": 2})
    assert message_of(events, "use") == (
        "line 5: undefined variable 'n' in $.query.n == {{n}}; visible here: a, b. "
        "No step in this file extracts 'n'; pass it with --var n=..."
    )
    # The request ran; the assertion failed before being evaluated.
    assert [e.status for e in events if isinstance(e, StepFinished)] == ["passed", "failed"]


def test_the_name_is_extracted_only_in_a_fragment_nobody_includes(demo, write_scenario):
    text = (
        HEAD
        + """\
fragment: unused
  when: GET /counter
  extract: n from $.value
scenario: use
  when: GET /echo?n={{n}}
"""
    )
    assert message_of(run(demo, write_scenario, text), "use").endswith(
        f"'n' is extracted only in fragment 'unused' (line {ln(text, 'extract: n')}), which no scenario includes."
    )


def test_references_in_bodies_and_query_values_are_checked_too(demo, write_scenario):
    text = (
        HEAD
        + """\
scenario: body
  when: POST /echo
    body: {"n": {{n}}}
scenario: query
  when: GET /echo
    query:
      n: {{n}}
"""
    )
    events = run(demo, write_scenario, text)
    assert "undefined variable 'n' in the body of POST /echo;" in message_of(events, "body")
    assert "undefined variable 'n' in query n of GET /echo;" in message_of(events, "query")
    assert not [e for e in events if isinstance(e, RequestSent)]


def test_isolated_reader_and_a_feature_own_store_are_both_named(demo, write_scenario):
    text = (
        HEAD
        + """\
feature: Pets
  parameters:
    shareVariablesAcrossScenarios: true
  scenario: make
    when: GET /counter
    extract: n from $.value
feature: Audit
  scenario: use
    when: GET /echo?n={{n}}
"""
    )
    assert message_of(run(demo, write_scenario, text), "use").endswith(
        f"'n' is extracted by scenario 'make' (line {ln(text, 'extract: n')}), but feature 'Audit' does not share "
        "variables (shareVariablesAcrossScenarios is false by default); and it is shared only within feature "
        f"'Pets' (shareVariablesAcrossScenarios: true, line {ln(text, 'shareVariablesAcrossScenarios: true')})."
    )


# A request is built first and its references looked at only when building fails (run/steps.py):
# what the step reports, and what it sends, are the same as when the references come first.


def test_an_undefined_name_is_what_fails_the_step_even_without_a_base_url(write_scenario):
    text = """\
scenario: no base
  when: GET /pets
    headers:
      X-Token: {{token}}
"""
    events = run_to_completion([load_file(write_scenario(text))])
    assert message_of(events, "no base") == (
        "line 2: undefined variable 'token' in header X-Token of GET /pets; visible here: nothing. "
        "No step in this file extracts 'token'; pass it with --var token=..."
    )
    assert not [e for e in events if isinstance(e, RequestSent)]


def test_a_request_that_failed_on_an_undefined_name_is_sent_once_the_name_is_defined(demo, write_scenario):
    text = (
        HEAD
        + """\
fragment: read
  when: GET /health?who={{who}}
scenario: without
  include: read
scenario: with
  when: POST /login
    body: {"username": "demo", "password": "demo"}
  extract: who from $.token
  include: read
  then: status 200
"""
    )
    events = run(demo, write_scenario, text)
    assert message_of(events, "without").startswith(f"line {ln(text, '{{who}}')}: undefined variable 'who' in GET")
    finished = {e.scenario.name: e.status for e in events if isinstance(e, ScenarioFinished)}
    assert finished == {"without": "failed", "with": "passed"}
    urls = [e.url.replace(demo.url, "") for e in events if isinstance(e, RequestSent)]
    assert urls[0] == "/login" and urls[1].startswith("/health?who=") and len(urls[1]) > len("/health?who=")


def test_a_dotted_name_is_read_each_time_its_request_runs(demo, write_scenario, monkeypatch):
    monkeypatch.setenv("SCENARIO_TUI_TEST_WHO", "alice")
    text = (
        HEAD
        + """\
fragment: read
  when: GET /health?who={{env.SCENARIO_TUI_TEST_WHO}}
  then: status 200
scenario: first
  include: read
scenario: second
  include: read
"""
    )
    events = run(demo, write_scenario, text)
    assert {e.scenario.name: e.status for e in events if isinstance(e, ScenarioFinished)} == {
        "first": "passed",
        "second": "passed",
    }
    assert [e.url.replace(demo.url, "") for e in events if isinstance(e, RequestSent)] == ["/health?who=alice"] * 2
