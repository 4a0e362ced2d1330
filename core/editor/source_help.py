"""What the editor says of the body forms and response sources (docs/spec/requests.md): the
completion items after `extract: NAME from ` and `then: `, and the hover of `form:`,
`multipart:`, `bodyFile:` and of a `cookie` / `body` / `regex` / `xpath` source on its line."""

from __future__ import annotations

import re

from scenario_core.editor.document import Completion, HoverText, Position, Span

BODY_FORM_HELP = {
    "form:": "an `application/x-www-form-urlencoded` body: one `name: value` a line, in order, names may repeat",
    "multipart:": "a `multipart/form-data` body: `name: value` (a text part) or `name: file PATH [MEDIA/TYPE]`",
    "bodyFile:": "the request body, read from a file (found beside the scenario file or above it)",
}
SOURCE_HELP = {
    "cookie": "`cookie NAME`: the value a `Set-Cookie` of the last response gave NAME",
    "body": "`body`: the whole response body as text",
    "regex": '`regex "PATTERN"`: the first capture group of the first match in the body (the whole match without one)',
    "xpath": '`xpath "EXPR"`: XPath 1.0 on an XML body: a node\'s text, a list, or a number, string or boolean',
    "header": "`header NAME`: a response header's value",
}
_INSERT = {"cookie": "cookie ", "body": "body", "regex": 'regex "', "xpath": 'xpath "', "header": "header "}
_EXTRACT_SOURCE = re.compile(r"^\s*extract:\s*[A-Za-z_]\w*\s+from\s+[a-z]*$")
_THEN_SUBJECT = re.compile(r"^\s*then:\s*[a-z]*$")
_WORD_AT = re.compile(r"^(\s*)(form:|multipart:|bodyFile:)")
_SOURCE_AT = re.compile(r"(?:^\s*then:\s*|\sfrom\s+)(cookie|body|regex|xpath)\b")


def source_completions(before: str) -> list[Completion] | None:
    """The sources a value can be read from, where the cursor asks for one; None elsewhere."""
    words: tuple[str, ...]
    if _EXTRACT_SOURCE.match(before):
        words = ("cookie", "body", "regex", "xpath", "header")
    elif _THEN_SUBJECT.match(before):
        words = ("cookie", "regex", "xpath", "body")
    else:
        return None
    typed = before.rsplit(None, 1)[-1] if before[-1:].isalpha() else ""
    offered = [w for w in words if w.startswith(typed)]
    if not offered:  # `then: stat…`: not a source being typed
        return None
    return [Completion(w, "keyword", SOURCE_HELP[w], insert_text=_INSERT[w]) for w in offered]


def source_hover(line_number: int, line: str, character: int) -> HoverText | None:
    """The help of the body form or response source under the cursor."""
    match = _WORD_AT.match(line)
    if match is not None and match.start(2) <= character <= match.end(2):
        span = Span(Position(line_number, match.start(2)), Position(line_number, match.end(2)))
        return HoverText(span, BODY_FORM_HELP[match.group(2)])
    for found in _SOURCE_AT.finditer(line):
        if found.start(1) <= character <= found.end(1):
            span = Span(Position(line_number, found.start(1)), Position(line_number, found.end(1)))
            return HoverText(span, SOURCE_HELP[found.group(1)])
    return None
