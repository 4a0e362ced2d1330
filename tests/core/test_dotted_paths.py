"""Paths of plain names and indexes are followed without jsonpath-ng (json_paths.DottedPath):
they must match exactly what jsonpath-ng's `ext` dialect matches for the same text."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonpath_ng.exceptions import JsonPathParserError
from jsonpath_ng.ext import parse

from scenario_core.language.json_paths import DottedPath, dotted_path
from scenario_core.language.step_syntax import JsonPathError, compile_json_path
from scenario_core.run.assertions import json_path_values
from scenario_core.run.body_paths import path_matches
from scenario_core.run.comparison import MISSING

BODY = {
    "id": 7,
    "none": None,
    "empty": [],
    "items": [{"id": "a", "tags": ["x", "y"]}, {"id": "b"}, 3],
    "nested": {"deep": {"er": [[1, 2], [3]]}},
    "text": "abc",
    "_under": 0,
    "true_": True,
}
PATHS = [
    "$",
    "$.id",
    "$.none",
    "$.missing",
    "$.empty[0]",
    "$.items[0]",
    "$.items[1].id",
    "$.items[2]",
    "$.items[2].id",
    "$.items[3]",
    "$.items[-1]",
    "$.items[-3].tags[1]",
    "$.items[-4]",
    "$.items[0].tags[-1]",
    "$.nested.deep.er[0][1]",
    "$.nested.deep.er[1][0]",
    "$.text[0]",
    "$.text.length",
    "$.id.x",
    "$[0]",
    "$._under",
    "$.true_",
]


def jsonpath_ng_matches(path: str, data: object) -> list[object]:
    return [m.value for m in parse(path).find(data)]


@pytest.mark.parametrize("path", PATHS)
def test_a_dotted_path_matches_what_jsonpath_ng_matches(path: str) -> None:
    compiled = compile_json_path(path)
    assert isinstance(compiled, DottedPath)
    for data in (BODY, BODY["items"], [BODY], "text", 5, None, {}, []):
        assert [m.value for m in compiled.find(data)] == jsonpath_ng_matches(path, data), (path, data)
        expected = jsonpath_ng_matches(path, data)
        assert json_path_values(compiled, data) == (expected[0] if expected else MISSING)


@pytest.mark.parametrize(
    "path",
    [
        "$..id",
        "$.items[*]",
        "$.items[0:1]",
        "$.items[?(@.id == 'a')]",
        "$['id']",
        "$.a-b",
        "$.where",
        "$.null",
        "$.true",
        "$. id",
        "$.items[0,1]",
        "$.@x",
        "$.items.length()",
    ],
)
def test_other_paths_are_left_to_jsonpath_ng(path: str) -> None:
    assert dotted_path(path) is None
    try:
        assert not isinstance(compile_json_path(path), DottedPath)
    except JsonPathError:  # `$.where`: jsonpath-ng's own error, as before
        pass


def test_a_dotted_path_names_its_match_as_the_playground_shows_it() -> None:
    assert path_matches(compile_json_path("$.items[-3].tags[1]"), BODY) == [("$.items[-3].tags[1]", "y")]
    assert path_matches(compile_json_path("$.missing"), BODY) == []


def test_a_function_on_a_dotted_path_reads_it() -> None:
    assert json_path_values(compile_json_path("$.items[0].tags.length()"), BODY) == 2


_names = st.sampled_from(["id", "a", "b", "items", "x_1", "where", "null"])
_steps = st.lists(st.one_of(_names.map(lambda n: f".{n}"), st.integers(-4, 4).map(lambda i: f"[{i}]")), max_size=5)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_names, inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(steps=_steps, data=_json)
def test_any_dotted_path_on_any_json_matches_what_jsonpath_ng_matches(steps: list[str], data: object) -> None:
    path = "$" + "".join(steps)
    try:
        compiled = compile_json_path(path)
    except JsonPathError:
        with pytest.raises(JsonPathParserError):
            parse(path)
        return
    assert [m.value for m in compiled.find(data)] == jsonpath_ng_matches(path, data)


def test_a_run_whose_paths_are_all_dotted_never_imports_jsonpath_ng(tmp_path) -> None:
    scenario = tmp_path / "paths.scenario"
    scenario.write_text(
        "scenario: paths\n  when: GET /x\n  then: status 200\n  then: $.items[0].id == 1\n  extract: id from $.id\n",
        encoding="utf-8",
    )
    code = (
        "import sys\n"
        "from scenario_core.language.parser import load_file\n"
        f"load_file({str(scenario)!r})\n"
        "assert 'jsonpath_ng' not in sys.modules, 'jsonpath_ng imported'\n"
    )
    env_free = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert env_free.returncode == 0, env_free.stderr


def test_an_index_past_pythons_digit_limit_is_a_one_line_path_error():
    """`int()` refuses a string of over 4,300 digits (sys.get_int_max_str_digits); such an index
    is a path error naming its length, never a ValueError out of the parser."""
    path = "$.items[" + "9" * 5001 + "]"
    with pytest.raises(JsonPathError) as caught:
        compile_json_path(path)
    message = str(caught.value)
    assert message.endswith("an index of 5001 digits is too long") and "\n" not in message
    assert compile_json_path("$.items[" + "9" * 40 + "]").value_in(BODY, None) is None  # long, still a path
