"""Where a line's `#` comment starts (docs/spec/steps.md#keywords-and-comments), without lark: the line lexer, the
language service and the TUI's editor all cut comments the same way, and the last two must not
import the parser's machinery to do it."""

from __future__ import annotations

# A quote opens a string where a value starts (after a space, `:`, `=`, `[`, `(`, `,`), so the
# apostrophe of `doesn't` in a description opens nothing.
_VALUE_START = " \t:=[(,{"


def strip_comment(content: str) -> str:
    """`content` without a `#` comment: a `#` after whitespace and outside a string starts one
    (docs/spec/steps.md#keywords-and-comments), so `status 200  # ok` loses its comment and `/a#b` keeps its `#`."""
    quote = ""
    previous = " "
    i = 0
    n = len(content)
    while i < n:
        ch = content[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch == '"' or (ch == "'" and previous in _VALUE_START):
            quote = ch
        elif ch == "#" and previous in " \t" and i:
            return content[:i].rstrip()
        previous = ch
        i += 1
    return content
