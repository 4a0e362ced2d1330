"""The response body as the JSON-path playground shows it: indented JSON, one member or item a
line, with the lines of every match highlighted. Rendered from the (already masked) value, not
from its text, so each line knows the concrete path it stands for — the same path
`path_matches` names a match by. Bounded: a huge body shows its first MAX_LINES lines."""

from __future__ import annotations

import json
from typing import Callable

from rich.text import Text

from scenario_core.run.body_paths import child_path
from scenario_tui.widgets.theme_styles import MATCH

MAX_LINES = 2_000
MAX_DEPTH = 64  # deeper values show as … (the walk recurses once a level)
MATCH_STYLE = MATCH
INDENT = "  "


class _Lines:
    def __init__(self, matched: set[str], shown: Callable[[str], str]) -> None:
        self.matched, self.shown = matched, shown
        self.lines: list[tuple[str, bool]] = []
        self.first_match: int | None = None
        self.cut = False

    def add(self, text: str, highlighted: bool) -> bool:
        """Adds one line; False once the limit is reached (the caller stops walking)."""
        if len(self.lines) >= MAX_LINES:
            self.cut = True
            return False
        if highlighted and self.first_match is None:
            self.first_match = len(self.lines)
        self.lines.append((self.shown(text), highlighted))
        return True

    def walk(self, value: object, path: str, depth: int, lead: str, comma: str, inside: bool) -> bool:
        """`lead`: the member's `"key": ` or nothing; `inside`: a match around this value."""
        mark = inside or path in self.matched
        pad = INDENT * depth
        if depth > MAX_DEPTH and isinstance(value, (dict, list)) and value:
            return self.add(f"{pad}{lead}{'{…}' if isinstance(value, dict) else '[…]'}{comma}", mark)
        if isinstance(value, dict) and value:
            if not self.add(f"{pad}{lead}{{", mark):
                return False
            for number, (key, item) in enumerate(value.items()):
                end = "," if number < len(value) - 1 else ""
                if not self.walk(item, child_path(path, str(key)), depth + 1, f"{json.dumps(str(key))}: ", end, mark):
                    return False
            return self.add(f"{pad}}}{comma}", mark)
        if isinstance(value, list) and value:
            if not self.add(f"{pad}{lead}[", mark):
                return False
            for index, item in enumerate(value):
                if not self.walk(
                    item, child_path(path, index), depth + 1, "", "," if index < len(value) - 1 else "", mark
                ):
                    return False
            return self.add(f"{pad}]{comma}", mark)
        return self.add(f"{pad}{lead}{json.dumps(value, ensure_ascii=False)}{comma}", mark)


def body_lines(body: object, matched: set[str], shown: Callable[[str], str]) -> tuple[Text, int | None]:
    """The body as highlighted lines, and the index of the first highlighted line (None: none).
    `shown` makes each line displayable (control characters visible)."""
    lines = _Lines(matched, shown)
    lines.walk(body, "$", 0, "", "", False)
    text = Text()
    for line, highlighted in lines.lines:
        text.append(line, MATCH_STYLE if highlighted else "")
        text.append("\n")
    if lines.cut:
        text.append(f"… the body goes on; the first {MAX_LINES:,} lines are shown\n", "dim")
    return text, lines.first_match
