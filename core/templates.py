"""Turning text with `{{NAME}}` references into templates, and templates back into text at run time."""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Mapping

from .nodes import JsonTemplate, Segment, SourceLocation, TextTemplate, VariableRef

NAME = re.compile(r"[^\W\d]\w*")
_REFERENCE = re.compile(r"\{\{(.*?)\}\}")


class TemplateError(ValueError):
    """A malformed template; `offset` is where in the text the problem starts."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.offset = offset


Locate = Callable[[int, int], SourceLocation]  # (offset, length) -> location in the file


def _segments(text: str, locate: Locate, string_spans: list[tuple[int, int]] | None) -> tuple[Segment, ...]:
    segments: list[Segment] = []
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
            segments.append(text[position:match.start()])
        in_string = string_spans is None or any(a < match.start() < b for a, b in string_spans)
        segments.append(VariableRef(name, in_string, locate(match.start(), len(match.group(0)))))
        position = match.end()
    rest = text.find("{{", position)
    if rest != -1:
        raise TemplateError("'{{' is not closed by '}}'", rest)
    if position < len(text):
        segments.append(text[position:])
    return tuple(segments)


def text_template(text: str, locate: Locate, location: SourceLocation | None = None) -> TextTemplate:
    """`location`, when given, is the enclosing line's: it spares locating the value itself."""
    location = location or locate(0, len(text))
    if "{{" not in text:
        return TextTemplate(text, (text,) if text else (), location)
    return TextTemplate(text, _segments(text, locate, None), location)


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
    segments = _segments(text, locate, _string_spans(text))
    # Check the JSON shape with each bare reference replaced by a same-length placeholder,
    # so error offsets still point into the text as written.
    probe: list[str] = []
    for segment in segments:
        if isinstance(segment, str):
            probe.append(segment)
        elif segment.in_string:
            probe.append("x" * (segment.location.end_column - segment.location.column))
        else:
            probe.append("0".ljust(segment.location.end_column - segment.location.column))
    _loads("".join(probe))
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
