"""Step patterns: how `@step("the pet {string} is {word}")` text matches a description.

Placeholders: `{string}` ("…" or '…', passed unquoted), `{int}`, `{float}`, `{word}` (letters,
digits, _), `{any}` (anything, also nothing); all other text matches literally. A pattern is a
regular expression for the run (the text is known) and, built on demand, a small automaton for
check time (the text's `{{references}}` are still unknown).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable, Sequence, TypeVar

# A step or assertion function: a decorator registers it and hands it back unchanged.
StepFunction = TypeVar("StepFunction", bound=Callable[..., Any])

# Each placeholder: its regular expression (one group) and how the matched text becomes a value.
_PLACEHOLDERS: dict[str, tuple[str, Callable[[str], object]]] = {
    "string": (r"(\"[^\"]*\"|'[^']*')", lambda s: s[1:-1]),
    "int": (r"(-?\d+)", int),
    "float": (r"(-?(?:\d+(?:\.\d+)?|\.\d+))", float),
    "word": (r"(\w+)", str),
    "any": (r"(.*)", str),
}
_PLACEHOLDER = re.compile(r"\{([A-Za-z_]\w*)\}")


# A pattern piece: (literal text, None) or ("", placeholder kind).
_Token = tuple[str, str | None]


def _tokens(pattern: str) -> tuple[_Token, ...]:
    tokens: list[_Token] = []
    position = 0
    for found in _PLACEHOLDER.finditer(pattern):
        kind = found.group(1)
        if kind not in _PLACEHOLDERS:
            raise ValueError(
                f"unknown placeholder {{{kind}}} in pattern {pattern!r}; "
                "use {string}, {int}, {float}, {word} or {any}"
            )
        if found.start() > position:
            tokens.append((pattern[position : found.start()], None))
        tokens.append(("", kind))
        position = found.end()
    if position < len(pattern):
        tokens.append((pattern[position:], None))
    return tuple(tokens)


class _Nfa:
    """The pattern as a small automaton, to ask at check time whether a description whose
    `{{references}}` are still unknown (any text) could match it: regular expressions cannot
    be intersected, an automaton walked over the description's characters and holes can."""

    def __init__(self, tokens: tuple[_Token, ...]):
        self.edges: list[list[tuple[re.Pattern[str] | None, int]]] = [[]]  # None: an empty move
        end = 0
        for literal, kind in tokens:
            if kind is None:
                for char in literal:
                    end = self._edge(end, re.compile(re.escape(char)))
            else:
                end = getattr(self, "_" + kind)(end)
        self.accept = end

    def _state(self) -> int:
        self.edges.append([])
        return len(self.edges) - 1

    def _edge(self, source: int, test: re.Pattern[str] | None, target: int | None = None) -> int:
        target = self._state() if target is None else target
        self.edges[source].append((test, target))
        return target

    def _repeat(self, source: int, test: re.Pattern[str]) -> int:  # test+
        end = self._edge(source, test)
        self._edge(end, test, end)
        return end

    def _signed(self, source: int) -> int:  # -?
        after = self._edge(source, re.compile("-"))
        self._edge(source, None, after)
        return after

    def _int(self, source: int) -> int:
        return self._repeat(self._signed(source), re.compile(r"\d"))

    def _float(self, source: int) -> int:  # -?(\d+(\.\d+)?|\.\d+)
        digit, dot = re.compile(r"\d"), re.compile(r"\.")
        start = self._signed(source)
        whole = self._repeat(start, digit)
        fraction = self._repeat(self._edge(whole, dot), digit)
        bare_fraction = self._repeat(self._edge(start, dot), digit)
        end = self._state()
        for state in (whole, fraction, bare_fraction):
            self._edge(state, None, end)
        return end

    def _word(self, source: int) -> int:
        return self._repeat(source, re.compile(r"\w"))

    def _any(self, source: int) -> int:
        self._edge(source, re.compile(".", re.DOTALL), source)
        return source

    def _string(self, source: int) -> int:
        end = self._state()
        for quote in "\"'":
            inside = self._edge(source, re.compile(re.escape(quote)))
            self._edge(inside, re.compile(f"[^{quote}]"), inside)
            self._edge(inside, re.compile(re.escape(quote)), end)
        return end

    def _closure(self, states: set[int]) -> set[int]:
        pending = list(states)
        while pending:
            for test, target in self.edges[pending.pop()]:
                if test is None and target not in states:
                    states.add(target)
                    pending.append(target)
        return states

    def could_match(self, pieces: Sequence[str | None]) -> bool:
        """pieces: characters of the description, None for a reference (any text, also none)."""
        states = self._closure({0})
        for piece in pieces:
            if piece is None:  # every character test accepts some character: follow them all
                pending = list(states)
                while pending:
                    for _, target in self.edges[pending.pop()]:
                        if target not in states:
                            states.add(target)
                            pending.append(target)
            else:
                states = self._closure(
                    {t for s in states for test, t in self.edges[s] if test is not None and test.fullmatch(piece)}
                )
            if not states:
                return False
        return self.accept in states


