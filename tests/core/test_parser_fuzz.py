"""Fuzzing the parser: mutated valid files either parse or raise the project's own error."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from scenario_core.errors import InvalidFileError
from scenario_core.parser import parse_text

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SEED = (EXAMPLES / "pets.scenario").read_text(encoding="utf-8") if (EXAMPLES / "pets.scenario").exists() else ""
SEED += """
parameters:
  timeout: 5
@t
feature: F ☃ [x]
  description: d
  parameters:
    shareVariablesAcrossScenarios: true
  background:
    when: POST /login
      headers:
        X-A: {{a}}
      body:
        {"u": "{{u}}",
         "n": {{n}}}
  scenario: s
    include: frag
    then: $.a[?(@.b > 1)] == [1, "x", {"y": null}]
    then: header Content-Type contains "json"
    extract: v from header Location
fragment: frag
  then: time < 2s
"""
PIECES = ["\n", "  ", "\t", ":", "#", "{{", "}}", "@", "\"", "{", "[", "$", "feature:", "scenario:",
          "parameters:", "background:", "when: GET /x", "then: status 200", "body:", "\r\n", "\ufeff", "é"]


def _check(text: str) -> None:
    try:
        parse_text(text, "fuzz.scenario")
    except InvalidFileError as error:
        assert error.diagnostics and all(": error: " in str(d) for d in error.diagnostics)
        for diagnostic in error.diagnostics:
            assert diagnostic.location.line >= 1 and diagnostic.location.column >= 1
            assert "\n" not in diagnostic.message


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 6), st.sampled_from(PIECES)), max_size=6))
def test_mutated_valid_files_raise_only_the_projects_error(edits):
    text = SEED
    for position, delete, piece in edits:
        position %= len(text) + 1
        text = text[:position] + piece + text[position + delete:]
    _check(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(SEED.splitlines()), max_size=25), st.lists(st.integers(0, 8), max_size=25))
def test_shuffled_and_reindented_lines_raise_only_the_projects_error(lines, indents):
    text = "\n".join(" " * (indents[i] if i < len(indents) else 0) + line.strip() for i, line in enumerate(lines))
    _check(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text_raises_only_the_projects_error(text):
    _check(text)
