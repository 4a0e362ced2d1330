"""Did-you-mean hints for lines that are one slip away from what the language reads:
`then: stauts 200` (an assertion word mistyped), `GETT /pets` (a request without `when:`, its
method mistyped), `extract token from $.token` (our extract without its colon).

A hint is given only when the corrected line really reads: `then: stats are updated` stays a
custom step's sentence, because `status are updated` is no assertion either."""

from __future__ import annotations

import re

from scenario_core.language.nodes.base import SourceLocation
from scenario_core.language.step_syntax import METHODS, LineError, parse_then

# The words our `then:` and BerryCrush's `assert` start an assertion with.
_THEN_WORDS = ("status", "header", "body", "time", "schema")
_ASSERT_WORDS = ("status", "header", "schema", "responseTime", "contains")
_NOWHERE = SourceLocation("<hint>", 1, 1, 1, 1)
_EXTRACT_OURS = re.compile(r"extract\s+([A-Za-z_][A-Za-z0-9_]*)\s+from\s+(\S.*)", re.IGNORECASE)
_TARGET = re.compile(r"(/|https?://|\{\{)")


def edits(a: str, b: str) -> int:
    """Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
    neighbours (`stauts` is one edit from `status`)."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]


def near(word: str, known: str) -> bool:
    """A slip of `known`: one edit for short words (`tme` for `time`, never `the`), two for longer
    ones, case aside."""
    word, known = word.lower(), known.lower()
    if word == known:
        return True
    return abs(len(word) - len(known)) <= 2 and edits(word, known) <= (1 if len(known) <= 4 else 2)


def _first_word(text: str) -> tuple[str, str]:
    parts = text.split(None, 1)
    return (parts[0], parts[1] if len(parts) > 1 else "") if parts else ("", "")


def assertion_typo(text: str) -> str | None:
    """`stauts 200` -> `status 200`: the `then:` assertion the text meant, or None."""
    word, rest = _first_word(text)
    for known in _THEN_WORDS:
        if word != known and near(word, known):
            meant = f"{known} {rest}".rstrip()
            try:
                parse_then(meant, lambda offset, length: _NOWHERE, _NOWHERE)
            except LineError:
                continue
            return meant
    return None


def condition_typo(text: str) -> str | None:
    """`statuz 200` -> `status 200` in BerryCrush's `assert`, or None."""
    from scenario_core.language.conditions import parse_condition
    from scenario_core.language.nodes.assertions import CustomAssertion

    word, rest = _first_word(text)
    for known in _ASSERT_WORDS:
        if word != known and near(word, known):
            meant = f"{known} {rest}".rstrip()
            try:
                condition = parse_condition(meant, lambda offset, length: _NOWHERE, _NOWHERE)
            except LineError:
                continue
            if not isinstance(condition, CustomAssertion):
                return meant
    return None


def request_typo(line: str) -> str | None:
    """`GETT /pets` or `GET /pets` on a line of its own -> `when: GET /pets`, or None."""
    word, rest = _first_word(line)
    if not _TARGET.match(rest):
        return None
    method = next((m for m in METHODS if near(word, m)), None)
    return f"when: {method} {rest}" if method else None


def extract_typo(line: str, ours: bool) -> str | None:
    """`extract token from $.token` -> `extract: token from $.token` (`ours`: where our steps go)
    or, under a described step, BerryCrush's `extract $.token => token`; None otherwise."""
    found = _EXTRACT_OURS.fullmatch(line.strip())
    if found is None:
        return None
    name, source = found.groups()
    if ours:
        return f"extract: {name} from {source}"
    return f"extract {source} => {name}" if source.startswith("$") else None
