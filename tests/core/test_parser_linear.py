"""The parser and checker in linear time, and every limit a located `check` error (hardening).

Each input below is sized so that the quadratic or exponential parser this guards against
(operators searched for after every space, `{{` matched by a scan per opening, a tag line split
tag by tag, includes expanded instead of measured) would take minutes on it, while the parser
today takes well under a second. BOUND sits between the two with a wide margin either side, so a
machine ten times slower than usual still passes and the old behaviour still fails; it is a
ceiling on runaway work, not a speed measurement (the benchmarks in bench/ measure speed)."""

from __future__ import annotations

import time

import pytest

from scenario_core.language.errors import InvalidFileError
from scenario_core.language.nodes.steps import MAX_INCLUDE_DEPTH, MAX_PLANNED_STEPS
from scenario_core.language.parser import load_file, parse_text
from scenario_core.run.events import ScenarioFinished, StepFinished
from scenario_core.run.executor import run_to_completion

BOUND = 20.0  # seconds, in process: today < 0.6 s for every input; the old parser took minutes


def errors_within_bound(text: str, max_errors: int | None = 100) -> list[str]:
    started = time.perf_counter()
    try:
        parse_text(text, "t.scenario", max_errors=max_errors)
        found = []
    except InvalidFileError as error:
        found = [str(d) for d in error.diagnostics]
    assert time.perf_counter() - started < BOUND
    return found


def test_linear_fragments_that_include_the_next_one_twice():
    lines = []
    for i in range(24):
        lines.append(f"fragment: f{i}")
        lines += [f"  include: f{i + 1}"] * 2 if i < 23 else ["  then: status 200"]
    lines += ["scenario: s", "  when: GET http://127.0.0.1:9/x", "  include: f0"]
    found = errors_within_bound("\n".join(lines) + "\n")
    # 2^23 steps behind f0: refused where the expansion passes the limit, never run.
    assert found[0] == (
        "t.scenario:2:3: error: include of 'f1' expands to over 10,000 steps (includes inside "
        "fragments multiply); a block runs at most 10,000 steps"
    )
    assert any(line.startswith("t.scenario:74:3: error: include of 'f0' expands to over 10,000") for line in found)


def test_linear_300000_unclosed_braces():
    # 300,000 openings: a scan per opening to find its close is 300,000 x 600,000 characters.
    found = errors_within_bound("scenario: s\n  when: GET http://127.0.0.1:9/" + "{{" * 300_000 + "\n")
    assert found == ["t.scenario:2:32: error: '{{' is not closed by '}}'"]


@pytest.mark.parametrize(
    "line, message",
    [
        ("  then: $.a" + " " * 1_000_000 + "x == 1", "t.scenario:3:9: error: invalid JSON path '$.a "),
        ("  then: body" + " " * 1_000_000 + "x", "t.scenario:3:9: error: a body assertion reads like"),
        ("  then:" + " " * 1_000_000, "t.scenario:3:8: error: then: needs an assertion"),
        ("  then: status" + " " * 1_000_000 + "200", None),
    ],
    ids=["json-path", "body", "nothing", "status"],
)
def test_linear_a_megabyte_of_spaces_after_then(line, message):
    found = errors_within_bound("scenario: s\n  when: GET http://127.0.0.1:9/\n" + line + "\n")
    if message is None:
        assert found == []
    else:
        assert len(found) == 1 and found[0].startswith(message) and len(found[0]) < 700


def test_linear_a_three_megabyte_line_of_tags():
    started = time.perf_counter()
    file = parse_text("@a@b " + "@t " * 1_000_000 + "\nscenario: s\n  when: GET http://127.0.0.1:9/\n", "t.scenario")
    assert time.perf_counter() - started < BOUND
    assert file.scenarios[0].tags == frozenset({"a", "b", "t"})


@pytest.mark.parametrize("defined", [0, 1000], ids=["no-fragments", "1000-fragments"])
def test_linear_1000_includes_of_unknown_fragments(defined):
    # What this shows is every unknown include reported at its line and the cap on what check
    # prints; BOUND here only stops a runaway (each unknown name is compared with every defined
    # one, so the 1000-fragment case is the slowest input in this file, 0.4-0.6 s).
    text = "".join(f"fragment: frag{i:04d}\n  then: status 200\n" for i in range(defined))
    text += "scenario: s\n" + "".join(f"  include: miss{i:04d}\n" for i in range(1000))
    found = errors_within_bound(text, max_errors=None)
    assert len(found) == 1000
    assert all("include of unknown fragment 'miss" in line and len(line) < 400 for line in found)
    capped = errors_within_bound(text)  # what check prints: the first 100, then how many more
    assert capped[:100] == found[:100] and capped[100:] == [
        f"t.scenario:{2 * defined + 102}:3: error: ... and 900 more errors"
    ]


