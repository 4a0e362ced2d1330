"""JSON paths as BerryCrush writes them (docs/spec/berrycrush.md#conditions: Jayway JsonPath), compiled onto
jsonpath-ng's `ext` dialect: a function at the end of a path (`$.items.length()`), and filters
`[?(@.x == 'y')]`, `[?(@.x in ['a','b'])]` (`in` becomes an `||` of equalities, which jsonpath-ng
has). What a function returns is computed by the run (run/json_path_functions.py) on the values
the path before it matches. A path of plain names and indexes (`$.items[0].id`, what most extracts
and checks are) is a DottedPath, followed here as jsonpath-ng would follow it."""

from __future__ import annotations

import json
import re
from typing import Any

from scenario_core.support.patterns import on_first_use
from scenario_core.support.records import dataclass

# Jayway's functions: each ends a path. Those with arguments take JSON literals or `$` paths.
FUNCTIONS = ("length", "size", "min", "max", "avg", "sum", "stddev", "keys", "first", "last", "concat", "append")
_TAKE_ARGUMENTS = ("concat", "append")
_FUNCTION_AT_END = on_first_use(r"\.([A-Za-z_]\w*)\((.*)\)\s*\Z", re.S)
_FUNCTION_INSIDE = on_first_use(r"\.([A-Za-z_]\w*)\(")
# `@.x in ['a', 2]` inside a filter: the subject is a relative path without spaces.
_IN_FILTER = on_first_use(r"(@[^\s()]*)\s+in\s+\[([^\]]*)\]")
# A path is indefinite (its matches are a list) when it has a wildcard, a deep scan, a filter,
# a union or a slice: a function then applies to the list of what it matched, as in Jayway.
_INDEFINITE = on_first_use(r"\*|\.\.|\[\?|\[[^\]]*[,:][^\]]*\]")


# Names jsonpath-ng's `ext` lexer reads as something else: such paths are left to jsonpath-ng.
_NOT_NAMES = frozenset({"where", "wherenot", "null", "true", "false"})
_DOTTED = on_first_use(r"\$(?:\.[A-Za-z_][A-Za-z0-9_]*|\[-?[0-9]+\])*\Z")
_DOTTED_STEP = on_first_use(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(-?[0-9]+)\]")


class JsonPathSyntaxError(ValueError):
    """What is wrong with a path, without the path (the caller quotes it)."""


@dataclass(frozen=True)
class PathArgument:
    """A function argument written as a `$` path: read from the same document."""

    compiled: Any


@dataclass(frozen=True)
class JsonPathFunction:
    """`BASE.NAME(ARGS)`: the values BASE matches, given to Jayway's function NAME. `base` is
    jsonpath-ng's compiled path; `arguments` JSON literals or PathArguments."""

    text: str
    base: Any
    name: str
    arguments: tuple[object, ...]  # JSON values and PathArguments
    definite: bool  # the base names one place: the function reads its value, not a list


@dataclass(frozen=True)
class DottedPath:
    """`$`, then `.name` and `[index]` steps: one place at most. Compiled and followed without
    jsonpath-ng, whose import is about a quarter of a run's start-up and whose match objects cost
    on every request; what it matches is what jsonpath-ng's `ext` dialect matches for the same
    text (tests/core/test_dotted_paths.py holds the two side by side)."""

    text: str
    steps: tuple[str | int, ...]

    def value_in(self, data: Any, missing: Any) -> Any:
        """The value at this place in `data`, or `missing`. As jsonpath-ng: a name is looked up
        in anything with `.get` (an object), an index (negative from the end) in a list."""
        value = data
        for step in self.steps:
            if type(step) is str:
                try:
                    value = value.get(step, missing)
                except (TypeError, AttributeError):
                    return missing
                if value is missing:
                    return missing
            elif isinstance(value, (list, tuple)) and -len(value) <= step < len(value):  # type: ignore[operator]
                value = value[step]  # type: ignore[index]
            else:
                return missing
        return value

    def find(self, data: Any) -> list[DottedMatch]:
        """jsonpath-ng's `find`: the matches (none or one), each with `.value` and `.full_path`."""
        value = self.value_in(data, _NOTHING)
        return [] if value is _NOTHING else [DottedMatch(value, self)]


