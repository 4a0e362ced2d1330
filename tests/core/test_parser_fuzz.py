"""Fuzzing the parser: mutated valid files either parse or raise the project's own error."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scenario_core.language.errors import InvalidFileError
from scenario_core.language.parser import parse_text

# .ci/run's fuzz budget runs the `fuzz` tests with SCENARIO_FUZZ_SCALE times their examples.
SCALE = int(os.environ.get("SCENARIO_FUZZ_SCALE", "1"))
pytestmark = pytest.mark.fuzz

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
SEED += """
scenario: operation calls
  when: using auth ^login
    body:
      name: Max
      owner:
        id: {{id}}
  when: ^getPetById
    id: 1
    query_x: "a b"
    bodyFile: "x.json"
  then: schema
"""
# The v3 forms: user parameters, status -1, Jayway functions and filters.
SEED += """
scenario: v3 forms
  parameters:
    tenant.port: 8443
    apiFlavour: "{{param.tenant.port}}"
  when I call
    call ^listPets
    assert status -1
    assert $.length() >= 1
    assert $[?(@.name in ['a', "b"])].id.max() == 3
    extract $.items[?(@.x == 'y')].n.sum() => total
    if status -1 and $.s.concat('x', $.o.k) equals "ax1"
      fail "x"
  when: GET /pets
  then: status -1
  then: $.pets[*].n.stddev() < 2
"""
# BerryCrush's dialect (docs/spec/berrycrush.md): described steps and their directives, if chains, outlines,
# include arguments, webhooks, scenario parameters, triple-quoted bodies, comments after content;
# a scenario's description:, tags:, finally: lines and include straight under it.
BERRY = r'''
PARAMETERS:  # file level
  binding:
    auth:
      location: "classpath:/specs/auth.yaml"
  autoAssertions:
    enabled: true
parameters: shared
  header.X-Suite: fuzz
fragment: sign_in
  given I sign in as {{user}}
    call using "auth" ^login
      body: {"username": "{{user}}", "password": "demo"}
    assert status 200
    extract $.token => token
@api @wip  # tags
Feature: Pets
  Background:
    Given: I am signed in
      include sign_in
        user: "demo"
  Scenario: create it
    description: the sample's own words
    parameters:
      << shared
      timeout: 5
      fragment-name: sign_in
    include sign_in
      user: "again"
    WHEN I create a pet
      call ^createPet
        header_Authorization: "Bearer {{token}}"
        id = 1
        query_limit: 2
        body:
          name: "Rex"
          owner:
            id: {{ownerId}}
        auto: [invalid security]
      assert status 201
      extract "$.id" => {{petId}}
    then: it is there  # described
      call getPetById
        id: {{petId}}
      if status 404
        fail "pet {{petId}} is gone"
      else if $.id exists
        if $.name equals "Rex"
          extract $.name => name
      else
        fail unexpected
    and the raw body goes
      call ^createPet
        body: """
          {"name": "\{{literal}}", "a": "x # y"}
          """
      call ^createPet
        bodyFile: "classpath:templates/pet.json"
    but a webhook listens
      webhook: events
        hooks: [created, deleted]
        port: 0
        scope: feature
      webhook: more
        hooks:
          - started
          - "ended"
    and the newest forms go
      call using {{spec}} {{op}}
      call using auth raw {{method}} /pets/{id}
        id: 1
        header_X-Trace: abc
      call using auth {{endpoint}}
        {{pathVariable}}: {{value}}
      include {{param.fragment-name}}
        user: "third"
        {{param.fragment-name}}: 1
    when: GET /a#b  # ours
    then: status 200
Outline: many
  description: one pet per row
  tags: rows, @pets
  when I create {{name}}
    call ^createPet
      body: {"name": "{{name}}", "age": {{age}}}
  Finally: clean up
    call ^deletePet
      id: {{name}}
    include sign_in
  Examples:
    | name         | "age" |
    |  Fluffy Dog  | 3     |
    | 'Rex'        | 4     |
'''
SEEDS = [SEED, BERRY] + [p.read_text(encoding="utf-8") for p in sorted(EXAMPLES.glob("*.scenario"))]
SEEDS += [p.read_text(encoding="utf-8") for p in sorted(EXAMPLES.glob("*/**/*.scenario"))]
SEEDS += [p.read_text(encoding="utf-8") for p in sorted(EXAMPLES.glob("*/**/*.fragment"))]
PIECES = [
    "\n",
    "  ",
    "\t",
    ":",
    "#",
    "{{",
    "}}",
    "@",
    '"',
    "{",
    "[",
    "$",
    "feature:",
    "scenario:",
    "parameters:",
    "background:",
    "when: GET /x",
    "then: status 200",
    "body:",
    "\r\n",
    "\ufeff",
    "é",
    "\x00",
    "\x1b[2J",
    "\u2028",
    "^",
    "using ",
    "include: ",
    " " * 3000,
    "{{" * 500,
    "@t " * 500,
    "9" * 5000,
    'matches "(a+"',
    "then: schema",
    # BerryCrush's words and shapes
    "given ",
    "When ",
    "call ^",
    "call using ",
    "assert status 200",
    "extract $.a => ",
    "=>",
    "include ",
    "if status 200",
    "else if ",
    "else",
    'fail "',
    "webhook: w",
    "hook: h",
    "outline: o",
    "examples:",
    "| a |",
    "|",
    '"""',
    "bodyFile: ",
    "auto: [",
    "query_",
    "header_",
    " = ",
    "\\{{",
    "{{env.",
    "'",
    "Scenario:",
    "FRAGMENT: f",
    "@t # c",
]