def test_linear_30000_includes_of_unknown_fragments_among_30000():
    # Each unknown name was measured against every defined one: 30,000 x 30,000 length tests, about
    # two minutes. Past the did-you-mean budget an unknown include costs nothing more (~2 s in all).
    text = "".join(f"fragment: frag{i:05d}\n  then: status 200\n" for i in range(30_000))
    text += "scenario: s\n" + "".join(f"  include: miss{i:05d}\n" for i in range(30_000))
    found = errors_within_bound(text)
    assert found[0] == (
        "t.scenario:60002:3: error: include of unknown fragment 'miss00000'; fragments in this file: "
        + ", ".join(f"frag{i:05d}" for i in range(20))
        + " and 29980 more"
    )
    assert found[100:] == ["t.scenario:60102:3: error: ... and 29900 more errors"]


def _nested(levels: int) -> str:
    """A scenario whose include chain is `levels` deep, each fragment adding one step."""
    lines = []
    for i in range(levels):
        lines += [f"fragment: f{i}", "  then: status 200"]
        if i + 1 < levels:
            lines.append(f"  include: f{i + 1}")
    return "\n".join(lines) + "\nscenario: s\n  when: GET /health\n  include: f0\n"


def test_no_silent_false_pass_includes_nested_past_the_limit_are_a_check_error():
    found = errors_within_bound(_nested(MAX_INCLUDE_DEPTH + 1))
    assert found == [
        f"t.scenario:{3 * (MAX_INCLUDE_DEPTH + 1) + 2}:3: error: includes nest {MAX_INCLUDE_DEPTH + 1} levels "
        f"deep here (f0 → f1 → f2 → f3 → …); the limit is {MAX_INCLUDE_DEPTH}"
    ]


def test_no_silent_false_pass_includes_at_the_limit_run_every_step(demo, write_scenario):
    path = write_scenario(
        _nested(MAX_INCLUDE_DEPTH)
        .replace("scenario: s\n", f"scenario: s\n  when: GET {demo.url}/health\n", 1)
        .replace("  when: GET /health\n", "")
    )
    events = run_to_completion([load_file(path)])
    steps = [e for e in events if isinstance(e, StepFinished)]
    assert len(steps) == 1 + MAX_INCLUDE_DEPTH and all(e.status == "passed" for e in steps)
    assert [e.status for e in events if isinstance(e, ScenarioFinished)] == ["passed"]


def test_no_silent_false_pass_a_block_over_the_step_limit_is_a_check_error():
    text = "fragment: many\n" + "  then: status 200\n" * (MAX_PLANNED_STEPS // 2 + 1)
    text += "scenario: s\n  when: GET http://127.0.0.1:9/\n  include: many\n  include: many\n"
    found = errors_within_bound(text)
    assert found == [
        f"t.scenario:{MAX_PLANNED_STEPS // 2 + 6}:3: error: include of 'many' expands to "
        f"{MAX_PLANNED_STEPS // 2 + 1:,} steps (includes inside fragments multiply); a block runs at "
        f"most {MAX_PLANNED_STEPS:,} steps"
    ]


def test_a_fragment_cycle_is_reported_once_however_it_is_reached():
    found = errors_within_bound(
        "fragment: a\n  include: b\nfragment: b\n  include: c\nfragment: c\n"
        "  include: a\n  include: b\nscenario: s\n  include: a\n"
    )
    assert found == ["t.scenario:1:1: error: fragment includes itself: a → b → c → a"]


@pytest.mark.parametrize(
    "text, message",
    [
        (
            'scenario: s\n  when: POST /x\n    body: {"n": ' + "1" * 5000 + "}\n",
            "t.scenario:3:17: error: body: an integer of 5000 digits is too long (the limit is 4300)",
        ),
        (
            "scenario: s\n  when: GET /x\n  then: $.n == " + "1" * 5000 + "\n",
            "t.scenario:3:16: error: an integer of 5000 digits is too long (the limit is 4300)",
        ),
        (
            "parameters:\n  count: -" + "1" * 5000 + "\nscenario: s\n  when: GET /x\n",
            "t.scenario:2:10: error: an integer of 5000 digits is too long (the limit is 4300)",
        ),
    ],
    ids=["body", "assertion", "user-parameter"],
)
def test_no_traceback_on_integers_over_4300_digits_in_json_literals(text, message):
    assert errors_within_bound(text) == [message]