@dataclass(frozen=True)
class DottedMatch:
    value: Any
    full_path: DottedPath


_NOTHING = object()


def dotted_path(path: str) -> DottedPath | None:
    """The path as a DottedPath when it is only names and indexes, else None."""
    if not _DOTTED().match(path):
        return None
    steps: list[str | int] = []
    for name, index in _DOTTED_STEP().findall(path):
        if name in _NOT_NAMES:
            return None
        if name:
            steps.append(name)
            continue
        try:
            steps.append(int(index))
        except ValueError:  # past Python's limit on digits (4,300): no list is that long anyway
            raise JsonPathSyntaxError(f"an index of {len(index)} digits is too long") from None
    return DottedPath(path, tuple(steps))


def split_function(path: str) -> tuple[str, str, str] | None:
    """(base, name, raw arguments) when the path ends with `.NAME(...)`, else None. Raises
    JsonPathSyntaxError for an unknown function or one that does not end the path."""
    found = _FUNCTION_AT_END().search(path)
    inside = [m for m in _FUNCTION_INSIDE().finditer(path) if not found or m.start() != found.start()]
    inside = [m for m in inside if not _in_brackets(path, m.start())]
    if inside:
        raise JsonPathSyntaxError(f"a function ends a JSON path: '{inside[0].group(1)}()' is followed by more")
    if not found or _in_brackets(path, found.start()):
        return None
    name = found.group(1)
    if name not in FUNCTIONS:
        raise JsonPathSyntaxError(
            f"unknown function '{name}()'; a JSON path may end with " + ", ".join(f"{f}()" for f in FUNCTIONS)
        )
    if found.group(2).strip() and name not in _TAKE_ARGUMENTS:
        raise JsonPathSyntaxError(f"'{name}()' takes no arguments")
    return path[: found.start()] or "$", name, found.group(2)


def filters_for_jsonpath_ng(path: str) -> str:
    """`[?(@.x in ['a','b'])]` as `[?((@.x == 'a' || @.x == 'b'))]`; the rest unchanged."""
    if " in " not in path:
        return path

    def equalities(match: re.Match[str]) -> str:
        subject, items = match.group(1), split_items(match.group(2))
        if not items:
            raise JsonPathSyntaxError(f"'{subject} in []' lists no value to match")
        return "(" + " || ".join(f"{subject} == {item}" for item in items) + ")"

    return _IN_FILTER().sub(equalities, path)


def parse_argument(raw: str) -> object:
    """A function argument: a JSON literal (`'a'` too, as Jayway takes it), or a `$` path (the
    caller compiles it). Raises JsonPathSyntaxError."""
    if raw.startswith("$"):
        return raw
    if len(raw) >= 2 and raw[0] == raw[-1] == "'":
        return raw[1:-1]
    try:
        return json.loads(raw)
    except ValueError:
        raise JsonPathSyntaxError(f"a function argument is a JSON value or a $ path, got {raw}") from None


def split_items(text: str) -> list[str]:
    """Comma-separated items, commas inside quotes or brackets kept."""
    items, depth, quote, start = [], 0, "", 0
    for i, char in enumerate(text):
        if quote:
            quote = "" if char == quote and text[i - 1] != "\\" else quote
        elif char in "'\"":
            quote = char
        elif char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
        elif char == "," and depth == 0:
            items.append(text[start:i].strip())
            start = i + 1
    last = text[start:].strip()
    if last or items:
        items.append(last)
    return items


def is_definite(path: str) -> bool:
    return not _INDEFINITE().search(path)


def _in_brackets(text: str, at: int) -> bool:
    """Whether `at` lies inside [...] or quotes (a filter's own parentheses are not a function)."""
    depth, quote = 0, ""
    for i, char in enumerate(text[:at]):
        if quote:
            quote = "" if char == quote and text[i - 1] != "\\" else quote
        elif char in "'\"":
            quote = char
        elif char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
    return depth > 0 or bool(quote)
