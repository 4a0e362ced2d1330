"""Regular expressions compiled when first used, not when their module is imported.

Compiling costs 30-300 µs a pattern (a class of Unicode ranges the most), and most patterns of a
module serve one branch: an error's wording, a rarely used form, text that needs escaping. Those
compiled at import put ~3 ms on `run` and `check` of a tiny file, each time, for patterns that a
passing run never uses (docs/performance.md, "Round seven"). `on_first_use(regex)` is a function
that compiles the regular expression on its first call and returns the same compiled pattern
after that (`functools.cache`); a pattern used on every request stays compiled at import."""

from __future__ import annotations

import re
from functools import cache
from typing import AnyStr, Callable


def on_first_use(regex: AnyStr, flags: int = 0) -> Callable[[], re.Pattern[AnyStr]]:
    """A function returning `re.compile(regex, flags)`, compiled on its first call."""

    @cache
    def compiled() -> re.Pattern[AnyStr]:
        return re.compile(regex, flags)

    return compiled
