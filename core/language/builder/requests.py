"""Building requests, in either dialect: our `when: METHOD path` and `when: ^operation`, and
BerryCrush's `call ^operation`, with their children (`headers:`, `query:`, `body:`, and under an
operation call its parameters, `bodyFile:`, `auto:`, `excludes:` and repeat counts): one
RequestStep either way. `call_parameter` also reads an include's parameters."""

from __future__ import annotations

import re
from typing import Callable, TypeVar

from lark import Token

from scenario_core.language import parameter_keys as params
from scenario_core.language.builder.bodies import json_value_text
from scenario_core.language.builder.context import (
    BuildContext,
    Children,
    Entry,
    Raw,
    flat,
    line_of,
    present,
    read_entry,
    unquoted,
)
from scenario_core.language.builder.forms import BODY_FORMS, form_fields
from scenario_core.language.builder.parameter_blocks import PARAMETERS_GO
from scenario_core.language.nodes.base import SourceLocation, TextTemplate
from scenario_core.language.nodes.steps import (
    AUTO_KINDS,
    CallParameter,
    FormField,
    HeaderEntry,
    OperationRef,
    QueryEntry,
    RawTarget,
    RequestStep,
)
from scenario_core.language.parameter_values import ParameterValueError
from scenario_core.language.step_syntax import METHODS, LineError, split_request
from scenario_core.language.templates import JsonTextError, TemplateError, json_template
from scenario_core.support.header_names import HEADER_NAME_CHARACTERS, is_header_name

_Built = TypeVar("_Built")  # what `_entries` makes of each line: a HeaderEntry or a QueryEntry

_OPERATION = re.compile(r"(?:using\s+([A-Za-z_][A-Za-z0-9_-]*)\s+)?\^([A-Za-z_][A-Za-z0-9_.-]*)\s*")
# BerryCrush's `call`: `^op` or a bare `op`, `using auth` or `using "auth"` (docs/openapi.md);
# newer BerryCrush also takes either name as a `{{NAME}}` chosen at run time, and
# `call [using NAME] raw METHOD /path`, a request with no operationId (berrycrush/junit tests).
_REF = r"\{\{[^{}]*\}\}"
_USING = rf"""using\s+(?:["']?([A-Za-z_][A-Za-z0-9_-]*)["']?|({_REF}))\s+"""
_CALL = re.compile(rf"(?:{_USING})?\^?([A-Za-z_][A-Za-z0-9_.-]*|{_REF})\s*")
_RAW_CALL = re.compile(rf"(?:{_USING})?raw\s+(\S+)\s+(\S+)\s*")


def _entries(
    ctx: BuildContext, entries: list[Entry], what: str, make: Callable[[str, TextTemplate, SourceLocation], _Built]
) -> tuple[_Built, ...]:
    """`headers:` or `query:` lines: a name and its value as a text template."""
    built: list[_Built] = []
    for entry in entries:
        name, raw = entry.key, entry.value
        location = ctx.whole(entry.token)
        if "{{" in name:
            ctx.error(ctx.loc(entry.token, 0, len(name)), f"a {what} name cannot hold {{{{...}}}}")
            continue
        if what == "header" and not is_header_name(name):
            ctx.error(ctx.loc(entry.token, 0, len(name)), _bad_header_name(name))
            continue
        if not raw:
            built.append(make(name, TextTemplate("", (), location), location))
            continue
        template = ctx.template(entry.token, raw, entry.value_offset, location)
        if template is not None:
            built.append(make(name, template, location))
    return tuple(built)


def _bad_header_name(name: str, child: str = "") -> str:
    """A header name written in the file that no request could send (the transport refuses it too)."""
    return f"{name!r} is not a valid header name{child}: {HEADER_NAME_CHARACTERS}"


def headers(ctx: BuildContext, children: Children) -> Raw:
    ctx.bare(children[0], "headers:")
    entries = _entries(ctx, flat(ctx, present(children[1:]), "headers:"), "header", HeaderEntry)
    return Raw("headers", children[0], entries)


def query(ctx: BuildContext, children: Children) -> Raw:
    ctx.bare(children[0], "query:")
    entries = _entries(ctx, flat(ctx, present(children[1:]), "query:"), "query", QueryEntry)
    return Raw("query", children[0], entries)


def call_entry(ctx: BuildContext, children: Children) -> Raw:
    return Raw("entry", children[0], read_entry(ctx, children))


