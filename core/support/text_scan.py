"""Finding the spaces that separate the parts of a line: those outside quoted strings and
outside brackets, so `$[?(@.a > 2)]`, `"a b"` and `["x", "y"]` each stay one part. Shared by our
`then:` (where its operator stands) and BerryCrush's conditions (and/or, where a JSON path ends)."""

from __future__ import annotations

from typing import Iterator

SPACES = " \t"


class TopLevelSpaces:
    """Iterate over (start, end) of every run of spaces at bracket depth 0, outside quotes, in
    text[start:end]. A run is crossed at once (looking past each space of a long run separately
    was quadratic). After the loop, `balanced` tells whether every quote and bracket closed."""

    __slots__ = ("text", "start", "end", "openers", "closers", "balanced")

    def __init__(self, text: str, start: int = 0, end: int | None = None, openers: str = "[(", closers: str = "])"):
        self.text, self.start = text, start
        self.end = len(text) if end is None else end
        self.openers, self.closers = openers, closers
        self.balanced = True

    def __iter__(self) -> Iterator[tuple[int, int]]:
        text, end, openers, closers = self.text, self.end, self.openers, self.closers
        depth, quote = 0, ""
        i = self.start
        while i < end:
            ch = text[i]
            if quote:
                if ch == "\\":
                    i += 1
                elif ch == quote:
                    quote = ""
            elif ch in "\"'":
                quote = ch
            elif ch in openers:
                depth += 1
            elif ch in closers:
                depth -= 1
            elif ch in SPACES and depth <= 0:
                run = i + 1
                while run < end and text[run] in SPACES:
                    run += 1
                yield i, run
                i = run
                continue
            i += 1
        self.balanced = depth <= 0 and not quote
