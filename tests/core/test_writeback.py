"""The extract step the JSON-path playground writes (core/editor/writeback.py): found by the
syntax tree in the text on disk, written right after the step, at its indentation, in the
step's dialect, keeping every byte it does not change; refused in one line otherwise."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scenario_core.editor.writeback import (
    StepLocator,
    WriteBackError,
    decode,
    encode,
    extract_name,
    extract_text,
    insert_extract,
    locate_step,
    split_lines,
    write_extract,
)
from scenario_core.language.nodes.steps import ExtractStep
from scenario_core.language.parser import parse_text
from scenario_core.language.step_syntax import JsonPathError, compile_json_path

FILE = "t.scenario"

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


def tree_of(text):
    return parse_text(text, FILE)


def steps_of(text):
    first = tree_of(text).items[0]
    return (first.scenarios[0] if hasattr(first, "scenarios") else first).steps


def locator(text, pick) -> StepLocator:
    tree = tree_of(text)
    found = locate_step([tree], pick(tree))
    assert found is not None
    return found


def first_step(tree):
    first = tree.items[0]
    return (first.scenarios[0] if hasattr(first, "scenarios") else first).steps[0]


def test_extract_in_our_dialect_is_a_sibling_step_after_the_step_and_its_lines():
    edit = write_extract(OURS, locator(OURS, first_step), "$.id")
    assert edit.text == OURS.replace(
        '    body: {"name": "Rex"}\n', '    body: {"name": "Rex"}\n  extract: id from $.id\n'
    )
    assert (edit.line, edit.written) == (6, "  extract: id from $.id")


def test_extract_in_berrycrush_dialect_is_a_directive_under_the_described_step():
    where = locator(BERRYCRUSH, lambda tree: first_step(tree).steps[0])
    assert where.path == (0, 0) and where.label == "call ^createPet"
    edit = write_extract(BERRYCRUSH, where, "$.data.id")
    assert edit.text == BERRYCRUSH.replace(
        "          name: Rex\n", "          name: Rex\n      extract $.data.id => id\n"
    )


def test_insert_extract_puts_any_line_after_the_step_at_its_indentation():
    where = locator(OURS, first_step)
    assert insert_extract(OURS, where, "then: status 201") == OURS.replace(
        '    body: {"name": "Rex"}\n', '    body: {"name": "Rex"}\n  then: status 201\n'
    )


def test_extract_name_defaults_to_the_last_key_of_the_path():
    assert extract_name("$.items[0].petId") == "petId"
    assert extract_name("$['pet-id']") == "pet_id"
    assert extract_name("$[0]") == "value"


def test_extract_name_given_is_kept():
    where = locator(OURS, lambda tree: tree.items[0].steps[1])
    assert write_extract(OURS, where, "$.id", "petId").written == "  extract: petId from $.id"


def test_a_last_line_without_its_line_end_stays_without_one():
    text = "scenario: s\n  when: GET /health"
    edit = write_extract(text, locator(text, first_step), "$.status")
    assert edit.text == text + "\n  extract: status from $.status"


def test_crlf_line_ends_and_a_bom_are_kept_byte_for_byte():
    data = b"\xef\xbb\xbf" + OURS.replace("\n", "\r\n").encode()
    text, bom = decode(data, FILE)
    assert bom and not text.startswith("\ufeff")
    edit = write_extract(text, locator(text, first_step), "$.id")
    assert encode(edit.text, bom) == data.replace(b'"Rex"}\r\n', b'"Rex"}\r\n  extract: id from $.id\r\n')


def test_lines_are_the_parsers_not_splitlines():
    text = "# a\u2028b\fc\x1cd\x85e\rscenario: s\r\n  when: GET /health\n  then: status 200\n"
    assert [end for _, end in split_lines(text)] == ["\r", "\r\n", "\n", "\n"]
    assert "".join(c + e for c, e in split_lines(text)) == text
    edit = write_extract(text, locator(text, first_step), "$.status")
    assert edit.text == text.replace("/health\n", "/health\n  extract: status from $.status\n")


def test_text_not_utf8_is_refused_with_its_place():
    with pytest.raises(WriteBackError, match=r"^t\.scenario:2:4: the file is not UTF-8 text; nothing written$"):
        decode(b"# a\n# b\xe9\n", FILE)


def test_a_step_moved_by_lines_above_is_found_by_its_place_in_the_tree():
    where = locator(OURS, first_step)
    moved = "scenario: first\n  when: GET /health\n\n" + OURS
    edit = write_extract(moved, where, "$.id")
    assert edit.text == moved.replace('"Rex"}\n', '"Rex"}\n  extract: id from $.id\n')


def test_a_step_moved_inside_its_scenario_is_found_by_its_text_when_it_is_the_only_one():
    where = locator(OURS, first_step)
    moved = OURS.replace("scenario: create\n", "scenario: create\n  when: GET /health\n")
    edit = write_extract(moved, where, "$.id")
    assert edit.text == moved.replace('"Rex"}\n', '"Rex"}\n  extract: id from $.id\n')


@pytest.mark.parametrize(
    ("changed", "message"),
    [
        (
            OURS.replace("POST /pets", "PUT /pets"),
            "t.scenario:2: step 'when: POST /pets' not found in scenario 'create'",
        ),
        (OURS.replace("scenario: create", "scenario: made"), "t.scenario:2: scenario 'create' not found"),
        (OURS + "  when: GET /pets\n  when: POST /pets\n", None),  # at its index still: found
        (OURS.replace("  when: POST", "  when: GET /x\n  when: POST") + "  when: POST /pets\n", "found 2 times"),
        (OURS.replace("then: status 201", "then: status"), "t.scenario:7:"),  # no longer parses
    ],
)
def test_a_step_that_cannot_be_found_is_refused_in_one_line(changed, message):
    where = locator(OURS, first_step)
    if message is None:
        assert write_extract(changed, where, "$.id").line == 6
        return
    with pytest.raises(WriteBackError) as refused:
        write_extract(changed, where, "$.id")
    assert message in str(refused.value) and "\n" not in str(refused.value)
    assert str(refused.value).endswith("nothing written")


def test_outline_fragment_background_and_branch_steps_are_located():
    text = """\
