"""Turning text with `{{NAME}}` references into templates, and templates back into text at run time."""

from __future__ import annotations

import bisect
import json
import re
from functools import lru_cache
from typing import Any, Callable, Mapping, Union

from scenario_core.language.errors import clip
from scenario_core.language.nodes.base import JsonTemplate, Segment, SourceLocation, TextTemplate, VariableRef
from scenario_core.support.digits import INT_DIGITS
from scenario_core.support.patterns import on_first_use

NAME = re.compile(r"[^\W\d]\w*")
# What `{{...}}` may hold: a name, dotted (`a.b` is the variable of that name; `env.X` an
# environment variable, `param.KEY` a parameter, `hooks.h[0].body.f` what a webhook received).
REF_NAME = re.compile(r"[^\W\d]\w*(?:\.[^\W\d][\w-]*|\.[0-9]+|\[[0-9]+\])*")


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
    starts = [a for a, _ in spans] if spans else []
    parts: list[_Part] = []
    position = 0
    # str.find, not a regex: `\{\{(.*?)\}\}` rescans to the end of the line from every `{{`, so
    # 30,000 unclosed ones took seconds (quadratic). This is one pass.
    while (start := text.find("{{", position)) != -1:
        if start > 0 and text[start - 1] == "\\":  # `\{{` writes a literal `{{` (BerryCrush's escape)
            # In JSON, `"\\{{x}}"` is how the escape is written inside a string: both backslashes go.
            cut = 2 if json_text and start > 1 and text[start - 2] == "\\" else 1
            if start - cut > position:
                parts.append(text[position : start - cut])
            parts.append("{{")
            position = start + 2
            continue
        end = text.find("}}", start + 2)
        if end == -1 or "\n" in text[start + 2 : end]:
            raise TemplateError("'{{' is not closed by '}}'", start)
        name = text[start + 2 : end].strip()
        if not REF_NAME.fullmatch(name):
            raise TemplateError(
                f"'{clip(text[start : end + 2])}' is not a variable reference: "
                "a name is letters, digits and _ (dotted: a.b, env.HOME, param.timeout) "
                "and does not start with a digit",
                start,
            )
        if start > position:
            parts.append(text[position:start])
        if spans is None:
            in_string = True
        else:  # inside the string literal that starts last before it, if that one is still open
            index = bisect.bisect_left(starts, start) - 1
            in_string = index >= 0 and start < spans[index][1]
        parts.append((name, in_string, start, end + 2 - start))
        position = end + 2
    if position < len(text):
        parts.append(text[position:])
    merged: list[_Part] = []
    for part in parts:
        if isinstance(part, str) and merged and isinstance(merged[-1], str):
            merged[-1] += part
        else:
            merged.append(part)
    parts = merged
    if json_text:
        # Check the JSON shape with each reference replaced by a same-length placeholder,
        # so error offsets still point into the text as written.
        _loads("".join(p if isinstance(p, str) else ("x" if p[1] else "0").ljust(p[3]) for p in parts))
    return tuple(parts)


def _segments(text: str, locate: Locate, json_text: bool) -> tuple[Segment, ...]:
    return tuple(
        p if isinstance(p, str) else VariableRef(p[0], p[1], locate(p[2], p[3])) for p in _plan(text, json_text)
    )


def text_template(text: str, locate: Locate, location: SourceLocation | None = None) -> TextTemplate:
    """`location`, when given, is the enclosing line's: it spares locating the value itself."""
    location = location or locate(0, len(text))
    if "{{" not in text:
        return TextTemplate(text, (text,) if text else (), location)
    return TextTemplate(text, _segments(text, locate, False), location)  # `\{{` leaves a literal part


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
    if not any(isinstance(s, VariableRef) for s in segments):  # only escaped `\{{`
        literal = "".join(s for s in segments if isinstance(s, str))
        return JsonTemplate(text, (literal,), _loads(literal), location)
    return JsonTemplate(text, segments, None, location)


_LONG_INTEGER = on_first_use(rf"-?[0-9]{{{INT_DIGITS + 1},}}")


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise JsonTextError(f"invalid JSON: {error.msg}", error.pos) from None
    except RecursionError:
        raise JsonTextError("invalid JSON: nested too deeply", 0) from None
    except ValueError:  # Python refuses to read an integer of over 4,300 digits
        found = _LONG_INTEGER().search(text)
        digits = len(found.group().lstrip("-")) if found else 0
        raise JsonTextError(
            f"an integer of {digits} digits is too long (the limit is {INT_DIGITS})", found.start() if found else 0
        ) from None


# ---------------------------------------------------------------- rendering at run time


def text_form(value: object) -> str:
    """How a value reads inside a path, a header or a JSON string: strings as they are, the rest as JSON."""
    if isinstance(value, str):
        return value
    if type(value) is int:  # an id, most often: json.dumps would say the same, slower (not bool: a subclass)
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def child_name(name: str, template: TextTemplate | None, variables: Mapping[str, object]) -> str:
    """A call child's or include argument's name: as written, or what its `{{NAME}}` gives."""
    return name if template is None else render_text(template, variables).strip()


def render_text(template: TextTemplate, variables: Mapping[str, object]) -> str:
    if len(template.segments) == 1 and isinstance(template.segments[0], str):
        return template.segments[0]
    return "".join(s if isinstance(s, str) else text_form(variables[s.name]) for s in template.segments)


def render_json_text(template: JsonTemplate, variables: Mapping[str, object]) -> str:
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


def render_json(template: JsonTemplate, variables: Mapping[str, object]) -> Any:
    if not template.refs:
        return template.constant
    return json.loads(render_json_text(template, variables))