# Matching one text against every pattern of a registry gets this long, all patterns together.
MATCH_SECONDS = 1.0


class PatternTooSlow(ValueError):
    """Matching a text against the custom patterns took longer than MATCH_SECONDS; one line."""


class Definition:
    """One decorated function and its pattern."""

    __slots__ = ("kind", "pattern", "function", "module", "tokens", "regex", "_nfa")

    def __init__(
        self,
        kind: str,
        pattern: str,
        function: Callable[..., Any],
        module: str,
        tokens: tuple[_Token, ...],
        regex: Any,  # a `regex` package pattern: its matches take a timeout (registry)
    ):
        self.kind = kind  # "step" or "assertion"
        self.pattern = pattern
        self.function = function
        self.module = module  # the module that defined the function
        self.tokens = tokens
        self.regex = regex
        self._nfa: _Nfa | None = None

    def __repr__(self) -> str:
        return f"Definition({self.kind}, {self.label})"

    @classmethod
    def make(cls, kind: str, pattern: str, function: Callable[..., Any]) -> "Definition":
        if not isinstance(pattern, str) or not pattern.strip():
            raise ValueError(f"a custom {kind} needs a pattern (a non-empty string), got {pattern!r}")
        if not callable(function):
            raise TypeError(f"@{kind}({pattern!r}) decorates a callable, got {type(function).__name__}")
        # The `regex` package, not `re`: the text matched may hold values from responses, and
        # `{any} {any} {any}` backtracks polynomially; regex's matches take a timeout (registry).
        import regex as regex_package

        tokens = _tokens(pattern.strip())
        regex = regex_package.compile(
            "".join(
                re.escape(literal) if placeholder is None else _PLACEHOLDERS[placeholder][0]
                for literal, placeholder in tokens
            ),
            regex_package.DOTALL,
        )
        return cls(kind, pattern.strip(), function, getattr(function, "__module__", "") or "", tokens, regex)

    @property
    def origin(self) -> str:
        """Where the function is defined, `file.py:LINE`, for messages."""
        import inspect

        code = getattr(inspect.unwrap(self.function), "__code__", None)
        if code is None:
            return self.module or "?"
        return f"{Path(code.co_filename).name}:{code.co_firstlineno}"

    @property
    def label(self) -> str:
        return f'"{self.pattern}" ({self.origin})'

    def values(self, raw_values: Sequence[str]) -> list[object]:
        """The placeholders' captured text as values ({int} → int, {string} unquoted, …)."""
        kinds = [kind for _, kind in self.tokens if kind is not None]
        return [_PLACEHOLDERS[kind][1](raw) for kind, raw in zip(kinds, raw_values)]

    def could_match(self, pieces: Sequence[str | None]) -> bool:
        if self._nfa is None:
            self._nfa = _Nfa(self.tokens)
        return self._nfa.could_match(pieces)
