"""What a scenario line can hold as it is, for the readers to choose another form (or leave a
value out, with a note) before the writer would refuse the whole file: a `#` after white space
starts a comment, values are trimmed, and a line ends at any line break Python knows
(`str.splitlines`: also \\x1c-\\x1e, \\x85, U+2028, U+2029)."""

from __future__ import annotations

import re

_BREAKS = re.compile(r"[\x00-\x08\x0a-\x1f\x7f\x85\u2028\u2029]")
_COMMENT = re.compile(r"\s#")


def line_safe(text: str) -> bool:
    """A value that reads back whole as the value of a `name: value` line."""
    return text == text.strip() and not _COMMENT.search(text) and not _BREAKS.search(text)


def name_safe(name: str) -> bool:
    """A field name a `name: value` line can hold."""
    return bool(name) and ":" not in name and not name.startswith(("#", "@", "|", '"')) and line_safe(name)


def part_safe(value: str) -> bool:
    """A multipart text value `multipart:` writes plainly, or in double quotes."""
    plain = value and not value.startswith(("file ", '"', "'")) and value != "file" and line_safe(value)
    return bool(plain) or ('"' not in value and not _BREAKS.search(value))


def title(text: str, fallback: str) -> str:
    """A scenario or feature name that reads back as written: one line, no `#` that would start
    a comment (at its start or after white space)."""
    name = re.sub(r"(?:^|(?<=\s))#+", "", _BREAKS.sub(" ", text)).strip()
    return name or fallback
