"""fmt's canonical layout (docs/fmt.md): two spaces per level, one space after a colon, blank
lines between top-level blocks, comments where they were, line ends and BOM kept; the syntax tree
never changes and formatting twice changes nothing."""

from __future__ import annotations

import pytest

from scenario_core.editor.formatting import format_bytes, format_text
from scenario_core.editor.writeback import WriteBackError
from scenario_core.language.errors import InvalidFileError
from scenario_core.language.parser import parse_text
from scenario_core.language.tree_compare import same_tree, tree_difference

MESSY = """

# the file's own comment
parameters:
    baseUrl:http://127.0.0.1:8000
    timeout:   5
@smoke


scenario:   health
    # before the request
    when:  GET /health
        headers:
            Accept:   application/json
    then: status 200   # a trailing comment keeps its spacing
           # a comment deeper than any step
    then: $.status == "ok"
# about the feature
feature: Pets
    scenario: create
        when: POST /pets
            body:
                {
                    "name": "Rex",
                    "tag": "dog"
                }
        then: status 201



    scenario: text
        when: POST /notes
            body: \"\"\"
          kept   as written
               here
          \"\"\"
        then: status 200


"""

CANONICAL = """# the file's own comment
parameters:
  baseUrl: http://127.0.0.1:8000
  timeout: 5

@smoke
scenario: health
  # before the request
  when: GET /health
    headers:
      Accept: application/json
  then: status 200   # a trailing comment keeps its spacing
    # a comment deeper than any step
  then: $.status == "ok"

# about the feature
feature: Pets
  scenario: create
    when: POST /pets
      body:
        {
            "name": "Rex",
            "tag": "dog"
        }
    then: status 201

  scenario: text
    when: POST /notes
      body: \"\"\"
          kept   as written
               here
          \"\"\"
    then: status 200
"""


def test_a_messy_file_takes_the_canonical_layout_and_says_the_same():
    formatted = format_text(MESSY, "messy.scenario")
    assert formatted.changed_meaning is None
    assert formatted.text == CANONICAL
    assert same_tree(parse_text(MESSY, "messy.scenario"), parse_text(formatted.text, "messy.scenario"))


def test_formatting_twice_changes_nothing():
    once = format_text(MESSY, "messy.scenario").text
    assert format_text(once, "messy.scenario").text == once


def test_a_json_body_keeps_its_inner_indentation_and_a_text_block_its_lines():
    tree = parse_text(format_text(MESSY, "m.scenario").text, "m.scenario")
    create, text = tree.items[1].scenarios
    assert create.steps[0].body.text == '{\n    "name": "Rex",\n    "tag": "dog"\n}'
    assert text.steps[0].body_raw.text == "kept   as written\n     here"


@pytest.mark.parametrize("ending", ["\r\n", "\r"])
def test_the_files_line_ends_are_kept(ending):
    formatted = format_text(MESSY.replace("\n", ending), "m.scenario").text
    assert formatted == CANONICAL.replace("\n", ending)


def test_a_bom_is_kept_and_a_formatted_file_is_returned_byte_for_byte():
    data = ("\ufeff" + MESSY).encode("utf-8")
    after, _ = format_bytes(data, "m.scenario")
    assert after == ("\ufeff" + CANONICAL).encode("utf-8")
    again, _ = format_bytes(after, "m.scenario")
    assert again is after


def test_a_file_without_a_final_line_end_gets_one():
    assert format_text("scenario: s\n  when: GET /a", "s.scenario").text == "scenario: s\n  when: GET /a\n"


def test_berrycrush_described_steps_and_tables_are_indented_by_level():
    text = (
        "Feature: F\n"
        "    Scenario: s\n"
        "        when I call it\n"
        "            call ^createPet\n"
        '                header_X:  "a"\n'
        "            assert status 201\n"
        "            extract $.id => id\n"
        "Outline: o\n"
        "    when I make {{n}}\n"
        "        call ^createPet\n"
        "    Examples:\n"
        "        | n |\n"
        "        | 1 |\n"
    )
    formatted = format_text(text, "b.scenario").text
    assert formatted == (
        "Feature: F\n"
        "  Scenario: s\n"
        "    when I call it\n"
        "      call ^createPet\n"
        '        header_X: "a"\n'
        "      assert status 201\n"
        "      extract $.id => id\n"
        "\n"
        "Outline: o\n"
        "  when I make {{n}}\n"
        "    call ^createPet\n"
        "  Examples:\n"
        "    | n |\n"
        "    | 1 |\n"
    )
    assert tree_difference(parse_text(text, "b.scenario"), parse_text(formatted, "b.scenario")) is None


def test_a_tag_line_stays_with_its_block_and_comments_above_a_block_stay_with_it():
    text = "scenario: a\n  when: GET /a\n# about b\n@t  # why\n# more\nscenario: b\n  when: GET /b\n"
    assert format_text(text, "t.scenario").text == (
        "scenario: a\n  when: GET /a\n\n# about b\n@t  # why\n# more\nscenario: b\n  when: GET /b\n"
    )


def test_an_invalid_file_is_not_formatted():
    with pytest.raises(InvalidFileError):
        format_text("scenario: s\n  when: FETCH /a\n", "bad.scenario")


def test_bytes_that_are_not_utf8_are_refused_with_their_place():
    with pytest.raises(WriteBackError, match=r"^bad.scenario:2:3: the file is not UTF-8 text"):
        format_bytes(b"scenario: s\n  \xff\n", "bad.scenario")


def test_tree_difference_names_what_differs_and_ignores_where():
    first = parse_text("scenario: s\n  when: GET /a\n", "x.scenario")
    moved = parse_text("\n\nscenario:   s\n    when: GET /a\n", "x.scenario")
    other = parse_text("scenario: s\n  when: GET /b\n", "x.scenario")
    assert tree_difference(first, moved) is None
    assert "'/a' != '/b'" in tree_difference(first, other)


def test_examples_tables_are_aligned_in_columns_and_read_the_same():
    text = (
        "outline: o\n"
        "  when: POST /pets\n"
        '    body: {"name": "{{name}}"}\n'
        "  examples:\n"
        '    | name | "age" |\n'
        "    |  Fluffy Dog  | 3 |\n"
        '    |"a|b"|12|\n'
    )
    formatted = format_text(text, "t.scenario")
    assert formatted.changed_meaning is None
    assert formatted.text.endswith(
        '  examples:\n    | name       | "age" |\n    | Fluffy Dog | 3     |\n    | "a|b"      | 12    |\n'
    )
    assert tree_difference(parse_text(text, "t.scenario"), parse_text(formatted.text, "t.scenario")) is None


def test_comments_before_the_first_block_go_to_the_left_margin():
    text = "   # about the file\n\n\n  # and more\nscenario: s\n  when: GET /a\n"
    assert format_text(text, "c.scenario").text == "# about the file\n\n# and more\nscenario: s\n  when: GET /a\n"
