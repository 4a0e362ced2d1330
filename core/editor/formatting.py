"""`fmt`: one canonical layout for a scenario file, in either dialect, that says exactly what the
file said (its syntax tree is unchanged, tree_compare.py) and that formatting again leaves alone.

The layout, line by line, as the parser reads lines (writeback.split_lines):
- **Indentation**: two spaces per level; a line's level is the one the parser's indentation rules
  give it (deeper than the line before opens a level, shallower closes levels).
- **Verbatim lines**: the lines of a `\"\"\"` block are kept exactly as written; the lines of JSON
  written below `body:` move with it, keeping their indentation relative to each other (the body
  is sent so, docs/spec/requests.md#json-body).
- **Spacing**: one space after a keyword's or a `name:` line's colon, no space at the end of a line;
  the columns of an examples table padded to one width (`| name | age |`).
- **Blank lines**: none at the start or end of the file, at most one in a row, exactly one
  before each top-level block (with the tags and comments written right above it), none between
  a top-level block's tags and its line.
- **Comments** stay where they were, at the indentation of the level they were written at.
- **Line ends and encoding**: every line ends with the file's first line end (`\\n` when it has
  none), the last one too; a BOM is the caller's (writeback.decode / encode).

The result is parsed and compared with the original's tree; a layout that would change it falls
back to indentation and blank lines only, and a file even that would change is left as it is
(`Formatted.changed_meaning`), never written otherwise.
"""

from __future__ import annotations

import re

from scenario_core.editor.writeback import split_lines
from scenario_core.language.errors import InvalidFileError
from scenario_core.language.line_lexer import KEYWORDS, TAG, WORDS
from scenario_core.language.nodes.blocks import ExternalBlocks
from scenario_core.language.parser import parse_text
from scenario_core.language.tree_compare import tree_difference
from scenario_core.support.records import dataclass

INDENT = "  "
_TRIPLE = '"""'
# `name:` lines whose colon gets one space after it: a keyword line or a `name: value` entry.
_COLON = re.compile(r"([^:\s][^:]*?):[ \t]*")
_NOT_ENTRY_START = ":#@|"


@dataclass(frozen=True)
class Formatted:
    """The formatted text, and when the layout would have changed the tree, why it was not
    applied (then `text` is the original, or the text with only its indentation redone)."""

    text: str
    changed_meaning: str | None = None


def _lexer_content(line: str) -> str:
    """What the lexer reads of a content line, past its indentation and its `@tags`."""
    content = line.lstrip(" \t")
    at = 0
    while content.startswith("@", at) and (found := TAG.match(content, at)):
        at = found.end()
        while at < len(content) and content[at] in " \t":
            at += 1
    return content[at:]


def _is_keyword_or_entry(content: str) -> bool:
    colon = content.find(":")
    if colon <= 0:
        return False
    head = content[: colon + 1]
    if head in KEYWORDS or head.lower() in KEYWORDS:
        return True
    space = content.find(" ")
    if (content[:space] if space > 0 else content).lower() in WORDS:
        return False
    return content[0] not in _NOT_ENTRY_START and not content[0].isspace() and content[0] not in "\"'{["


def _spaced(content: str) -> str:
    """One space after the colon of a keyword or `name: value` line (nothing after a bare one)."""
    if not _is_keyword_or_entry(content) or _TRIPLE in content:
        return content
    match = _COLON.match(content)
    if match is None:
        return content
    rest = content[match.end() :]
    if rest.startswith("#"):  # `parameters:  # why`: the comment keeps its spacing
        return content
    return f"{match.group(1)}:" + (f" {rest}" if rest else "")


def _is_json_body(content: str, next_content: str | None) -> bool:
    """`body:` alone on its line with JSON (not `name: value` lines) below it."""
    head = content.split("#", 1)[0].rstrip()
    if head.lower() != "body:" or next_content is None:
        return False
    first = next_content.lstrip(" \t")
    return first[:1] in "{[\"'" or not _is_keyword_or_entry(first)


