"""Custom steps' patterns are matched against step text that may hold values from
responses; the match runs with the `regex` package under one deadline for all the patterns of
a registry (`re` backtracked polynomially, `(.*)(.*)(.*)(.*)(.*)(.*) done` on 300 characters ran
for minutes), and a match that runs out fails the step with one line."""

from __future__ import annotations

import time

import regex

from scenario_core.custom_steps.context import StepContext
from scenario_core.custom_steps.registry import Registry


def test_custom_step_patterns_on_a_long_text_match_in_bounded_time():
    registry = Registry()

    @registry.step("{any}{any}{any}{any}{any}{any} done")
    def never(ctx, *parts):
        pass

    started = time.monotonic()
    assert registry.match_step("x" * 3000) is None  # re: minutes; regex: at once
    assert registry.match_step("x" * 3000 + " done").definition.pattern.endswith(" done")  # not stopped
    assert time.monotonic() - started < 60  # only so that a runaway match fails instead of hanging


def test_custom_step_pattern_matching_is_bounded_by_one_deadline_and_fails_in_one_line():
    registry = Registry()

    @registry.step("the text {any}")
    def step(ctx, text):
        pass

    @registry.assertion("the text {any}")
    def assertion(ctx, text):
        pass

    # A pattern that backtracks without end stands in for one the placeholders could build.
    for definition in registry._steps + registry._assertions:
        definition.regex = regex.compile("^(a|a)*$")
    started = time.monotonic()
    message = registry.run_step("a" * 40 + "!", StepContext())
    assert time.monotonic() - started < 60  # only so that a runaway match fails instead of hanging
    assert message.startswith('matching "aaaa') and "took longer than 1 s and was stopped" in message
    assert "\n" not in message
    assert "took longer than" in registry.run_assertion("a" * 40 + "!", StepContext())
    assert registry.candidates("step", "a" * 40 + "!") == registry._steps  # check cannot tell: no false error
