"""The extract step the JSON-path playground writes (issue 23): computed from the syntax tree,
right after the step, at its indentation, in the file's dialect."""

from __future__ import annotations

from scenario_core.editor.edits import extract_after, extract_name
from scenario_core.language.nodes.steps import DescribedStep
from scenario_core.language.parser import parse_text

OURS = """\
scenario: create
  when: POST /pets
    headers:
      X-A: 1
    body: {"name": "Rex"}

  then: status 201
"""

BERRYCRUSH = """\
Feature: pets
  Scenario: create
    When I create a pet
      call ^createPet
        body:
          name: Rex
      assert status 201
    Then it exists
"""


def steps_of(text):
    scenario_file = parse_text(text, "t.scenario")
    first = scenario_file.items[0]
    return (first.scenarios[0] if hasattr(first, "scenarios") else first).steps


def test_extract_in_our_dialect_is_a_sibling_step_after_the_step_and_its_lines():
    request = steps_of(OURS)[0]
    edit = extract_after(OURS, request, "$.id")
    assert edit.applied(OURS) == OURS.replace(
        '    body: {"name": "Rex"}\n', '    body: {"name": "Rex"}\n  extract: id from $.id\n'
    )


def test_extract_in_berrycrush_dialect_is_a_directive_under_the_described_step():
    described = steps_of(BERRYCRUSH)[0]
    assert isinstance(described, DescribedStep)
    call = described.steps[0]
    edit = extract_after(BERRYCRUSH, call, "$.data.id", parent=described)
    assert edit.applied(BERRYCRUSH) == BERRYCRUSH.replace(
        "          name: Rex\n", "          name: Rex\n      extract $.data.id => id\n"
    )


def test_extract_name_defaults_to_the_last_key_of_the_path():
    assert extract_name("$.items[0].petId") == "petId"
    assert extract_name("$['pet-id']") == "pet_id"
    assert extract_name("$[0]") == "value"


def test_extract_name_given_is_kept():
    step = steps_of(OURS)[1]
    assert extract_after(OURS, step, "$.id", "petId").text == "  extract: petId from $.id"


def test_extract_after_the_last_line_of_a_file_without_a_newline():
    text = "scenario: s\n  when: GET /health"
    edit = extract_after(text, steps_of(text)[0], "$.status")
    assert edit.applied(text) == text + "\n  extract: status from $.status\n"
