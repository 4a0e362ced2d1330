"""An error's source line with a caret under its span, as Hurl, rustc and Elm show one: what
`check` and `run` print after each `FILE:LINE:COLUMN: error: …` line when standard error is a
terminal (docs/cli.md#errors-on-a-terminal). Piped, in CI, with `--format` or in an editor, the
one-line form stands alone, so tools that read those lines see nothing new.

    t.scenario:2:9: error: unknown HTTP method 'GTE'; did you mean GET?
       2 |   when: GTE /pets
         |         ^^^

The line is shown as printed text is everywhere: control characters as escapes, never obeyed; a
tab as four spaces; a wide character as two columns, so the caret stays under its span.
"""

from __future__ import annotations

import os
import sys
import unicodedata
from typing import Callable, Iterable, Mapping, TextIO

from scenario_core.language.errors import Diagnostic
from scenario_core.support.input_files import InputFileError, read_regular_file
from scenario_core.support.printable import visible

MAX_SOURCE_BYTES = 16 * 1024 * 1024  # a larger file is not read again for its excerpts
MAX_WIDTH = 100  # display columns of source shown; a longer line is shown around the span
TAB = "    "


def wants_excerpts(stream: TextIO | None = None, environ: Mapping[str, str] | None = None) -> bool:
    """Whether error lines get their excerpt: `stream` (standard error) is a terminal, and no CI
    (`CI` set) or dumb terminal (`TERM=dumb`, as an editor's shell often is) asks for plain lines."""
    stream = sys.stderr if stream is None else stream
    environ = os.environ if environ is None else environ
    if environ.get("CI") or environ.get("TERM") == "dumb":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):  # a closed or foreign stream
        return False


class SourceLines:
    """The lines of the files errors point into, each file read once, only when asked."""

    def __init__(self, read: Callable[[str], bytes] | None = None) -> None:
        self._read = read or (lambda path: read_regular_file(path, MAX_SOURCE_BYTES))
        self._files: dict[str, list[str] | None] = {}

    def line(self, path: str, number: int) -> str | None:
        if path not in self._files:
            try:
                text = self._read(path).decode("utf-8", "replace")
            except (InputFileError, OSError):
                self._files[path] = None
            else:
                lines = text.split("\n")
                if lines and lines[0].startswith("\ufeff"):
                    lines[0] = lines[0][1:]
                self._files[path] = [line[:-1] if line.endswith("\r") else line for line in lines]
        held = self._files[path]
        if held is None or not 1 <= number <= len(held):
            return None
        return held[number - 1]


def _shown(char: str) -> tuple[str, int]:
    """A character as the excerpt prints it, and the columns it takes on a terminal."""
    if char == "\t":
        return TAB, len(TAB)
    text = visible(char)
    if text != char:
        return text, len(text)
    if unicodedata.combining(char):
        return char, 0
    return char, 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def excerpt(line: str, number: int, column: int, end_column: int | None) -> list[str]:
    """The two lines under an error: ` N | the line` and `   | ^^^` under columns `column` to
    `end_column` (1-based, end exclusive; None or not after `column`: one caret)."""
    start = max(column - 1, 0)
    end = end_column - 1 if end_column is not None and end_column - 1 > start else start + 1
    pieces = [_shown(char) for char in line]
    offset = sum(width for _, width in pieces[:start])
    span = max(sum(width for _, width in pieces[start:end]), 1)
    text = "".join(piece for piece, _ in pieces).rstrip()
    total = sum(width for _, width in pieces)
    if total > MAX_WIDTH:  # a long line: a window around the span
        first = max(0, start - 20)
        shift = sum(width for _, width in pieces[:first])
        window, used = [], 0
        for piece, width in pieces[first:]:
            if used + width > MAX_WIDTH:
                break
            window.append(piece)
            used += width
        lead = "…" if first else ""
        tail = "…" if first + len(window) < len(pieces) else ""
        text = lead + "".join(window) + tail
        offset = offset - shift + len(lead)
        span = max(1, min(span, MAX_WIDTH - (offset - len(lead))))
    gutter = str(number)
    return [f" {gutter} | {text}", f" {' ' * len(gutter)} | {' ' * offset}{'^' * span}"]


def diagnostic_lines(
    diagnostics: Iterable[Diagnostic], excerpts: bool, sources: SourceLines | None = None
) -> list[str]:
    """Each diagnostic's one line (as `str(diagnostic)`, made visible), followed, when
    `excerpts`, by its source line and caret (none when the line can't be read)."""
    sources = sources or SourceLines()
    lines: list[str] = []
    for diagnostic in diagnostics:
        lines.append(visible(str(diagnostic)))
        if not excerpts:
            continue
        location = diagnostic.location
        source = sources.line(location.file, location.line)
        if source is None:
            continue
        end = location.end_column if location.end_line == location.line else len(source) + 1
        lines.extend(excerpt(source, location.line, location.column, end))
    return lines


def print_diagnostics(diagnostics: Iterable[Diagnostic], stream: TextIO | None = None, tty: bool | None = None) -> None:
    """The diagnostics on `stream` (standard error), with excerpts when it is a terminal (`tty`
    overrides the test, for tests)."""
    stream = sys.stderr if stream is None else stream
    excerpts = wants_excerpts(stream) if tty is None else tty
    lines = diagnostic_lines(diagnostics, excerpts)
    if lines:
        print("\n".join(lines), file=stream)
