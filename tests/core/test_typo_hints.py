"""Typos get the best hint: a mistyped assertion word, a request without `when:`, our
extract without its colon, `=` for `==`. A custom step's real sentence keeps the custom-step hint."""

from __future__ import annotations

import pytest

from scenario_core.language.errors import InvalidFileError
from scenario_core.language.typo_hints import edits, near
from scenario_core.parameters.diagnostics import load_valid


def messages(write_scenario, text: str) -> dict[int, str]:
    """What `check` says, by line: the file's errors, or those local to one scenario (docs/spec/steps.md#errors-local-to-one-scenario)."""
    try:
        (file,) = load_valid([str(write_scenario(text))])
        found = file.local_errors
    except InvalidFileError as error:
        found = tuple(error.diagnostics)
    assert found, "no error"
    return {d.location.line: d.message for d in found}


def test_then_stauts_says_did_you_mean_status(write_scenario):
    found = messages(write_scenario, "scenario: s\n  when: GET http://127.0.0.1:1/\n  then: stauts 200\n")
    assert found[3] == "unknown assertion 'stauts'; did you mean 'status'? (then: status 200)"


@pytest.mark.parametrize(
    "line, meant",
    [("statuz 200", "status"), ("tme < 200ms", "time"), ('hedaer Content-Type contains "json"', "header")],
)
def test_a_mistyped_assertion_word_names_the_word_it_meant(write_scenario, line, meant):
    found = messages(write_scenario, f"scenario: s\n  when: GET http://127.0.0.1:1/\n  then: {line}\n")
    assert f"did you mean '{meant}'?" in found[3]


def test_assert_statuz_in_berrycrush_says_did_you_mean_status(write_scenario):
    text = "scenario: s\n  when: GET http://127.0.0.1:1/\n  then I check\n    assert statuz 200\n"
    assert "did you mean 'status'? (assert status 200)" in messages(write_scenario, text)[4]


@pytest.mark.parametrize("sentence", ["the pet is stored", "stats are updated", "the 200", "times are good"])
def test_a_custom_step_sentence_far_from_every_keyword_keeps_the_custom_step_hint(write_scenario, sentence):
    found = messages(write_scenario, f"scenario: s\n  then: {sentence}\n")
    assert found[2].startswith(f'no step matches "{sentence}"; custom steps are Python functions')


def test_gett_pets_suggests_when_get(write_scenario):
    found = messages(write_scenario, "scenario: s\n  GETT /pets\n")
    assert found[2] == "'GETT /pets' is not allowed here; did you mean 'when: GET /pets'?"


def test_a_bare_request_line_suggests_when(write_scenario):
    found = messages(write_scenario, "scenario: s\n  POST /pets\n")
    assert "did you mean 'when: POST /pets'?" in found[2]


def test_when_gett_pets_suggests_get(write_scenario):
    found = messages(write_scenario, "scenario: s\n  when: GETT /pets\n")
    assert "did you mean GET?" in found[2]


def test_extract_without_its_colon_suggests_extract_colon(write_scenario):
    found = messages(write_scenario, "scenario: s\n  extract token from $.token\n")
    assert found[2].endswith("did you mean 'extract: token from $.token'?")


def test_extract_under_a_described_step_suggests_berrycrush_arrow(write_scenario):
    found = messages(write_scenario, "scenario: s\n  then I keep the token\n    extract token from $.token\n")
    assert found[3].endswith("did you mean 'extract $.token => token'?")


def test_equals_sign_in_then_suggests_double_equals(write_scenario):
    found = messages(write_scenario, 'scenario: s\n  when: GET http://127.0.0.1:1/\n  then: $.s = "ok"\n')
    assert found[3] == "'=' does not compare in then:; did you mean '=='? then: $.s == \"ok\""


def test_typo_distance_counts_a_swap_as_one_edit():
    assert edits("stauts", "status") == 1
    assert near("statuz", "status") and near("tme", "time")
    assert not near("the", "time") and not near("stats", "schema")