def request(
    ctx: BuildContext, token: Token, text: str, base: int, items: Children, keyword: str = "when"
) -> RequestStep | None:
    """Our `when: METHOD path` / `when: ^op`, or BerryCrush's `call ^op` (keyword "call"), with
    their children: one RequestStep either way."""
    location = ctx.whole(token)
    operation = raw = None
    method = url = None
    raw_match = _RAW_CALL.fullmatch(text) if keyword == "call" else None
    if raw_match is not None:
        raw = raw_target(ctx, token, raw_match, base, location)
        if raw is None:
            return None
    elif keyword == "call" or text.startswith("^") or text.startswith("using "):
        operation = _operation_ref(ctx, token, text, base, keyword)
        if operation is None:
            return None
    else:
        try:
            method, path, path_offset = split_request(text)
        except LineError as problem:
            ctx.error(ctx.loc(token, base + problem.offset, problem.length), str(problem))
            return None
        url = ctx.template(token, path, base + path_offset, location)
    found: dict[str, Raw] = {}
    entries: list[Entry] = []
    for item in items:
        if item is None:
            continue
        if not isinstance(item, Raw):
            ctx.error(
                item.location,
                f"'{item.keyword}' cannot go under a request: a request takes headers:, query: and body:",
            )
        elif item.kind == "parameters":
            ctx.error(ctx.loc(item.token), f"parameters: cannot go inside a step; {PARAMETERS_GO}")
        elif item.kind == "entry":
            entries.append(item.node)
        elif item.kind not in ("headers", "query", "body"):
            ctx.error(
                ctx.loc(item.token),
                f"{item.kind} cannot go under {'call' if keyword == 'call' else 'a request'}; "
                "write it at the call's indentation, after it",
            )
        elif item.kind in found:
            first = line_of(found[item.kind].token)
            ctx.error(ctx.loc(item.token), f"a second {item.kind}: for this request; the first is on line {first}")
        else:
            found[item.kind] = item
    forms: dict[str, tuple[FormField, ...]] = {}
    written: list[tuple[str, Token]] = [(f"{item.kind}:", item.token) for item in found.values() if item.kind == "body"]
    for entry in [e for e in entries if e.key in BODY_FORMS or e.key == "bodyFile"]:
        written.append((f"{entry.key}:", entry.token))
        if entry.key in BODY_FORMS:
            entries.remove(entry)
            fields = form_fields(ctx, entry)
            if fields is None:
                return None
            forms[entry.key] = fields
    call_parameters, body_file, auto, excludes, counts = _call_entries(ctx, entries, operation, text, raw is not None)
    if (url is None and operation is None and raw is None) or any(
        item.node is None for item in found.values() if item.kind == "body"
    ):
        return None
    body = found.get("body")
    if len(written) > 1:  # one body form per request (docs/spec/requests.md#body-forms)
        earlier, later = sorted(written, key=lambda w: (line_of(w[1]), w[1].column or 0))[:2]
        ctx.error(
            ctx.loc(later[1]),
            f"a request takes one body form; {later[0]} follows {earlier[0]} on line {line_of(earlier[1])}",
        )
        return None
    raw_body = body.node if body is not None and isinstance(body.node, TextTemplate) else None
    return RequestStep(
        method,
        url,
        found["headers"].node if "headers" in found else (),
        found["query"].node if "query" in found else (),
        body.node if body is not None and raw_body is None else None,
        location,
        operation,
        call_parameters,
        body is not None and body.structured,
        body_file,
        auto,
        excludes,
        keyword,
        raw_body,
        counts,
        raw,
        forms.get("form"),
        forms.get("multipart"),
    )


def raw_target(
    ctx: BuildContext, token: Token, match: re.Match[str], base: int, location: SourceLocation
) -> RawTarget | None:
    """`raw METHOD /path` with its `using`: each part a template; what is written as a literal
    is checked here (a method, a path from the server's root)."""
    parts: list[TextTemplate | None] = []
    for group in (2, 3, 4):
        text = match.group(group) if group != 2 else (match.group(1) or match.group(2))
        if text is None:
            parts.append(None)
            continue
        start = match.start(1) if group == 2 and match.group(1) else match.start(group)
        part = ctx.template(token, text, base + start, ctx.loc(token, base + start, len(text)))
        if part is None:
            return None
        parts.append(part)
    using, method, path = parts
    assert method is not None and path is not None
    if not method.refs and method.text.upper() not in METHODS:
        ctx.error(method.location, f"'{method.text}' is not an HTTP method ({', '.join(METHODS)})")
        return None
    if not path.refs and not path.text.startswith("/"):
        ctx.error(path.location, "a raw call's path starts with /, as in: call using api raw GET /health")
        return None
    return RawTarget(method, path, using, location)


