"""Turning text with `{{NAME}}` references into templates, and templates back into text at run time."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, Callable, Mapping, Union

from .nodes import JsonTemplate, Segment, SourceLocation, TextTemplate, VariableRef

NAME = re.compile(r"[^\W\d]\w*")
_REFERENCE = re.compile(r"\{\{(.*?)\}\}")


class TemplateError(ValueError):
    """A malformed template; `offset` is where in the text the problem starts."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.offset = offset


Locate = Callable[[int, int], SourceLocation]  # (offset, length) -> location in the file


# A template's shape: literal text, or (name, in_string, offset, length) for a reference.
_Part = Union[str, tuple[str, bool, int, int]]


@lru_cache(maxsize=4096)
def _plan(text: str, json_text: bool) -> tuple[_Part, ...]:
    """The shape of a template, validated once per distinct text (files repeat their values)."""
    spans = _string_spans(text) if json_text else None
    parts: list[_Part] = []
    position = 0
    for match in _REFERENCE.finditer(text):
        name = match.group(1).strip()
        if not NAME.fullmatch(name):
            raise TemplateError(
                f"'{match.group(0)}' is not a variable reference: "
                "a name is letters, digits and _ and does not start with a digit",
                match.start(),
            )
        if match.start() > position:
            parts.append(text[position:match.start()])
        in_string = spans is None or any(a < match.start() < b for a, b in spans)
        parts.append((name, in_string, match.start(), match.end() - match.start()))
        position = match.end()
    rest = text.find("{{", position)
    if rest != -1:
        raise TemplateError("'{{' is not closed by '}}'", rest)
    if position < len(text):
        parts.append(text[position:])
    if json_text:
        # Check the JSON shape with each reference replaced by a same-length placeholder,
        # so error offsets still point into the text as written.
        _loads("".join(p if isinstance(p, str) else ("x" if p[1] else "0").ljust(p[3]) for p in parts))
    return tuple(parts)


def _segments(text: str, locate: Locate, json_text: bool) -> tuple[Segment, ...]:
    return tuple(
        p if isinstance(p, str) else VariableRef(p[0], p[1], locate(p[2], p[3]))
        for p in _plan(text, json_text)
    )


def text_template(text: str, locate: Locate, location: SourceLocation | None = None) -> TextTemplate:
    """`location`, when given, is the enclosing line's: it spares locating the value itself."""
    location = location or locate(0, len(text))
    if "{{" not in text:
        return TextTemplate(text, (text,) if text else (), location)
    return TextTemplate(text, _segments(text, locate, False), location)


def _string_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of every JSON string literal, quotes included."""
    spans = []
    i, n = 0, len(text)
    while i < n:
        if text[i] == '"':
            start = i
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            spans.append((start, i))
        i += 1
    return spans


class JsonTextError(ValueError):
    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.offset = offset


def json_template(text: str, locate: Locate, location: SourceLocation | None = None) -> JsonTemplate:
    """Parse JSON text that may hold references; bare ones keep their value's type when sent."""
    location = location or locate(0, len(text))
    if "{{" not in text:
        return JsonTemplate(text, (text,), _loads(text), location)
    segments = _segments(text, locate, True)
    return JsonTemplate(text, segments, None, location)


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise JsonTextError(f"invalid JSON: {error.msg}", error.pos) from None
    except RecursionError:
        raise JsonTextError("invalid JSON: nested too deeply", 0) from None


# ---------------------------------------------------------------- rendering at run time


def text_form(value: Any) -> str:
    """How a value reads inside a path, a header or a JSON string: strings as they are, the rest as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def render_text(template: TextTemplate, variables: Mapping[str, Any]) -> str:
    if len(template.segments) == 1 and isinstance(template.segments[0], str):
        return template.segments[0]
    return "".join(
        s if isinstance(s, str) else text_form(variables[s.name]) for s in template.segments
    )


def render_json_text(template: JsonTemplate, variables: Mapping[str, Any]) -> str:
    """JSON text with bare references replaced by their JSON form, string ones by their escaped text."""
    parts = []
    for s in template.segments:
        if isinstance(s, str):
            parts.append(s)
        elif s.in_string:
            parts.append(json.dumps(text_form(variables[s.name]), ensure_ascii=False)[1:-1])
        else:
            parts.append(json.dumps(variables[s.name], ensure_ascii=False))
    return "".join(parts)


def render_json(template: JsonTemplate, variables: Mapping[str, Any]) -> Any:
    if not template.refs:
        return template.constant
    return json.loads(render_json_text(template, variables))
