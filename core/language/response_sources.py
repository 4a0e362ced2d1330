"""The response sources beyond a JSON path and a header (docs/spec/requests.md#response-sources):
`cookie NAME`, `regex "PATTERN"` and `xpath "EXPR"`, read at the start of a `then:` assertion or
after `extract: NAME from` (where `body`, the whole body as text, is one too). A pattern or an
expression is written as `matches` takes its value, a JSON string (`\\\\.` for `\\.`), and one that
cannot compile is a located error."""

from __future__ import annotations

import json
import re

SOURCE_WORDS = ("cookie", "regex", "xpath")
_COOKIE = re.compile(r"cookie(\s+)([!#$%&'*+.^_`|~0-9A-Za-z-]+)")


class SourceError(ValueError):
    """A source written wrong: the message, and where in the text (offset, length)."""

    def __init__(self, message: str, offset: int, length: int):
        super().__init__(message)
        self.offset, self.length = offset, length


def starts_with_source(text: str) -> bool:
    word = text.split(None, 1)[0] if text.split() else ""
    return word in SOURCE_WORDS


def read_source(text: str) -> tuple[str, str, int]:
    """(kind, argument, end) of the source `text` starts with: the cookie's name, or the pattern or
    expression as a string; `end` is where the source ends in `text`. SourceError otherwise."""
    word = text.split(None, 1)[0]
    if word == "cookie":
        match = _COOKIE.match(text)
        if match is None:
            raise SourceError("a cookie source reads like: cookie session (a cookie's name)", 0, len(text))
        return "cookie", match.group(2), match.end()
    start = len(word) + len(text[len(word) :]) - len(text[len(word) :].lstrip())
    example = 'regex "id=([0-9]+)"' if word == "regex" else 'xpath "/pet/name"'
    if text[start : start + 1] != '"':
        raise SourceError(f"{word} takes a JSON string, as in: {example}", start, max(len(text) - start, 1))
    try:
        argument, end = json.JSONDecoder().raw_decode(text, start)
    except ValueError:
        raise SourceError(f"{word} takes a JSON string, as in: {example}", start, len(text) - start) from None
    if not argument:
        raise SourceError(f"{word} needs a non-empty string, as in: {example}", start, end - start)
    problem = _compile_problem(word, argument)
    if problem is not None:
        raise SourceError(problem, start, end - start)
    return word, argument, end


def _compile_problem(word: str, argument: str) -> str | None:
    """Why a pattern (by the engine `matches` uses) or an XPath 1.0 expression cannot compile."""
    if word == "regex":
        import regex

        try:
            regex.compile(argument)
        except regex.error as error:
            return f"invalid regular expression {json.dumps(argument)[:60]}: {error}"
        return None
    from lxml import etree

    try:
        etree.XPath(argument)
    except etree.XPathSyntaxError as error:
        return f"invalid XPath {json.dumps(argument)[:60]}: {error}"
    return None
