"""A JSON path that matches nothing names the closest paths that exist in the body:
in the executor's message, so the TUI, `run`, reports and pytest all show it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from scenario_core.language.parser import load_file
from scenario_core.language.step_syntax import compile_json_path
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.body_paths import MAX_NODES, closest_paths, last_key, matched_nothing, path_matches
from scenario_core.run.events import StepFinished
from scenario_core.run.executor import run_to_completion
from tests.core.echo_server import EchoServer

SCRIPT = Path(sys.executable).with_name("scenario-tui")
ENV = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR")}

NESTED = """\
scenario: s
  when: POST BASE/echo
    body: {"data": {"id": 7}, "items": [{"id": 1}, {"id": 2}], "petIds": [3]}
  STEP
"""


def failures(demo, write_scenario, step: str) -> list[str]:
    path = write_scenario(NESTED.replace("BASE", demo.url).replace("STEP", step))
    events = run_to_completion([load_file(path)], RunOverrides({}), None)
    return [e.message for e in events if isinstance(e, StepFinished) and e.status == "failed"]


ECHO_KEYS = "; its top-level keys: method, path, query, headers, json, body"


def test_extract_that_matches_nothing_names_the_paths_with_that_last_key(demo, write_scenario):
    assert failures(demo, write_scenario, "extract: petId from $.id") == [
        "$.id matched nothing in the response body; the body has $.json.data.id, $.json.items[0].id" + ECHO_KEYS
    ]


def test_a_key_named_after_another_suggests_it_and_a_small_body_names_its_keys(write_scenario):
    with EchoServer() as server:
        server.answer("/pets/1", '{"id": 1, "name": "Rex"}', ("Content-Type", "application/json"))
        path = write_scenario(f"scenario: s\n  when: GET {server.url}/pets/1\n  extract: petId from $.petid\n")
        events = run_to_completion([load_file(path)], RunOverrides({}), None)
    (message,) = [e.message for e in events if isinstance(e, StepFinished) and e.status == "failed"]
    assert message == "$.petid matched nothing in the response body; the body has $.id; its top-level keys: id, name"


def test_suggestions_by_a_word_of_the_name_only_when_nothing_is_closer():
    assert closest_paths("$.petid", {"id": 1, "name": "Rex"}) == ["$.id"]
    assert closest_paths("$.pet_id", {"owner": {"id": 2}}) == ["$.owner.id"]
    assert closest_paths("$.id", {"petId": 1, "width": 2}) == ["$.petId"]
    assert closest_paths("$.petId", {"petIds": 1, "id": 2}) == ["$.petIds"]
    assert matched_nothing("$.name.first", {"name": "Rex"}) == "matched nothing in the response body"
    assert matched_nothing("$.x", {f"k{n}": n for n in range(9)}) == "matched nothing in the response body"
    assert matched_nothing("$.x", 7) == "matched nothing in the response body"


def test_path_assertion_that_matches_nothing_names_the_closest_paths(demo, write_scenario):
    assert failures(demo, write_scenario, "then: $.json.petId == 3") == [
        "expected $.json.petId == 3, but $.json.petId matched nothing in the response body; the body has $.json.petIds"
    ]


def test_exists_that_matches_nothing_names_the_closest_paths(demo, write_scenario):
    assert failures(demo, write_scenario, "then: $.id exists") == [
        "expected $.id to exist, it matched nothing in the response body;"
        " the body has $.json.data.id, $.json.items[0].id" + ECHO_KEYS
    ]


def test_no_resembling_key_leaves_the_message_as_it_was(demo, write_scenario):
    assert failures(demo, write_scenario, "extract: x from $.zzzzzz") == [
        "$.zzzzzz matched nothing in the response body" + ECHO_KEYS
    ]


def test_run_command_prints_the_suggestions(demo, write_scenario):
    path = write_scenario(NESTED.replace("BASE", demo.url).replace("STEP", "extract: petId from $.id"))
    result = subprocess.run([str(SCRIPT), "run", str(path)], capture_output=True, text=True, timeout=30, env=ENV)
    assert result.returncode == 1
    assert "the body has $.json.data.id, $.json.items[0].id" in result.stdout


def test_suggestions_are_shortest_first_equal_keys_before_resembling_ones_and_at_most_three():
    body = {"a": {"b": {"id": 1}}, "ids": 2, "x": {"id": 3}, "y": {"id": 4}, "z": {"id": 5}}
    assert closest_paths("$.id", body) == ["$.x.id", "$.y.id", "$.z.id"]
    assert closest_paths("$.petId", {"petIds": 1, "deep": {"petId": 2}}) == ["$.deep.petId", "$.petIds"]


def test_suggestions_give_one_path_per_list_shape():
    body = {"items": [{"id": n} for n in range(50)]}
    assert closest_paths("$.id", body) == ["$.items[0].id"]


def test_suggestions_write_keys_that_are_not_names_quoted():
    assert closest_paths("$.id", {"a b": {"id": 1}}) == ["$['a b'].id"]


def test_suggestions_walk_a_bounded_part_of_a_huge_body():
    body = {"rows": [{"n": i} for i in range(MAX_NODES * 5)], "id": 1}
    assert closest_paths("$.rows[9].idx", body) == ["$.id"]  # returns, without visiting every row


def test_last_key_of_both_bracket_and_dot_forms():
    assert last_key("$.data.id") == "id"
    assert last_key("$['data']['pet-id']") == "pet-id"
    assert last_key("$.items[*].id") == "id"
    assert last_key("$.items[0]") == "items"
    assert last_key("$") is None


def test_matched_nothing_without_a_body():
    assert matched_nothing("$.id", None) == "matched nothing in the response body"


def test_path_matches_give_each_concrete_path_and_value():
    body = {"items": [{"id": 1}, {"id": 2}], "a-b": {"c": True}}
    assert path_matches(compile_json_path("$.items[*].id"), body) == [("$.items[0].id", 1), ("$.items[1].id", 2)]
    assert path_matches(compile_json_path("$['a-b'].c"), body) == [("$['a-b'].c", True)]
    assert path_matches(compile_json_path("$.nope"), body) == []