class _Line:
    __slots__ = ("kind", "text", "level0", "tag")

    def __init__(self, kind: str, text: str, level0: bool = False, tag: bool = False) -> None:
        self.kind, self.text, self.level0, self.tag = kind, text, level0, tag


def _layout(text: str, spacing: bool) -> list[_Line]:
    lines = [content for content, _ in split_lines(text)]
    out: list[_Line] = []
    stack: list[tuple[int, str]] = [(0, "")]  # (written width, new indentation) per open level
    shift: tuple[int, str, int] | None = None  # a JSON body: (its line's width, new indent, least width)
    seen = False  # a content line yet
    index = 0
    count = len(lines)
    while index < count:
        line = lines[index]
        index += 1
        content = line.lstrip(" \t")
        width = len(line) - len(content)
        if not content:
            out.append(_Line("blank", ""))
            continue
        if shift is not None and width <= shift[0] and content[0] != "#":
            shift = None
        if content[0] == "#":  # before the first step or block: at the left margin
            indent = _comment_indent(width, stack, shift) if seen else ""
            out.append(_Line("comment", indent + content.rstrip(" \t")))
            continue
        seen = True
        while width < stack[-1][0]:
            stack.pop()
        if width > stack[-1][0]:
            stack.append((width, stack[-1][1] + INDENT))
        indent = stack[-1][1]
        if shift is not None:
            indent = shift[1] + " " * (width - shift[2])
        lexed = _lexer_content(line)
        if _TRIPLE in lexed and lexed.count(_TRIPLE) % 2:  # a `"""` block: its lines as written
            out.append(_Line("content", indent + content, level0=not indent, tag=content.startswith("@")))
            while index < count:
                raw = lines[index]
                index += 1
                out.append(_Line("raw", raw))
                if _TRIPLE in raw:
                    break
            continue
        written = content.rstrip(" \t")
        if spacing and shift is None and not content.startswith("@"):
            written = _spaced(written)
        out.append(_Line("content", indent + written, level0=not indent, tag=content.startswith("@")))
        if shift is None and _is_json_body(content, _next_content(lines, index)):
            widths = _block_widths(lines, index, width)
            if widths:
                shift = (width, indent + INDENT, min(widths))
    return out


def _next_content(lines: list[str], index: int) -> str | None:
    for line in lines[index:]:
        content = line.lstrip(" \t")
        if content and content[0] != "#":
            return line
    return None


def _block_widths(lines: list[str], index: int, width: int) -> list[int]:
    """The indentation widths of the content lines below a line of `width`, up to the first line
    not deeper than it."""
    widths = []
    for line in lines[index:]:
        content = line.lstrip(" \t")
        if not content or content[0] == "#":
            continue
        at = len(line) - len(content)
        if at <= width:
            break
        widths.append(at)
    return widths


def _comment_indent(width: int, stack: list[tuple[int, str]], shift: tuple[int, str, int] | None) -> str:
    """A comment line's new indentation: that of the open level it was written at (or one deeper
    than the deepest), inside a JSON body moved with the body."""
    if shift is not None and width > shift[0]:
        return shift[1] + " " * max(0, width - shift[2])
    for written, indent in reversed(stack):
        if written <= width:
            return indent + (INDENT if written < width and written == stack[-1][0] else "")
    return ""


def _blank_lines(lines: list[_Line]) -> list[_Line]:
    """At most one blank line in a row, none at the start or the end, one before each top-level
    block after the first (before the tags and comments written right above it)."""
    out: list[_Line] = []
    previous_tag = False
    for line in lines:
        if line.kind == "blank":
            if out and out[-1].kind != "blank":
                out.append(line)
            continue
        if line.kind == "content" and line.level0 and previous_tag:  # tags stay right above their block
            while out and out[-1].kind == "blank":
                out.pop()
        elif line.kind == "content" and line.level0:
            start = len(out)
            while start > 0 and out[start - 1].kind == "comment" and not out[start - 1].text[:1].isspace():
                start -= 1
            blank_at = start
            while blank_at > 0 and out[blank_at - 1].kind == "blank":
                blank_at -= 1
            del out[blank_at:start]
            if blank_at > 0:
                out.insert(blank_at, _Line("blank", ""))
        if line.kind == "content":
            rest = _lexer_content(line.text)
            previous_tag = line.level0 and line.tag and (not rest or rest.startswith("#"))
        out.append(line)
    while out and out[-1].kind == "blank":
        out.pop()
    return out