def _check(text: str) -> None:
    try:
        parse_text(text, "fuzz.scenario")
    except InvalidFileError as error:
        assert error.diagnostics and all(": error: " in str(d) for d in error.diagnostics)
        for diagnostic in error.diagnostics:
            assert diagnostic.location.line >= 1 and diagnostic.location.column >= 1
            assert "\n" not in diagnostic.message


@settings(max_examples=400 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 6), st.sampled_from(PIECES)), max_size=6))
def test_mutated_valid_files_raise_only_the_projects_error(edits):
    text = SEED
    for position, delete, piece in edits:
        position %= len(text) + 1
        text = text[:position] + piece + text[position + delete :]
    _check(text)


@settings(max_examples=200 * SCALE, deadline=None)
@given(st.lists(st.sampled_from(SEED.splitlines()), max_size=25), st.lists(st.integers(0, 8), max_size=25))
def test_shuffled_and_reindented_lines_raise_only_the_projects_error(lines, indents):
    text = "\n".join(" " * (indents[i] if i < len(indents) else 0) + line.strip() for i, line in enumerate(lines))
    _check(text)


@settings(max_examples=200 * SCALE, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text_raises_only_the_projects_error(text):
    _check(text)


@settings(max_examples=200 * SCALE, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(range(len(SEEDS))),
    st.lists(
        st.tuples(
            st.sampled_from(["delete", "duplicate", "swap", "insert", "indent"]),
            st.integers(0, 10_000),
            st.integers(0, 10_000),
            st.sampled_from(PIECES),
        ),
        max_size=8,
    ),
)
def test_line_mutations_of_every_example_raise_only_the_projects_error(seed, edits):
    """Whole lines deleted, duplicated, swapped, re-indented, or given hostile pieces (control
    characters, long runs, huge numbers, broken patterns), over every bundled example."""
    lines = SEEDS[seed].split("\n")
    for kind, a, b, piece in edits:
        if not lines:
            break
        i, j = a % len(lines), b % len(lines)
        if kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, lines[i])
        elif kind == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "insert":
            position = b % (len(lines[i]) + 1)
            lines[i] = lines[i][:position] + piece + lines[i][position:]
        else:
            lines[i] = " " * (b % 9) + lines[i].lstrip()
    _check("\n".join(lines))


def test_berrycrush_seed_parses():
    """The BerryCrush seed is valid, so its mutations start from a file that reads."""
    parse_text(BERRY, "berry.scenario")


@settings(max_examples=300 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 6), st.sampled_from(PIECES)), max_size=6))
def test_mutated_berrycrush_files_raise_only_the_projects_error(edits):
    text = BERRY
    for position, delete, piece in edits:
        position %= len(text) + 1
        text = text[:position] + piece + text[position + delete :]
    _check(text)


@settings(max_examples=200 * SCALE, deadline=None)
@given(st.lists(st.sampled_from(BERRY.splitlines()), max_size=30), st.lists(st.integers(0, 10), max_size=30))
def test_shuffled_and_reindented_berrycrush_lines_raise_only_the_projects_error(lines, indents):
    text = "\n".join(" " * (indents[i] if i < len(indents) else 0) + line.strip() for i, line in enumerate(lines))
    _check(text)
