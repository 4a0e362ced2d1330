"""Splitting `.scenario` text into lark tokens, a line at a time.

The language is line-based: every line is one token (keyword included), apart from `@tags`,
and blank and comment lines belong to the line break. Lark's general regex lexer found the
same tokens character by character; this one classifies each line with string methods
and sends a line break (`_NL`) only where the indentation changes, since a line break at
unchanged indentation means nothing to the indenter. The indenter (lark's `Indenter`,
see lark_parser.py) turns those line breaks into `_INDENT` and `_DEDENT`.

Token positions are exactly those lark's lexer gives (1-based lines and columns, `end_column`
one past the end); a line break starts at the end of the previous content line.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

from lark import Token
from lark.lexer import Lexer

if TYPE_CHECKING:
    from lark.common import LexerConf

from scenario_core.language.comments import strip_comment

# A line that starts with one of these (in any case: `Scenario:`, `WHEN:`) is that keyword's
# token, value and all.
KEYWORDS = {
    "feature:": "FEATURE",
    "description:": "DESCRIPTION",
    "scenario:": "SCENARIO",
    "background:": "BACKGROUND",
    "fragment:": "FRAGMENT",
    "parameters:": "PARAMETERS",
    "when:": "WHEN",
    "headers:": "HEADERS",
    "query:": "QUERY",
    "body:": "BODY",
    "then:": "THEN",
    "extract:": "EXTRACT",
    "include:": "INCLUDE",
    # BerryCrush's (docs/spec/berrycrush.md#keywords-and-comments): an outline, its examples, described steps with a colon.
    "outline:": "OUTLINE",
    "examples:": "EXAMPLES",
    "webhook:": "WEBHOOK",
    "given:": "STEP",
    "and:": "STEP",
    "but:": "STEP",
    # BerryCrush samples' scenario-body lines its parser passes over; read for what they say.
    "tags:": "TAGLIST",
    "finally:": "FINALLY",
}
# A line whose first word (followed by a space or nothing) is one of these: BerryCrush's step
# keywords without a colon and its directives, which take no colon.
WORDS = {
    "given": "STEP",
    "when": "STEP",
    "then": "STEP",
    "and": "STEP",
    "but": "STEP",
    "call": "CALL",
    "assert": "ASSERT",
    "extract": "XEXTRACT",
    "include": "XINCLUDE",
    "if": "IF",
    "else": "ELSE",
    "fail": "FAIL",
    "webhook": "WEBHOOK",
    "examples": "EXAMPLES",
}
_WORD_STARTS = frozenset(w[0] for w in WORDS) | frozenset(w[0].upper() for w in WORDS)
# The other tokens, as a syntax error names them.
OTHER_TOKENS = {"TAG": "@tag", "ENTRY": "a 'name: value' line", "LINE": "a line of JSON"}
# How a syntax error names the word keywords.
WORD_NAMES = {
    "STEP": "given/when/then/and/but",
    "CALL": "call",
    "ASSERT": "assert",
    "XEXTRACT": "extract",
    "XINCLUDE": "include",
    "IF": "if",
    "ELSE": "else",
    "FAIL": "fail",
}

TAG = re.compile(r"@[^\s@]+")  # tags share a line; anything after them is a token of its own
_BLANKS = re.compile(r"[ \t]*")
_NOT_ENTRY_START = ":#@|"  # and whitespace: `name: value` starts with a name; `|` starts a table row
_TRIPLE = '"""'


class LineLexer(Lexer):
    """Lark's custom-lexer interface (`lex(text)`, interface 0) for the line grammar."""

    __future_interface__ = 0

    def __init__(self, lexer_conf: LexerConf) -> None:  # noqa: ARG002 - everything it needs is above
        pass

    def lex(self, text: str) -> Iterator[Token]:  # type: ignore[override]
        # `text` starts with a line break (the parser prepends one), so line 1 is empty and
        # the first line break starts at offset 0.
        keywords, words, tag = KEYWORDS, WORDS, TAG.match
        line_start = 0
        break_line, break_column, break_start = 1, 1, 0  # where the pending line break began
        indent = ""  # of the last content line: a line break changing nothing is dropped
        number = 0
        lines = text.split("\n")
        count = len(lines)
        index = 0
        while index < count:
            line = lines[index]
            index += 1
            number = index
            content = line.lstrip(" \t")
            if not content or content[0] == "#":  # blank or a comment: part of the line break
                line_start += len(line) + 1
                continue
            at = len(line) - len(content)
            if line[:at] != indent:
                indent = line[:at]
                yield Token(
                    "_NL",
                    text[break_start : line_start + at],
                    break_start,
                    break_line,
                    break_column,
                    number,
                    at + 1,
                    line_start + at,
                )
            # Tags come first and share the line; what follows them is one more token.
            # A line's tags are one TAG token (`@a @b`; the builder splits it), found by position:
            # a token per tag, or a slice of the rest of the line per tag, made a 1 MB line of
            # tags take seconds.
            tags_at, end = at, -1
            while line.startswith("@", at) and (found := tag(line, at)):
                end = found.end()
                blanks = _BLANKS.match(line, end)
                assert blanks is not None  # `[ \t]*` matches anywhere
                at = blanks.end()
            if end != -1:
                yield Token(
                    "TAG",
                    line[tags_at:end],
                    line_start + tags_at,
                    number,
                    tags_at + 1,
                    number,
                    end + 1,
                    line_start + end,
                )
                content = line[at:]
                if content.startswith("#"):  # `@smoke  # why`: a comment after tags
                    content = ""
            start = line_start + at
            end_line = number
            if _TRIPLE in content and content.count(_TRIPLE) % 2:
                # A `"""` block: raw lines up to the closing `"""` are this line's token, whatever
                # their indentation, keywords or `#` (docs/spec/berrycrush.md#keywords-and-comments).
                block_start = index
                while index < count and _TRIPLE not in lines[index]:
                    index += 1
                if index < count:
                    index += 1
                    for piece in lines[block_start:index]:
                        line_start += len(line) + 1
                        line = piece
                    content = text[start : line_start + len(line)]
                    end_line = index
            elif "#" in content:
                content = strip_comment(content)
            if content:
                colon = content.find(":")
                kind = None
                if colon > 0:
                    head = content[: colon + 1]
                    kind = keywords.get(head) or keywords.get(head.lower())
                if kind is None:
                    if content[0] in _WORD_STARTS:
                        space = content.find(" ")
                        kind = words.get((content[:space] if space > 0 else content).lower())
                    if kind is None:
                        first = content[0]
                        kind = (
                            "ENTRY" if colon > 0 and first not in _NOT_ENTRY_START and not first.isspace() else "LINE"
                        )
                end = start + len(content)
                yield Token(kind, content, start, number, at + 1, end_line, end - line_start + 1, end)
            number = end_line
            break_line, break_column, break_start = end_line, len(line) + 1, line_start + len(line)
            line_start += len(line) + 1
        if indent:  # the text ends at indentation 0
            yield Token("_NL", text[break_start:], break_start, break_line, break_column, number, 1, len(text))