def _cells(row: str) -> list[str] | None:
    """A table row's cells, split at `|` outside quotes as the parser splits them; None when
    the row is not `| … |` whole (text before the first bar or after the last, a comment)."""
    cells, start, quote = [], 0, ""
    for at, ch in enumerate(row):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'" and not row[start:at].strip():
            quote = ch
        elif ch == "|":
            cells.append(row[start:at])
            start = at + 1
    cells.append(row[start:])
    if len(cells) < 3 or cells[0].strip() or cells[-1].strip() or quote:
        return None
    return [cell.strip() for cell in cells[1:-1]]


def _aligned_tables(lines: list[_Line]) -> list[_Line]:
    """The rows of each examples table (consecutive `| … |` lines at one indentation) with their
    columns padded to one width, `| a   | b |`."""
    index = 0
    while index < len(lines):
        line = lines[index]
        content = line.text.lstrip(" ")
        if line.kind != "content" or not content.startswith("|"):
            index += 1
            continue
        indent = line.text[: len(line.text) - len(content)]
        end = index
        rows: list[list[str]] = []
        while end < len(lines) and lines[end].kind == "content" and lines[end].text.startswith(indent + "|"):
            cells = _cells(lines[end].text[len(indent) :])
            if cells is None or (rows and len(cells) != len(rows[0])):
                rows = []
                break
            rows.append(cells)
            end += 1
        if rows:
            widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
            for offset, row in enumerate(rows):
                padded = " | ".join(cell.ljust(width) for cell, width in zip(row, widths))
                lines[index + offset].text = f"{indent}| {padded} |"
        index = max(end, index + 1)
    return lines


def layout(text: str, spacing: bool = True) -> str:
    """`text` in the canonical layout, not checked (format_text checks it)."""
    ending = next((end for _, end in split_lines(text) if end), "\n")
    lines = _blank_lines(_layout(text, spacing))
    if spacing:
        lines = _aligned_tables(lines)
    return "".join(line.text + ending for line in lines)


def format_text(text: str, file: str = "<text>", fragments: ExternalBlocks = ()) -> Formatted:
    """The canonical layout of a scenario file's text (without its BOM). InvalidFileError when
    the text does not parse: a file is formatted only once it reads."""
    original = parse_text(text, file, fragments, keep=False)
    why = None
    for spacing in (True, False):
        candidate = layout(text, spacing)
        for _ in range(3):  # a fixed point, so formatting again changes nothing
            again = layout(candidate, spacing)
            if again == candidate:
                break
            candidate = again
        if candidate == text:
            return Formatted(text)
        try:
            formatted = parse_text(candidate, file, fragments, keep=False)
        except InvalidFileError as error:
            why = str(error.diagnostics[0]) if error.diagnostics else "it would not parse"
            continue
        difference = tree_difference(original, formatted)
        if difference is None:
            return Formatted(candidate, why)
        why = difference
    return Formatted(text, why)


def format_bytes(data: bytes, file: str, fragments: ExternalBlocks = ()) -> tuple[bytes, Formatted]:
    """A file's bytes formatted: decoded as the parser reads them (UTF-8, a BOM kept), formatted,
    encoded back. WriteBackError (not UTF-8) or InvalidFileError (does not parse), one line."""
    from scenario_core.editor.writeback import decode, encode

    text, bom = decode(data, file)
    formatted = format_text(text, file, fragments)
    return (data if formatted.text == text else encode(formatted.text, bom)), formatted
