"""Building `body:`: JSON with `{{NAME}}` references (on the line or indented below it), a
triple-quoted block sent as written, or `name: value` lines nested by indentation (a structured body, one JSON
object merged over the operation's schema defaults). `json_value_text` reads one such value; a
call's and an include's parameters read theirs the same way."""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from typing import Union

from lark import Token

from scenario_core.language.builder.context import BuildContext, Children, Raw, column_of, present, unquoted
from scenario_core.language.nodes.base import JsonTemplate, SourceLocation, TextTemplate
from scenario_core.language.templates import JsonTextError, TemplateError, json_template, text_template

_TRIPLE = '"""'
# A structured body's `name: value` lines: a value's JSON text, or the object of a deeper level.
_Texts = dict[str, Union[str, "_Texts"]]
_BARE_JSON = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?|true|false|null|\{\{[^{}]*\}\}")


def json_value_text(raw: str) -> str:
    """A child's or a structured body's value as JSON text: a JSON literal or a lone `{{NAME}}`
    as written (its type kept), a quoted string as a JSON string, any other word as a string."""
    if _BARE_JSON.fullmatch(raw) or raw[:1] in "[{" or (raw[:1] == '"' and raw[-1:] == '"' and len(raw) > 1):
        return raw
    return json.dumps(unquoted(raw), ensure_ascii=False)


def _object_text(value: _Texts) -> str:
    """A nested dict of JSON value texts as one JSON object text (iterative: any depth)."""
    parts: list[str] = []
    stack: list[str | _Texts] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            parts.append(item)
        elif isinstance(item, dict):
            pieces: list[str | _Texts] = ["}"]
            for i, (key, child) in enumerate(reversed(list(item.items()))):
                pieces.append(child)
                pieces.append(json.dumps(key, ensure_ascii=False) + ": ")
                if i < len(item) - 1:
                    pieces.append(", ")
            pieces.append("{")
            stack.extend(pieces)
    return "".join(parts)


def body_line(ctx: BuildContext, children: Children) -> Token:
    line: Token = children[0]
    return line


def body(ctx: BuildContext, children: Children) -> Raw:
    keyword, lines = children[0], present(children[1:])
    inline, inline_offset = ctx.value(keyword, len("body:"))
    if inline and lines:
        ctx.error(ctx.loc(lines[0]), "body: is written either on its line or indented below it, not both")
        return Raw("body", keyword, None)
    if not inline and not lines:
        ctx.error(ctx.whole(keyword), "body: needs a JSON value, on the same line or indented below it")
        return Raw("body", keyword, None)
    if inline.startswith(_TRIPLE) or (len(lines) == 1 and str(lines[0]).startswith(_TRIPLE)):
        return Raw("body", keyword, _raw_body(ctx, keyword if inline else lines[0], inline_offset if inline else 0))
    if (
        lines and ":" in str(lines[0]) and lines[0].type != "LINE" and str(lines[0])[:1] not in '{["'
    ):  # `name: value` lines
        return Raw("body", keyword, _structured_body(ctx, lines), structured=True)
    bases = [0] * len(lines)
    # A block's lines keep their indentation relative to its first line (the least indented): the
    # body is sent as written, not flattened (the lexer hands each line over without its indentation).
    least = min(map(column_of, lines), default=0)  # once: per line, a 3,000-line body took seconds
    pads = [column_of(token) - least for token in lines]
    if inline:
        lines, bases, pads = [keyword], [inline_offset], [0]
    starts, parts, offset = [], [], 0
    for token, base, pad in zip(lines, bases, pads):
        starts.append(offset)
        part = " " * pad + str(token)[base:].rstrip()
        parts.append(part)
        offset += len(part) + 1
    text = "\n".join(parts)

    def locate(position: int, length: int) -> SourceLocation:
        index = max(bisect_right(starts, position) - 1, 0)  # the line holding it
        within = max(position - starts[index] - pads[index], 0)
        return ctx.loc(lines[index], bases[index] + within, length)

    try:
        node = json_template(text, locate, ctx.span(lines[0], lines[-1]) if not inline else ctx.whole(keyword))
    except (TemplateError, JsonTextError) as problem:
        ctx.error(locate(min(problem.offset, max(len(text) - 1, 0)), 1), f"body: {problem}")
        node = None
    return Raw("body", keyword, node)


def _raw_body(ctx: BuildContext, token: Token, offset: int) -> TextTemplate | None:
    """A triple-quoted block: sent as written (common indentation removed, then trimmed), with its
    {{NAME}} references rendered as text (docs/spec/berrycrush.md#keywords-and-comments)."""
    import textwrap

    text = str(token)[offset:]
    if not (text.endswith(_TRIPLE) and len(text) >= 6):
        ctx.error(ctx.whole(token), 'a """ block is closed by """ on a line of its own')
        return None
    first, _, rest = text[3:-3].partition("\n")
    inner = (first.strip() + "\n" if first.strip() else "") + textwrap.dedent(rest)
    inner = inner.strip()
    try:
        return text_template(inner, lambda o, n: ctx.whole(token), ctx.span(token, token))
    except TemplateError as problem:
        ctx.error(ctx.whole(token), f"body: {problem}")
        return None


def _structured_body(ctx: BuildContext, lines: list[Token]) -> JsonTemplate | None:
    """`name: "Max"` lines, nested by indentation, as one JSON object template (values keep
    their JSON type; a bare word is a string); the executor merges it over the operation's
    request-schema defaults."""
    root: _Texts = {}
    stack: list[tuple[int, _Texts]] = [(0, root)]  # (column, object) of the open levels
    for token in lines:
        text = str(token).rstrip()
        colon = text.find(":")
        if token.type == "LINE" or colon <= 0:
            ctx.error(
                ctx.whole(token),
                "a structured body has only `name: value` lines (or write the whole body as JSON)",
            )
            return None
        column = column_of(token)
        while len(stack) > 1 and column <= stack[-1][0]:
            stack.pop()
        name, value = text[:colon].strip(), text[colon + 1 :].strip()
        target = stack[-1][1]
        if not value:  # a nested object follows on deeper lines
            child: _Texts = {}
            target[name] = child
            stack.append((column, child))
            continue
        target[name] = json_value_text(value)
    text = _object_text(root)
    try:
        return json_template(text, lambda offset, length: ctx.whole(lines[0]), ctx.span(lines[0], lines[-1]))
    except (TemplateError, JsonTextError) as problem:
        ctx.error(ctx.whole(lines[0]), f"body: {problem}")
        return None
