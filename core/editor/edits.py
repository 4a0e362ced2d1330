"""Edits to a scenario file computed from its syntax tree, for tools that write into the file
(the TUI's JSON-path playground): an `extract` step added right after a step, in the file's
dialect and at that step's indentation."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from scenario_core.run.body_paths import last_key

# Keywords only BerryCrush's directives use (ours: when:, then:, extract:).
_BERRYCRUSH_KEYWORDS = frozenset(("call", "assert"))


@dataclass(frozen=True)
class LineInsertion:
    """`text` (one line, without its newline) goes before 0-based line `index` of the file."""

    index: int
    text: str

    def applied(self, source: str) -> str:
        lines = source.splitlines(keepends=True)
        if self.index > 0 and not lines[self.index - 1].endswith("\n"):
            lines[self.index - 1] += "\n"
        newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
        lines.insert(self.index, self.text + newline)
        return "".join(lines)


def extract_name(path: str) -> str:
    """The variable an extract of `path` stores by default: the path's last key, as a name."""
    key = last_key(path) or "value"
    name = re.sub(r"\W", "_", key)
    return name if not name[0].isdigit() else f"_{name}"


def is_berrycrush_step(step: Any, parent: Any = None) -> bool:
    """A step written in BerryCrush's dialect: a directive under a described step (`call`,
    `assert`, `extract $.p => n`, ...)."""
    return parent is not None or step.keyword in _BERRYCRUSH_KEYWORDS or bool(getattr(step, "arrow", False))


def extract_after(source: str, step: Any, path: str, name: str | None = None, parent: Any = None) -> LineInsertion:
    """The line that adds an extract of `path` right after `step` (and the lines under it), at
    its indentation: `extract: NAME from PATH` in our dialect, `extract PATH => NAME` as a
    directive under BerryCrush's described step `parent`. NAME defaults to the path's last key."""
    name = name or extract_name(path)
    lines = source.splitlines()
    written = lines[step.location.line - 1] if step.location.line <= len(lines) else ""
    indent = written[: len(written) - len(written.lstrip())]
    if is_berrycrush_step(step, parent):
        shown = f'"{path}"' if re.search(r"\s|=>", path) else path
        text = f"extract {shown} => {name}"
    else:
        text = f"extract: {name} from {path}"
    return LineInsertion(_end_of(step, lines, indent), indent + text)


def _end_of(step: Any, lines: list[str], indent: str) -> int:
    """The 0-based index just past the step's last line: the lines indented under it (headers,
    a body) are its own; blank lines after them are not."""
    end = max(step.location.end_line, step.location.line)
    index = end
    while index < len(lines) and (not lines[index].strip() or _indent_of(lines[index]) > len(indent)):
        index += 1
        if lines[index - 1].strip():
            end = index
    return min(end, len(lines))


def _indent_of(line: str) -> int:
    return len(line) - len(line.lstrip())
