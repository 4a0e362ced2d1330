"""Regular expressions compiled on first use. Compiling one costs ~0.1-0.3 ms (~1 ms for a
character class with non-ASCII ranges), and the modules a run imports hold ~80 at module level,
most of which a given run never uses (a typo hint's, a syntax few files use, masking rules
of output not asked for): `lazy_compile` defers each to its first use (issue 22).

What it returns behaves as the compiled pattern for what module constants are used for: its
methods (`search`, `fullmatch`, `sub`...) and attributes (`pattern`, `flags`, `groups`...). It is
not a `re.Pattern` instance: do not hand one to `re.sub(PATTERN, ...)` or `isinstance` checks."""

from __future__ import annotations

import re
from typing import Any, cast

# What a use can ask of the compiled pattern; after the first use each is a plain attribute of
# the stand-in (the compiled pattern's own bound method), so later calls cost what they would
# on the compiled pattern.
_DELEGATED = (
    "search",
    "match",
    "fullmatch",
    "sub",
    "subn",
    "split",
    "findall",
    "finditer",
    "scanner",
    "flags",
    "groups",
    "groupindex",
)


class _LazyPattern:
    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern  # known without compiling
        self._flags = flags

    def __getattr__(self, name: str) -> Any:  # only while not compiled (or for a missing name)
        compiled = re.compile(self.pattern, self._flags)
        for attribute in _DELEGATED:
            setattr(self, attribute, getattr(compiled, attribute))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy_compile({self.pattern!r}, {self._flags})"


def lazy_compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, done the first time the result is used."""
    return cast("re.Pattern[str]", _LazyPattern(pattern, flags))