fragment: login
  when: POST /login
background:
  when: GET /health
feature: f
  scenario: s
    when I branch
      if status 200
        call raw GET /a
      else
        call raw GET /b
outline: o {{n}}
  when: GET /pets/{{n}}
  examples:
    | n |
    | 1 |
    | 2 |
"""
    tree = tree_of(text)
    described = tree.items[0].scenarios[0].steps[0]
    picks = {
        "fragment": tree.fragments[0].steps[0],
        "background": tree.background.steps[0],
        "branch": described.steps[0].branches[1].steps[0],
        "outline row 2": tree.items[1].steps[0] if hasattr(tree.items[1], "steps") else None,
    }
    picks["outline row 2"] = [i for i in tree.items if not hasattr(i, "scenarios")][-1].steps[0]
    found = {name: locate_step([tree], step) for name, step in picks.items()}
    assert found["fragment"].block == ("fragment", None, "login", 0)
    assert found["background"].block == ("background", None, None, 0)
    assert found["branch"].block == ("scenario", "f", "s", 0) and found["branch"].path == (0, 0, 1, 0)
    assert found["outline row 2"].block == ("outline", None, "o {{n}}", 0)
    edit = write_extract(text, found["branch"], "$.id")
    assert "        call raw GET /b\n        extract $.id => id\n" in edit.text


# ---------------------------------------------------------------- every line written reads back

_KEY_CHARS = st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp")) | st.sampled_from(
    list("\"' =>#\\$.[]*?@")
)
_KEY = st.text(_KEY_CHARS, min_size=1, max_size=8)
_SEGMENT = st.one_of(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True).map(lambda key: f".{key}"),
    _KEY.map(lambda key: "['" + key.replace("\\", "\\\\").replace("'", "\\'") + "']"),
    _KEY.filter(lambda key: '"' not in key and "\\" not in key).map(lambda key: f'["{key}"]'),
    st.integers(0, 9).map(lambda n: f"[{n}]"),
    st.just("[*]"),
)
_PATHS = st.lists(_SEGMENT, min_size=1, max_size=4).map(lambda segments: "$" + "".join(segments))
_NAMES = st.none() | st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)
_DIALECTS = {
    "ours": ("scenario: s\r\n  when: POST /echo\r\n  then: status 200\r\n", lambda tree: first_step(tree)),
    "berrycrush": (
        "scenario: s\n  when I echo\n    call raw POST /echo\n    assert status 200\n",
        lambda tree: first_step(tree).steps[0],
    ),
}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(path=_PATHS, name=_NAMES, dialect=st.sampled_from(sorted(_DIALECTS)))
def test_every_line_written_reads_back_as_the_extract_asked_for(path, name, dialect):
    try:
        compile_json_path(path)
    except JsonPathError:
        assume(False)
    text, pick = _DIALECTS[dialect]
    where = locator(text, pick)
    try:
        edit = write_extract(text, where, path, name)
    except WriteBackError as refused:  # only what the dialect cannot write: said in one line
        assert "\n" not in str(refused)
        assert dialect == "berrycrush" and "'" in path and '"' in path, str(refused)
        assert extract_text(path, name or extract_name(path), True) is None
        return
    written = parse_text(edit.text, FILE)
    step = [s for s in _all_steps(written) if s.location.line == edit.line]
    assert len(step) == 1 and isinstance(step[0], ExtractStep)
    assert (step[0].path, step[0].name) == (path, name or extract_name(path))
    lines = split_lines(edit.text)
    assert "".join(c + e for i, (c, e) in enumerate(lines) if i != edit.line - 1) == text  # nothing else changed


def _all_steps(tree):
    from scenario_core.language.nodes.walk import step_blocks, walk_steps

    for block in step_blocks(tree):
        yield from walk_steps(block)
