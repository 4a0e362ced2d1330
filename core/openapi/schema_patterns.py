"""Regular expressions from descriptions and responses, run safely: a schema's `pattern`,
`patternProperties` and `format: regex`.

* **Compiled with `regex`, screened first.** `regex` (not `re`) because a search takes a timeout
  and listens to Ctrl+C; `matches` uses it too. Compiling is not bounded by anything, and `regex`
  expands counted repetitions when it compiles (`(?:(?:(?:a{1000}){1000}){1000})` never
  finishes), so a pattern longer than `MAX_PATTERN_CHARS` or whose counted repetitions multiply
  past `MAX_EXPANSION` is refused before `regex` sees it: `PatternError`, like one that does not
  compile (invalid, or ECMA-only syntax such as `[^]`).
* Searching them, under one deadline per check, and jsonschema's keywords that do: `pattern_clock`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import regex

from scenario_core.support.digits import ascii_int, is_ascii_digits

if TYPE_CHECKING:

    class CompiledPattern(Protocol):
        """What we use of a pattern `regex` compiled (the library ships no types)."""

        @property
        def pattern(self) -> str: ...

        def search(self, string: str, *, timeout: float | None = None) -> object: ...


MAX_PATTERN_CHARS = 10_000  # regex compiles ~30 µs a character: at most ~0.3 s
MAX_EXPANSION = 100_000  # items counted repetitions expand to when compiled: at most ~0.2 s


class PatternError(ValueError):
    """A pattern that cannot be used; `str()` says why, in one line."""


def _expansion(pattern: str) -> int:
    """How many items `regex` would expand the pattern's counted repetitions to, roughly: the size
    of every atom multiplied by the counts of the `{n}` / `{n,m}` around it. Text-level, so it
    works for `regex`-only syntax too; an over-estimate at worst."""
    frames = [[0, 0]]  # per open group: [size so far, size of its last atom]
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        atom = 1
        if char == "\\":
            i += 2
        elif char == "[":
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            i = j + 1
        elif char == "(":
            frames.append([0, 0])
            i += 1
            continue
        elif char == ")" and len(frames) > 1:
            atom = max(frames.pop()[0], 1)
            i += 1
        elif char == "{" and pattern.find("}", i) > i:
            end = pattern.find("}", i)
            counts = pattern[i + 1 : end].split(",")
            if (
                1 <= len(counts) <= 2
                and any(c.strip() for c in counts)
                and all(is_ascii_digits(c.strip()) or not c.strip() for c in counts)
            ):
                # a count of more digits than MAX_EXPANSION has is over it
                count = max(ascii_int(c.strip(), 9) or MAX_EXPANSION + 1 for c in counts if c.strip())
                count = min(count, MAX_EXPANSION + 1)
                frame = frames[-1]
                frame[0] += frame[1] * (max(count, 1) - 1)
                frame[1] *= max(count, 1)
                if frame[0] > MAX_EXPANSION:
                    return frame[0]
                i = end + 1
                continue
            i += 1
        else:
            i += 1
        frames[-1][0] += atom
        frames[-1][1] = atom
        if frames[-1][0] > MAX_EXPANSION:
            return frames[-1][0]
    while len(frames) > 1:  # unclosed groups: regex will refuse it anyway
        size = frames.pop()[0]
        frames[-1][0] += size
    return frames[0][0]


_compiled: dict[str, CompiledPattern] = {}


def compile_pattern(pattern: object) -> CompiledPattern:
    """The compiled pattern (cached), or PatternError saying why it cannot be used."""
    if not isinstance(pattern, str):
        raise PatternError(f"a pattern must be text, got {type(pattern).__name__}")
    found = _compiled.get(pattern)
    if found is not None:
        return found
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternError(f"pattern is {len(pattern):,} characters long; at most {MAX_PATTERN_CHARS:,} are compiled")
    if _expansion(pattern) > MAX_EXPANSION:
        raise PatternError(
            f"pattern {shown(pattern)} repeats too much to compile (its counted repetitions "
            f"expand to over {MAX_EXPANSION:,} items)"
        )
    try:
        compiled: CompiledPattern = regex.compile(pattern)
    except (regex.error, RecursionError, OverflowError, ValueError) as error:
        raise PatternError(f"pattern {shown(pattern)} does not compile: {' '.join(str(error).split())}") from None
    if len(_compiled) > 1000:
        _compiled.clear()
    _compiled[pattern] = compiled
    return compiled


def shown(pattern: str, width: int = 60) -> str:
    text = "/" + " ".join(pattern.split()) + "/"
    return text if len(text) <= width else text[: width - 2] + "…/"


def is_regex(value: object) -> bool:
    """`format: regex`: the value compiles (with the same screen as a schema's own patterns)."""
    if not isinstance(value, str):
        return True
    try:
        compile_pattern(value)
    except PatternError:
        return False
    return True
