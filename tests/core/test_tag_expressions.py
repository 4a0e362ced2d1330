"""`--tags` expressions: precedence, parentheses, the older comma form, and one-line errors with
the column of the problem."""

from __future__ import annotations

import pytest

from scenario_core.language.errors import UsageError
from scenario_core.language.tag_expressions import TagExpressionError, combine, parse_tag_expression


def matches(expression: str, *tags: str) -> bool:
    return parse_tag_expression(expression)(frozenset(tags))


@pytest.mark.parametrize(
    "expression, tags, expected",
    [
        ("smoke", {"smoke"}, True),
        ("smoke", {"pets"}, False),
        ("@smoke", {"smoke"}, True),
        ("smoke and not slow", {"smoke"}, True),
        ("smoke and not slow", {"smoke", "slow"}, False),
        ("not smoke", set(), True),
        ("not not smoke", {"smoke"}, True),
        ("a or b and c", {"a"}, True),  # and binds tighter than or
        ("a or b and c", {"b"}, False),
        ("(a or b) and c", {"a"}, False),
        ("(a or b) and c", {"b", "c"}, True),
        ("not (a or b)", {"b"}, False),
        ("smoke,pets", {"pets"}, True),  # the older comma form: any of
        ("smoke,pets", {"other"}, False),
        ("a and b, c", {"c"}, True),  # the comma is the loosest or
        ("SMOKE AND NOT slow", {"SMOKE"}, True),  # the words in any case; tag names as written
        ("((a))", {"a"}, True),
        ("team:pets", {"team:pets"}, True),
    ],
)
def test_evaluation(expression, tags, expected):
    assert matches(expression, *tags) is expected


@pytest.mark.parametrize(
    "expression, message, column",
    [
        ("", "empty tag expression", 1),
        ("   ", "empty tag expression", 1),
        ("smoke and", "expected a tag, 'not' or '(' but the expression ended", 10),
        ("smoke and or slow", "expected a tag, 'not' or '(' but found 'or'", 11),
        ("(smoke or pets", "'(' is never closed (expected ')')", 15),
        ("smoke)", "unexpected ')' without '('", 6),
        ("smoke slow", "unexpected 'slow' where 'and', 'or' or the end was expected", 7),
        ("smoke,", "expected a tag, 'not' or '(' but the expression ended", 7),
        ("not", "expected a tag, 'not' or '(' but the expression ended", 4),
        ("@ and x", "'@' without a tag name", 1),
    ],
)
def test_errors_name_the_problem_and_its_column(expression, message, column):
    with pytest.raises(TagExpressionError) as caught:
        parse_tag_expression(expression)
    assert str(caught.value) == f"{message} at column {column}"
    assert caught.value.column == column
    assert isinstance(caught.value, UsageError)  # the CLI prints it as one usage line


def test_text_and_named_tags():
    expression = parse_tag_expression("  smoke   and not @slow ")
    assert str(expression) == "smoke and not @slow"
    assert expression.tags() == {"smoke", "slow"}


def test_repeated_options_mean_any_of():
    assert combine([]) is None
    both = combine(["smoke and not slow", "pets"])
    assert both(frozenset({"pets", "slow"}))
    assert both(frozenset({"smoke"}))
    assert not both(frozenset({"smoke", "slow"}))


def test_deep_nesting_is_an_error_not_a_crash():
    # A recursive-descent parser must not end in RecursionError's traceback.
    with pytest.raises(UsageError):
        parse_tag_expression("(" * 5000 + "a" + ")" * 5000)
    with pytest.raises(UsageError):
        parse_tag_expression("not " * 5000 + "a")


def test_execution_takes_an_expression_over_scenario_and_feature_tags(demo, write_scenario):
    from scenario_core.language.parser import load_file
    from scenario_core.parameters.resolution import RunOverrides
    from scenario_core.run import events as ev
    from scenario_core.run.executor import Execution
    from scenario_core.run.options import RunOptions

    path = write_scenario("""
        @pets
        feature: Pets
          @smoke
          scenario: smoke pets
            when: GET /health
          @slow
          scenario: slow pets
            when: GET /health
        @smoke
        scenario: smoke alone
          when: GET /health
    """)
    overrides = RunOverrides.from_cli([], demo.url, [])
    expression = parse_tag_expression("pets and not slow")
    finished = [
        e
        for e in Execution([load_file(str(path))], RunOptions(overrides=overrides, selected=expression)).events()
        if isinstance(e, ev.ScenarioFinished)
    ]
    assert [(e.scenario.name, e.status) for e in finished] == [
        ("smoke pets", ev.PASSED),
        ("slow pets", ev.SKIPPED),
        ("smoke alone", ev.SKIPPED),
    ]
    assert finished[1].message == "not selected by tags (wanted pets and not slow)"
