"""Counts in words: `1 feature`, `2 features`, `0 fragments` — never `1 features`."""

from __future__ import annotations


def counted(n: int, word: str, plural: str | None = None, *, thousands: bool = False) -> str:
    """`n word`, the word plural unless n is 1 (`plural` where adding an s is wrong)."""
    number = f"{n:,}" if thousands else str(n)
    return f"{number} {word if n == 1 else plural or word + 's'}"