def _operation_ref(ctx: BuildContext, token: Token, text: str, base: int, keyword: str = "when") -> OperationRef | None:
    pattern = _CALL if keyword == "call" else _OPERATION
    match = pattern.fullmatch(text)
    if match is None:
        example = (
            "call ^getPetById (or call using auth ^login)"
            if keyword == "call"
            else "when: ^getPetById (or when: using auth ^login)"
        )
        ctx.error(ctx.loc(token, base, len(text)), f"an operation call reads like: {example}")
        return None
    if keyword != "call":
        start = match.start(2) - (text[max(match.start(2) - 1, 0)] == "^")
        return OperationRef(match.group(2), match.group(1), ctx.loc(token, base + start, match.end(2) - start))
    name, using = match.group(3), match.group(1) or match.group(2)
    start = match.start(3) - (text[max(match.start(3) - 1, 0)] == "^")  # `call listPets` has no caret
    where = ctx.loc(token, base + start, match.end(3) - start)
    templates: list[TextTemplate | None] = []
    for group in (3, 2):  # a `{{NAME}}` chosen at run time (CallResolver in newer BerryCrush)
        written = match.group(group)
        if written is None or (group == 3 and not written.startswith("{{")):
            templates.append(None)
            continue
        found = ctx.template(
            token, written, base + match.start(group), ctx.loc(token, base + match.start(group), len(written))
        )
        if found is None:
            return None
        templates.append(found)
    return OperationRef(name, using, where, templates[0], templates[1])


def _call_entries(
    ctx: BuildContext, entries: list[Entry], operation: OperationRef | None, request: str, raw: bool = False
) -> tuple[
    tuple[CallParameter, ...],
    TextTemplate | None,
    tuple[str, ...],
    tuple[str, ...],
    tuple[tuple[str, int | params.ValueTemplate], ...],
]:
    """What an operation call's `name: value` children set: its parameters, `bodyFile:`, `auto:`,
    `excludes:` and the repeat counts of `auto: [multi]`."""
    built: list[CallParameter] = []
    body_file = None
    auto: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()
    counts: dict[str, int | params.ValueTemplate] = {}
    seen: dict[str, int] = {}
    takes_children = operation is not None or raw  # a raw call places its children by name
    for entry in entries:
        name, value = entry.key, entry.value
        name_location = ctx.loc(entry.token, 0, len(name))
        if entry.children:
            ctx.error(
                ctx.loc(entry.children[0].token),
                f"'{name}:' takes no indented lines; only form: and multipart: do",
            )
            continue
        if name == "bodyFile":
            body_file = ctx.template(entry.token, unquoted(value), entry.value_offset, ctx.whole(entry.token))
            continue
        if name in ("auto", "excludes") and operation is not None:
            words = tuple(w for w in re.split(r"[\s,\[\]]+", value) if w)
            if name == "auto":
                unknown = [w for w in words if w.lower() not in AUTO_KINDS]
                if unknown or not words:
                    ctx.error(
                        ctx.loc(entry.token, entry.value_offset, max(len(value), 1)),
                        f"auto: takes a list of {', '.join(AUTO_KINDS)}, got {value or 'nothing'}",
                    )
                    continue
                auto = tuple(w.lower() for w in words)
            else:
                excludes = words
            continue
        if name in (params.MULTI_SEQUENTIAL, params.MULTI_CONCURRENT) and operation is not None:
            # auto: [multi]'s repeats for this call, over the parameter of the same name
            try:
                # a number, or a ValueTemplate (`{{env.N}}`) read at run time (run/auto_tests.py)
                count = params.parse_value(name, value)
                assert isinstance(count, (int, params.ValueTemplate))  # the key's spec: a whole number
                counts[name] = count
            except ParameterValueError as problem:
                ctx.error(ctx.loc(entry.token, entry.value_offset, max(len(value), 1)), str(problem))
            continue
        if not takes_children:
            ctx.error(
                name_location,
                f"'{name}:' places a value in an operation's request; "
                f"'{request}' is not an operation call (when: ^operationId). "
                "Use headers: or query: here",
            )
            continue
        if name in seen:
            ctx.error(name_location, f"'{name}' is given twice for this call; the first is on line {seen[name]}")
            continue
        seen[name] = name_location.line
        if name[:7].lower() == "header_" and "{{" not in name and not is_header_name(name[7:]):
            ctx.error(name_location, _bad_header_name(name[7:], f" (child '{name}')"))
            continue
        if not value:
            ctx.error(name_location, f"'{name}:' needs a value")
            continue
        parameter = call_parameter(ctx, entry, value)
        if parameter is not None:
            built.append(parameter)
    return tuple(built), body_file, auto, excludes, tuple(counts.items())


def call_parameter(ctx: BuildContext, entry: Entry, raw: str) -> CallParameter | None:
    """`name: value` under a call or an include: the value as a JSON template, its type kept."""
    try:
        value = json_template(
            json_value_text(raw), ctx.locator(entry.token, entry.value_offset), ctx.whole(entry.token)
        )
    except (TemplateError, JsonTextError) as problem:
        ctx.error(ctx.loc(entry.token, entry.value_offset, max(len(raw), 1)), f"{entry.key}: {problem}")
        return None
    name = None
    if "{{" in entry.key:  # `{{pathVariable}}: {{value}}`: the name chosen at run time (newer BerryCrush)
        name = ctx.template(entry.token, entry.key, 0, ctx.loc(entry.token, 0, len(entry.key)))
        if name is None:
            return None
    return CallParameter(entry.key, value, ctx.whole(entry.token), name)
