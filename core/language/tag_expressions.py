"""`--tags` expressions: `smoke and not slow`, `(smoke or pets) and not wip`, and the older comma
form `smoke,pets` ("any of"), read by a small recursive-descent parser.

    expression := any ("," any)*          -- a comma is the loosest "or" (the older form)
    any        := all ("or" all)*
    all        := unary ("and" unary)*
    unary      := "not" unary | "(" expression ")" | TAG

A TAG is a run of characters other than spaces, parentheses and commas; a leading `@` is
dropped (`@smoke` is `smoke`). The words and/or/not are read in any case. A scenario matches
with its own tags and its feature's. A bad expression raises TagExpressionError naming the
problem and its column (1-based)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable, Iterable

from scenario_core.language.errors import UsageError
from scenario_core.support.records import dataclass

if TYPE_CHECKING:
    from scenario_core.language.nodes.blocks import ScenarioFileNode

Predicate = Callable[[frozenset[str]], bool]
_TOKEN = re.compile(r"\s*(?:(?P<punct>[(),])|(?P<word>[^\s(),]+))")
_WORDS = {"and", "or", "not"}
MAX_DEPTH = 100  # of parentheses and `not`s: deeper is refused, not a RecursionError


class TagExpressionError(UsageError):
    def __init__(self, message: str, column: int):
        super().__init__(f"{message} at column {column}")
        self.column = column


@dataclass(frozen=True)
class TagExpression:
    """A callable predicate over a scenario's tags; str() gives the expression as written."""

    text: str
    test: Predicate

    def __call__(self, tags: frozenset[str]) -> bool:
        return self.test(tags)

    def __str__(self) -> str:
        return self.text

    def tags(self) -> frozenset[str]:
        """Every tag the expression names (for messages)."""
        return frozenset(
            w.lstrip("@") for _, w, kind in _tokens(self.text) if kind == "word" and w.lower() not in _WORDS
        )


def _tokens(text: str) -> list[tuple[int, str, str]]:
    """(column, text, kind) of each token; kind is 'punct' or 'word'."""
    out: list[tuple[int, str, str]] = []
    at = 0
    while True:
        match = _TOKEN.match(text, at)
        if match is None:  # only whitespace is left
            return out
        kind = "punct" if match.group("punct") else "word"
        out.append((match.start(kind) + 1, match.group(kind), kind))
        at = match.end()


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens = _tokens(text)
        self.at = 0
        self.depth = 0

    def peek(self) -> str | None:
        if self.at < len(self.tokens):
            _, word, kind = self.tokens[self.at]
            return word.lower() if kind == "word" and word.lower() in _WORDS else word
        return None

    def column(self) -> int:
        return self.tokens[self.at][0] if self.at < len(self.tokens) else len(self.text.rstrip()) + 1

    def parse(self) -> Predicate:
        if not self.tokens:
            raise TagExpressionError("empty tag expression", 1)
        test = self.expression()
        if self.at < len(self.tokens):
            found = self.tokens[self.at][1]
            what = "')' without '('" if found == ")" else f"'{found}' where 'and', 'or' or the end was expected"
            raise TagExpressionError(f"unexpected {what}", self.column())
        return test

    def expression(self) -> Predicate:
        parts = [self.any()]
        while self.peek() == ",":
            self.at += 1
            parts.append(self.any())
        return parts[0] if len(parts) == 1 else (lambda tags: any(p(tags) for p in parts))

    def any(self) -> Predicate:
        parts = [self.all()]
        while self.peek() == "or":
            self.at += 1
            parts.append(self.all())
        return parts[0] if len(parts) == 1 else (lambda tags: any(p(tags) for p in parts))

    def all(self) -> Predicate:
        parts = [self.unary()]
        while self.peek() == "and":
            self.at += 1
            parts.append(self.unary())
        return parts[0] if len(parts) == 1 else (lambda tags: all(p(tags) for p in parts))

    def unary(self) -> Predicate:
        token = self.peek()
        column = self.column()
        if token is None:
            raise TagExpressionError("expected a tag, 'not' or '(' but the expression ended", column)
        if token in ("not", "("):
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise TagExpressionError(f"nested more than {MAX_DEPTH} levels deep", column)
            try:
                return self.nested(token)
            finally:
                self.depth -= 1
        if token in (")", ",", "and", "or"):
            raise TagExpressionError(f"expected a tag, 'not' or '(' but found '{self.tokens[self.at][1]}'", column)
        self.at += 1
        name = token.lstrip("@")
        if not name:
            raise TagExpressionError("'@' without a tag name", column)
        return lambda tags: name in tags

    def nested(self, token: str) -> Predicate:
        if token == "not":
            self.at += 1
            inner = self.unary()
            return lambda tags: not inner(tags)
        self.at += 1  # "("
        inner = self.expression()
        if self.peek() != ")":
            raise TagExpressionError("'(' is never closed (expected ')')", self.column())
        self.at += 1
        return inner


def parse_tag_expression(text: str) -> TagExpression:
    """Parse one expression; raises TagExpressionError (a UsageError)."""
    return TagExpression(" ".join(text.split()), _Parser(text).parse())


def combine(texts: Iterable[str]) -> TagExpression | None:
    """Several `--tags` options: a scenario is selected when any of them selects it (the older
    repeated form kept meaning "any of"). None when there are none."""
    texts = list(texts)
    if not texts:
        return None
    parsed = [parse_tag_expression(t) for t in texts]
    if len(parsed) == 1:
        return parsed[0]
    return TagExpression(" , ".join(f"({p.text})" for p in parsed), lambda tags: any(p(tags) for p in parsed))


def selects_any(files: Iterable[ScenarioFileNode], selected: Callable[[frozenset[str]], bool] | None) -> bool:
    """Whether `selected` (None: everything) picks at least one scenario of the files; a
    scenario carries its feature's tags too."""
    if selected is None:
        return True
    return any(
        selected(scenario.tags | feature.tags if feature is not None else scenario.tags)
        for file in files
        for scenario, feature in file.scenarios_in_order()
    )
