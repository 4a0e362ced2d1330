"""Reading a count or an index that a user or a server wrote: `str.isdigit` accepts `²` and `٣`,
which `int` refuses, and `int` refuses more than 4,300 digits; both were tracebacks."""

from __future__ import annotations

INT_DIGITS = 4300  # Python's limit for reading an int from text (sys.get_int_max_str_digits)


def ascii_int(text: str, max_digits: int = 18) -> int | None:
    """`text` as a non-negative integer when it is 1 to `max_digits` ASCII digits, else None."""
    if 0 < len(text) <= max_digits and text.isascii() and text.isdigit():
        return int(text)
    return None


def is_ascii_digits(text: str) -> bool:
    """Whether `text` is one or more ASCII digits, however many."""
    return text.isascii() and text.isdigit()
