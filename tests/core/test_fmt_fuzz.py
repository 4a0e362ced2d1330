"""fmt over the parser fuzz tests' files: every mutated or reshuffled file that parses, in both
dialects, formats to a text that parses to the same syntax tree, and formatting that again
changes nothing."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scenario_core.editor.formatting import format_text
from scenario_core.language.errors import InvalidFileError
from scenario_core.language.parser import parse_text
from scenario_core.language.tree_compare import tree_difference
from tests.core.test_parser_fuzz import BERRY, PIECES, SCALE, SEED, SEEDS

pytestmark = pytest.mark.fuzz


def _formats_faithfully(text: str) -> None:
    try:
        original = parse_text(text, "fuzz.scenario", keep=False)
    except InvalidFileError:
        return
    formatted = format_text(text, "fuzz.scenario")
    assert formatted.changed_meaning is None, formatted.changed_meaning
    assert tree_difference(original, parse_text(formatted.text, "fuzz.scenario", keep=False)) is None
    assert format_text(formatted.text, "fuzz.scenario").text == formatted.text


@pytest.mark.parametrize("number", range(len(SEEDS)))
def test_every_seed_file_formats_faithfully(number):
    _formats_faithfully(SEEDS[number])


@settings(max_examples=150 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from([SEED, BERRY]),
    st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 6), st.sampled_from(PIECES)), max_size=6),
)
def test_mutated_files_that_parse_format_idempotently_to_the_same_tree(seed, edits):
    text = seed
    for position, delete, piece in edits:
        position %= len(text) + 1
        text = text[:position] + piece + text[position + delete :]
    _formats_faithfully(text)


@settings(max_examples=150 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from([SEED, BERRY]),
    st.integers(1, 4),
    st.lists(st.sampled_from(["", "\n", "   ", "  # note", "\t# tab note", "@t", "#"]), max_size=200),
    st.sampled_from(["\n", "\r\n"]),
)
def test_reindented_files_that_parse_format_idempotently_to_the_same_tree(seed, scale, extras, ending):
    """The same file indented by another width, with blank lines, comments and tags added and
    other line ends: what parses formats faithfully."""
    lines = []
    for number, line in enumerate(seed.split("\n")):
        content = line.lstrip(" ")
        lines.append(" " * ((len(line) - len(content)) * scale // 2) + content.rstrip() + " " * (number % 2))
        if number < len(extras) and extras[number]:
            lines.append(extras[number])
    _formats_faithfully(ending.join(lines))
