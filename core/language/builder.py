"""Builds syntax-tree nodes while lark parses, and checks everything a block's structure can't:
parameter keys and values, placement of blocks, step lines, fragment references.

Problems are collected, not raised, so one pass reports every error of a file it can parse.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from typing import Any

from lark import Token, Transformer

from scenario_core.language import parameter_keys as params
from scenario_core.language.errors import Diagnostic, clip
from scenario_core.language.line_lexer import TAG
from scenario_core.language.nodes.assertions import CustomAssertion
from scenario_core.language.nodes.base import JsonTemplate, SourceLocation, TextTemplate
from scenario_core.language.nodes.blocks import (
    BackgroundNode,
    FeatureNode,
    FragmentNode,
    OutlineRow,
    ParameterEntry,
    ParametersNode,
    ScenarioFileNode,
    ScenarioNode,
)
from scenario_core.language.nodes.steps import (
    AUTO_KINDS,
    MAX_INCLUDE_DEPTH,
    MAX_PLANNED_STEPS,
    AssertStep,
    CallParameter,
    ConditionalBranch,
    ConditionalStep,
    DescribedStep,
    ExtractStep,
    FailStep,
    HeaderEntry,
    IncludeStep,
    OperationRef,
    QueryEntry,
    RequestStep,
    Step,
    WebhookStep,
)
from scenario_core.language.nodes.walk import leaf_conditions, walk_steps
from scenario_core.language.step_syntax import (
    METHODS,
    JsonPathError,
    LineError,
    compile_json_path,
    parse_extract,
    parse_then,
    split_request,
)
from scenario_core.language.templates import REF_NAME, JsonTextError, TemplateError, json_template, text_template

PARAMETERS_GO = (
    "parameters: may go at the top of the file (before the first feature:, scenario:, fragment: "
    "or background:) or directly after a feature: line (and its description:)"
)


@dataclass(slots=True)
class _Raw:
    """An intermediate piece handed from a rule to its parent: what it is, where, and its node."""

    kind: str
    token: Token
    node: Any = None
    structured: bool = False  # a body written as name: value lines


_OPERATION = re.compile(r"(?:using\s+([A-Za-z_][A-Za-z0-9_-]*)\s+)?\^([A-Za-z_][A-Za-z0-9_.-]*)\s*")
# BerryCrush's `call`: `^op` or a bare `op`, `using auth` or `using "auth"` (berrycrush.md §3.2).
_CALL = re.compile(r"""(?:using\s+["']?([A-Za-z_][A-Za-z0-9_-]*)["']?\s+)?\^?([A-Za-z_][A-Za-z0-9_.-]*)\s*""")
# `when: VERB target` reads as our request when the target is a path, a URL or a reference.
# (or its verb is a method: `when: GET health`; a lone upper-case word is a method missing its path).
_REQUEST_LIKE = re.compile(r"[A-Za-z]+\s+(/|https?://|\{\{)|(" + "|".join(METHODS) + r")\s|[A-Z]+\s*$")
# `extract $.path => name` (the path may be quoted, the name written {{name}}).
_ARROW = re.compile(r"""("[^"]*"|'[^']*'|\S+)\s*=>\s*(?:\{\{\s*([^{}\s]+)\s*\}\}|(\S+))""")
_TRIPLE = '"""'
_PARAM_REF = re.compile(r"\{\{\s*param\.([A-Za-z_][\w.-]*?)\s*\}\}")
_ASSERTION_WORDS = ("status", "header", "body", "time", "schema")
_BARE_JSON = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?|true|false|null|\{\{[^{}]*\}\}")


def _cells(row: str) -> list[str]:
    """An examples row's cells: split at `|` outside quotes (`| "a|b" | c |` has two)."""
    cells, start, quote = [], 0, ""
    for i, ch in enumerate(row):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'" and not row[start:i].strip():
            quote = ch
        elif ch == "|":
            cells.append(row[start:i])
            start = i + 1
    cells.append(row[start:])
    return cells


def _has_custom(condition: Any) -> bool:
    """Whether a condition is, or holds (under not / and / or), a custom assertion."""
    return any(isinstance(node, CustomAssertion) for node in leaf_conditions(condition))


def _present(children: list) -> list:
    """A block's children without the lines the parser skipped after a syntax error (None)."""
    return [child for child in children if child is not None]


def _unquoted(raw: str) -> str:
    return raw[1:-1] if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'" else raw


def _json_value_text(raw: str) -> str:
    """A child's or a structured body's value as JSON text: a JSON literal or a lone `{{NAME}}`
    as written (its type kept), a quoted string as a JSON string, any other word as a string."""
    if _BARE_JSON.fullmatch(raw) or raw[:1] in "[{" or (raw[:1] == '"' and raw[-1:] == '"' and len(raw) > 1):
        return raw
    return json.dumps(_unquoted(raw), ensure_ascii=False)


def _object_text(value: dict) -> str:
    """A nested dict of JSON value texts as one JSON object text (iterative: any depth)."""
    parts: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            parts.append(item)
        elif isinstance(item, dict):
            pieces: list[Any] = ["}"]
            for i, (key, child) in enumerate(reversed(list(item.items()))):
                pieces.append(child)
                pieces.append(json.dumps(key, ensure_ascii=False) + ": ")
                if i < len(item) - 1:
                    pieces.append(", ")
            pieces.append("{")
            stack.extend(pieces)
    return "".join(parts)


@dataclass(slots=True)
class _Entry:
    """`name: value`, one token: the name and the value's offset in it."""

    token: Token
    key: str
    value: str
    value_offset: int
    children: list["_Entry"] | None = None  # a nested block: `retry:` + indented entries


class Builder(Transformer):
    def __init__(self) -> None:
        super().__init__(visit_tokens=False)
        self.filename = "<text>"
        self.diagnostics: list[Diagnostic] = []

    def begin(self, filename: str, text: str = "", fragments: tuple[FragmentNode, ...] = ()) -> None:
        self.filename = filename
        self.diagnostics = []
        self.text = text
        self.external_fragments = fragments  # from .fragment files (semantics.md §5)
        self.user_keys: list[tuple[str, SourceLocation]] = []
        self.custom_seen = False  # a custom step or assertion was built
        # Fragments whose `fragment:` line the parser skipped after a syntax error: an include of
        # one is not reported again as unknown (the line's own error says what is wrong).
        self.skipped_fragments: set[str] = set()

    def skipped(self, token: Token) -> None:
        """The parser skipped this line after reporting it (parser.py's recovery)."""
        if token.type == "FRAGMENT":
            self.skipped_fragments.add(self.value(token, len("fragment:"))[0])

    def end(self) -> list[Diagnostic]:
        found, self.diagnostics = self.diagnostics, []
        return found

    # ------------------------------------------------------------ locations and errors

    def loc(self, token: Token, offset: int = 0, length: int | None = None) -> SourceLocation:
        # Lines are one too high: the parser prepends a line break to the text.
        line = token.line - 1
        column = token.column + offset
        if length is None:
            return SourceLocation(self.filename, line, column, token.end_line - 1, token.end_column)
        return SourceLocation(self.filename, line, column, line, column + length)

    def whole(self, token: Token) -> SourceLocation:
        """The token's line without trailing spaces."""
        line = token.line - 1
        return SourceLocation(self.filename, line, token.column, line, token.column + len(token.rstrip()))

    def span(self, first: Token, last: Token) -> SourceLocation:
        return SourceLocation(self.filename, first.line - 1, first.column, last.end_line - 1, last.end_column)

    def error(self, location: SourceLocation, message: str) -> None:
        if "\n" in message:  # one quoting a """ block's token: an error is one line
            message = " ".join(message.split("\n"))
        self.diagnostics.append(Diagnostic(location, message))

    def locator(self, token: Token, base: int = 0):
        return lambda offset, length: self.loc(token, base + offset, length)

    @staticmethod
    def value(token: Token, keyword: int) -> tuple[str, int]:
        """The value after a keyword of `keyword` characters, and its offset in the token."""
        rest = str(token)[keyword:]
        stripped = rest.lstrip(" \t")
        return stripped.rstrip(), keyword + len(rest) - len(stripped)

    def bare(self, token: Token, keyword: str) -> None:
        """Block keywords stand alone on their line; their content goes on the lines below."""
        rest, offset = self.value(token, len(keyword))
        if rest:
            self.error(
                self.loc(token, offset, len(rest)),
                f"'{keyword}' stands alone on its line; put its content on the indented lines below",
            )

    def named(self, token: Token, keyword: str) -> str:
        name, _ = self.value(token, len(keyword))
        if not name:
            self.error(self.whole(token), f"'{keyword}' needs a name on the same line")
        return name

    # ------------------------------------------------------------ parameters and key: value blocks

    def bad(self, children: list) -> None:
        # A line the parser could not place, already reported (parser.py's recovery): nothing.
        return None

    def entry(self, children: list) -> _Entry:
        children = _present(children)
        token = children[0]
        text = str(token)
        colon = text.find(":")
        if colon < 0:  # `petId = 1`: BerryCrush's call children take `=` too
            colon = text.find("=")
        if colon < 0:
            return _Entry(token, text.strip(), "", len(text), children[1:] or None)
        value, offset = self.value(token, colon + 1)
        return _Entry(token, text[:colon].strip(), value, offset, children[1:] or None)

    def _flat(self, entries: list[_Entry], what: str) -> list[_Entry]:
        """Entries of a block that takes no nesting: an indented block under one is an error."""
        for entry in entries:
            if entry.children:
                self.error(
                    self.loc(entry.children[0].token),
                    f"{what} lines do not nest; write each as `name: value` at one level",
                )
            if ":" not in str(entry.token) and "=" not in str(entry.token):
                self.error(self.whole(entry.token), f"expected a `name: value` line in {what}")
        return [e for e in entries if ":" in str(e.token) or "=" in str(e.token)]

    def _dotted(self, entries: list[_Entry], prefix: str = "") -> list[tuple[str, _Entry]]:
        """A parameters block's entries with nested blocks flattened: `retry:` + `maxAttempts: 3`
        is `retry.maxAttempts: 3` (berrycrush.md §2.2)."""
        flat: list[tuple[str, _Entry]] = []
        stack = [(prefix, list(entries))]
        while stack:
            base, pending = stack[-1]
            if not pending:
                stack.pop()
                continue
            entry = pending.pop(0)
            if entry.children:
                if entry.value:  # the key keeps its value; its block is the one mistake reported
                    self.error(
                        self.loc(entry.children[0].token),
                        f"'{entry.key}' has a value, so it cannot open a nested block",
                    )
                else:
                    stack.append((f"{base}{entry.key}.", list(entry.children)))
                    continue
            flat.append((base + entry.key, entry))
        return flat

    def parameters(self, children: list) -> _Raw:
        keyword, entries = children[0], _present(children[1:])
        self.bare(keyword, "parameters:")
        built: list[ParameterEntry] = []
        seen: dict[str, int] = {}
        for key, entry in self._dotted(entries):
            raw = entry.value
            key_location = self.loc(entry.token, 0, len(entry.key))
            if ":" not in str(entry.token):
                self.error(self.whole(entry.token), "a parameters: block holds `key: value` lines")
                continue
            if params.spec_for(key) is None:
                # A user key when the file reads it as {{param.KEY}} (semantics.md §1); decided in
                # start(), once every reference is known.
                if key in seen:
                    self.error(key_location, f"duplicate parameter '{key}'; it is already set on line {seen[key]}")
                    continue
                seen[key] = key_location.line
                self.user_keys.append((key, key_location))
                built.append(ParameterEntry(key, _unquoted(raw), raw, self.whole(entry.token)))
                continue
            if key in seen:
                self.error(key_location, f"duplicate parameter '{key}'; it is already set on line {seen[key]}")
                continue
            seen[key] = key_location.line
            value_location = self.loc(entry.token, entry.value_offset, max(len(raw), 1))
            try:
                value = params.parse_value(key, raw)
            except params.ParameterValueError as problem:
                self.error(value_location, str(problem))
                continue
            built.append(ParameterEntry(key, value, raw, self.whole(entry.token)))
        last = entries[-1].token if entries else keyword
        return _Raw("parameters", keyword, ParametersNode(tuple(built), self.span(keyword, last)))

    def _entries(self, entries: list[_Entry], what: str, make) -> tuple:
        built = []
        for entry in entries:
            name, raw = entry.key, entry.value
            location = self.whole(entry.token)
            if "{{" in name:
                self.error(self.loc(entry.token, 0, len(name)), f"a {what} name cannot hold {{{{...}}}}")
                continue
            if not raw:
                built.append(make(name, TextTemplate("", (), location), location))
                continue
            template = self.template(entry.token, raw, entry.value_offset, location)
            if template is not None:
                built.append(make(name, template, location))
        return tuple(built)

    def headers(self, children: list) -> _Raw:
        self.bare(children[0], "headers:")
        entries = self._entries(self._flat(_present(children[1:]), "headers:"), "header", HeaderEntry)
        return _Raw("headers", children[0], entries)

    def query(self, children: list) -> _Raw:
        self.bare(children[0], "query:")
        entries = self._entries(self._flat(_present(children[1:]), "query:"), "query", QueryEntry)
        return _Raw("query", children[0], entries)

    def template(
        self, token: Token, text: str, base: int = 0, location: SourceLocation | None = None
    ) -> TextTemplate | None:
        try:
            return text_template(text, self.locator(token, base), location)
        except TemplateError as problem:
            self.error(self.loc(token, base + problem.offset, 2), str(problem))
            return None

    # ------------------------------------------------------------ steps

    def body_line(self, children: list) -> Token:
        return children[0]

    def body(self, children: list) -> _Raw:
        keyword, lines = children[0], _present(children[1:])
        inline, inline_offset = self.value(keyword, len("body:"))
        if inline and lines:
            self.error(self.loc(lines[0]), "body: is written either on its line or indented below it, not both")
            return _Raw("body", keyword, None)
        if not inline and not lines:
            self.error(self.whole(keyword), "body: needs a JSON value, on the same line or indented below it")
            return _Raw("body", keyword, None)
        if inline.startswith(_TRIPLE) or (len(lines) == 1 and str(lines[0]).startswith(_TRIPLE)):
            return _Raw(
                "body", keyword, self._raw_body(keyword if inline else lines[0], inline_offset if inline else 0)
            )
        if (
            lines and ":" in str(lines[0]) and lines[0].type != "LINE" and str(lines[0])[:1] not in '{["'
        ):  # `name: value` lines
            return _Raw("body", keyword, self._structured_body(lines), structured=True)
        bases = [0] * len(lines)
        if inline:
            lines, bases = [keyword], [inline_offset]
        starts, parts, offset = [], [], 0
        for token, base in zip(lines, bases):
            starts.append(offset)
            part = str(token)[base:].rstrip()
            parts.append(part)
            offset += len(part) + 1
        text = "\n".join(parts)

        def locate(position: int, length: int) -> SourceLocation:
            index = max(i for i, start in enumerate(starts) if start <= position)
            return self.loc(lines[index], bases[index] + position - starts[index], length)

        try:
            node = json_template(text, locate, self.span(lines[0], lines[-1]) if not inline else self.whole(keyword))
        except (TemplateError, JsonTextError) as problem:
            self.error(locate(min(problem.offset, max(len(text) - 1, 0)), 1), f"body: {problem}")
            node = None
        return _Raw("body", keyword, node)

    def _raw_body(self, token: Token, offset: int) -> TextTemplate | None:
        """A triple-quoted block: sent as written (common indentation removed, then trimmed), with its
        {{NAME}} references rendered as text (berrycrush.md §1)."""
        import textwrap

        text = str(token)[offset:]
        if not (text.endswith(_TRIPLE) and len(text) >= 6):
            self.error(self.whole(token), 'a """ block is closed by """ on a line of its own')
            return None
        first, _, rest = text[3:-3].partition("\n")
        inner = (first.strip() + "\n" if first.strip() else "") + textwrap.dedent(rest)
        inner = inner.strip()
        try:
            return text_template(inner, lambda o, n: self.whole(token), self.span(token, token))
        except TemplateError as problem:
            self.error(self.whole(token), f"body: {problem}")
            return None

    def _structured_body(self, lines: list[Token]) -> JsonTemplate | None:
        """`name: "Max"` lines, nested by indentation, as one JSON object template (values keep
        their JSON type; a bare word is a string); the executor merges it over the operation's
        request-schema defaults."""
        root: dict = {}
        stack: list[tuple[int, dict]] = [(0, root)]  # (column, object) of the open levels
        for token in lines:
            text = str(token).rstrip()
            colon = text.find(":")
            if token.type == "LINE" or colon <= 0:
                self.error(
                    self.whole(token),
                    "a structured body has only `name: value` lines (or write the whole body as JSON)",
                )
                return None
            while len(stack) > 1 and token.column <= stack[-1][0]:
                stack.pop()
            name, value = text[:colon].strip(), text[colon + 1 :].strip()
            target = stack[-1][1]
            if not value:  # a nested object follows on deeper lines
                child: dict = {}
                target[name] = child
                stack.append((token.column, child))
                continue
            target[name] = _json_value_text(value)
        text = _object_text(root)
        try:
            return json_template(text, lambda offset, length: self.whole(lines[0]), self.span(lines[0], lines[-1]))
        except (TemplateError, JsonTextError) as problem:
            self.error(self.whole(lines[0]), f"body: {problem}")
            return None

    def call_entry(self, children: list) -> _Raw:
        return _Raw("entry", children[0], self.entry(children))

    def _request(self, token: Token, text: str, base: int, items: list, keyword: str = "when") -> Step | None:
        """Our `when: METHOD path` / `when: ^op`, or BerryCrush's `call ^op` (keyword "call"), with
        their children: one RequestStep either way."""
        location = self.whole(token)
        operation = None
        method = url = None
        if keyword == "call" or text.startswith("^") or text.startswith("using "):
            operation = self._operation_ref(token, text, base, keyword)
            if operation is None:
                return None
        else:
            try:
                method, path, path_offset = split_request(text)
            except LineError as problem:
                self.error(self.loc(token, base + problem.offset, problem.length), str(problem))
                return None
            url = self.template(token, path, base + path_offset, location)
        found: dict[str, _Raw] = {}
        entries: list[_Entry] = []
        for item in items:
            if item is None:
                continue
            if not isinstance(item, _Raw):
                self.error(
                    item.location,
                    f"'{item.keyword}' cannot go under a request: a request takes headers:, query: and body:",
                )
            elif item.kind == "parameters":
                self.error(self.loc(item.token), f"parameters: cannot go inside a step; {PARAMETERS_GO}")
            elif item.kind == "entry":
                entries.append(item.node)
            elif item.kind not in ("headers", "query", "body"):
                self.error(
                    self.loc(item.token),
                    f"{item.kind} cannot go under {'call' if keyword == 'call' else 'a request'}; "
                    "write it at the call's indentation, after it",
                )
            elif item.kind in found:
                first = found[item.kind].token.line - 1
                self.error(
                    self.loc(item.token), f"a second {item.kind}: for this request; the first is on line {first}"
                )
            else:
                found[item.kind] = item
        call_parameters, body_file, auto, excludes, counts = self._call_entries(entries, operation, text)
        if (url is None and operation is None) or any(
            item.node is None for item in found.values() if item.kind == "body"
        ):
            return None
        body = found.get("body")
        if body is not None and body_file is not None:
            self.error(self.loc(body.token), "a request has either body: or bodyFile:, not both")
        raw_body = body is not None and isinstance(body.node, TextTemplate)
        return RequestStep(
            method,
            url,
            found["headers"].node if "headers" in found else (),
            found["query"].node if "query" in found else (),
            body.node if body is not None and not raw_body else None,
            location,
            operation,
            call_parameters,
            body is not None and body.structured,
            body_file,
            auto,
            excludes,
            keyword,
            body.node if raw_body else None,
            counts,
        )

    def _operation_ref(self, token: Token, text: str, base: int, keyword: str = "when") -> OperationRef | None:
        pattern = _CALL if keyword == "call" else _OPERATION
        match = pattern.fullmatch(text)
        if match is None:
            example = (
                "call ^getPetById (or call using auth ^login)"
                if keyword == "call"
                else "when: ^getPetById (or when: using auth ^login)"
            )
            self.error(self.loc(token, base, len(text)), f"an operation call reads like: {example}")
            return None
        start = match.start(2) - (text[max(match.start(2) - 1, 0)] == "^")  # `call listPets` has no caret
        return OperationRef(match.group(2), match.group(1), self.loc(token, base + start, match.end(2) - start))

    def _call_entries(
        self, entries: list[_Entry], operation: OperationRef | None, request: str
    ) -> tuple[tuple[CallParameter, ...], TextTemplate | None]:
        built: list[CallParameter] = []
        body_file = None
        auto: tuple[str, ...] = ()
        excludes: tuple[str, ...] = ()
        counts: dict[str, int] = {}
        seen: dict[str, int] = {}
        for entry in entries:
            name, raw = entry.key, entry.value
            name_location = self.loc(entry.token, 0, len(name))
            if name == "bodyFile":
                body_file = self.template(entry.token, _unquoted(raw), entry.value_offset, self.whole(entry.token))
                continue
            if name in ("auto", "excludes") and operation is not None:
                words = tuple(w for w in re.split(r"[\s,\[\]]+", raw) if w)
                if name == "auto":
                    unknown = [w for w in words if w.lower() not in AUTO_KINDS]
                    if unknown or not words:
                        self.error(
                            self.loc(entry.token, entry.value_offset, max(len(raw), 1)),
                            f"auto: takes a list of {', '.join(AUTO_KINDS)}, got {raw or 'nothing'}",
                        )
                        continue
                    auto = tuple(w.lower() for w in words)
                else:
                    excludes = words
                continue
            if name in (params.MULTI_SEQUENTIAL, params.MULTI_CONCURRENT) and operation is not None:
                # auto: [multi]'s repeats for this call, over the parameter of the same name
                try:
                    counts[name] = params.parse_value(name, raw)
                except params.ParameterValueError as problem:
                    self.error(self.loc(entry.token, entry.value_offset, max(len(raw), 1)), str(problem))
                continue
            if operation is None:
                self.error(
                    name_location,
                    f"'{name}:' places a value in an operation's request; "
                    f"'{request}' is not an operation call (when: ^operationId). "
                    "Use headers: or query: here",
                )
                continue
            if name in seen:
                self.error(name_location, f"'{name}' is given twice for this call; the first is on line {seen[name]}")
                continue
            seen[name] = name_location.line
            if not raw:
                self.error(name_location, f"'{name}:' needs a value")
                continue
            parameter = self._call_parameter(entry, raw)
            if parameter is not None:
                built.append(parameter)
        return tuple(built), body_file, auto, excludes, tuple(counts.items())

    def _call_parameter(self, entry: _Entry, raw: str) -> CallParameter | None:
        """`name: value` under a call or an include: the value as a JSON template, its type kept."""
        try:
            value = json_template(
                _json_value_text(raw), self.locator(entry.token, entry.value_offset), self.whole(entry.token)
            )
        except (TemplateError, JsonTextError) as problem:
            self.error(self.loc(entry.token, entry.value_offset, max(len(raw), 1)), f"{entry.key}: {problem}")
            return None
        return CallParameter(entry.key, value, self.whole(entry.token))

    # Telling the dialects apart (semantics.md §5): `when: METHOD target` with only headers:,
    # query:, body: below is our request, `when: ^op` our operation call, `then: ASSERTION` our
    # assertion; any other step line is BerryCrush's described step, its directives below.

    def when(self, children: list) -> Step | None:
        token, items = children[0], children[1:]
        text, base = self.value(token, len("when:"))
        if not self._directives(items) and (text.startswith(("^", "using ")) or _REQUEST_LIKE.match(text)):
            return self._request(token, text, base, items)
        return self._described(token, "when", text, base, items)

    def then(self, children: list) -> Step | None:
        token, items = children[0], children[1:]
        text, base = self.value(token, len("then:"))
        if not self._directives(items):
            try:
                return parse_then(text, self.locator(token, base), self.whole(token))
            except LineError as problem:
                # A line that starts like an assertion is one with a mistake, not a custom step.
                if not items and (not text or text.split()[0] in _ASSERTION_WORDS or text.startswith("$")):
                    self.error(self.loc(token, base + problem.offset, problem.length), str(problem))
                    return None
        return self._described(token, "then", text, base, items)

    def step(self, children: list) -> Step | None:
        token, items = children[0], children[1:]
        word = str(token).split(None, 1)[0].split(":", 1)[0]
        text, base = self.value(token, len(word))
        colon = text.startswith(":")
        if colon:
            text, base = self.value(token, len(word) + 1)
        keyword = word.lower()
        if not colon and not self._directives(items) and keyword in ("when", "then"):
            # `when GET /health`, `then status 200`: ours, missing its colon (a described step
            # would need directives below it or a custom step of that exact text).
            ours = (
                _REQUEST_LIKE.match(text) and text.split()[0] in METHODS
                if keyword == "when"
                else text and (text.split()[0] in _ASSERTION_WORDS or text.startswith("$"))
            )
            if ours:
                self.error(
                    self.loc(token, 0, len(word)),
                    f"'{word} {clip(text)}' reads as a described step; "
                    f"write {keyword}: with a colon for a "
                    f"{'request' if keyword == 'when' else 'check'}",
                )
                return None
        return self._described(token, keyword, text, base, items)

    @staticmethod
    def _directives(items: list) -> bool:
        return any(not isinstance(item, _Raw) or item.kind in ("if", "else") for item in items if item is not None)

    def _described(self, token: Token, keyword: str, text: str, base: int, items: list) -> Step | None:
        if not text:
            self.error(
                self.whole(token),
                f"'{keyword}' needs a description (when I create a pet) or, with a colon, a request (when: POST /pets)",
            )
            return None
        description = self.template(token, text, base, self.whole(token))
        steps = self._directive_steps(items, f"'{keyword} {clip(text)}'")
        if description is None:
            return None
        if not steps:
            self.custom_seen = True
        return DescribedStep(keyword, description, steps, self.whole(token))

    def _directive_steps(self, items: list, where: str) -> tuple[Step, ...]:
        """Directives as steps, `if` / `else if` / `else` chained into one ConditionalStep."""
        steps: list[Step] = []
        chain: list[ConditionalBranch] = []
        chain_start: Token | None = None
        chain_closed = broken = False

        def close() -> None:
            nonlocal chain, chain_start
            if chain:
                steps.append(ConditionalStep(tuple(chain), self.whole(chain_start)))
            chain, chain_start = [], None

        for item in items:
            if item is None:
                continue
            if isinstance(item, _Raw) and item.kind == "if":
                close()
                broken = item.node is None  # its error is reported; its else branches go with it
                chain, chain_start, chain_closed = ([] if broken else [item.node]), item.token, False
                continue
            if isinstance(item, _Raw) and item.kind == "else":
                if broken or item.node is None:
                    broken = True
                    continue
                if not chain:
                    self.error(self.whole(item.token), "else without an if before it at the same indentation")
                elif chain_closed:
                    self.error(
                        self.whole(item.token), "nothing may follow a plain else in an if chain; put else if before it"
                    )
                else:
                    chain.append(item.node)
                    chain_closed = item.node.condition is None
                continue
            close()
            broken = False
            if isinstance(item, _Raw):
                what = item.kind if item.kind != "entry" else f"'{item.node.key}:'"
                self.error(
                    self.loc(item.token),
                    f"{what} cannot go under {where}: under a described step go "
                    "call, assert, extract, include, if/else, fail and webhook",
                )
            elif isinstance(item, DescribedStep):
                self.error(item.location, f"steps do not nest: '{item.keyword}' goes at the indentation of {where}")
            else:
                steps.append(item)
        close()
        return tuple(steps)

    def call(self, children: list) -> Step | None:
        token, items = children[0], children[1:]
        text, base = self.value(token, len("call"))
        if not text:
            self.error(self.whole(token), "call needs an operation: call ^getPetById")
            return None
        return self._request(token, text, base, items, keyword="call")

    def _condition(self, token: Token, text: str, base: int, in_if: bool):
        from scenario_core.language.conditions import parse_condition

        try:
            condition = parse_condition(text, self.locator(token, base), self.whole(token), in_if=in_if)
            if not self.custom_seen and _has_custom(condition):
                self.custom_seen = True
            return condition
        except LineError as problem:
            self.error(self.loc(token, base + problem.offset, problem.length), str(problem))
            return None

    def assert_(self, children: list) -> Step | None:
        (token,) = children
        text, base = self.value(token, len("assert"))
        if not text:
            self.error(self.whole(token), "assert needs a condition: assert status 200")
            return None
        condition = self._condition(token, text, base, in_if=False)
        return AssertStep(text, condition, self.whole(token), keyword="assert") if condition is not None else None

    def xextract(self, children: list) -> Step | None:
        (token,) = children
        text, base = self.value(token, len("extract"))
        match = _ARROW.fullmatch(text)
        if not match:
            self.error(
                self.loc(token, base, max(len(text), 1)),
                "extract reads like: extract $.id => petId (or, ours, extract: petId from $.id)",
            )
            return None
        path = _unquoted(match.group(1))
        name = match.group(2) or match.group(3)
        name_at = match.start(2) if match.group(2) else match.start(3)
        if not REF_NAME.fullmatch(name):
            self.error(
                self.loc(token, base + name_at, len(name)),
                f"'{name}' is not a variable name: letters, digits and _, not starting with a digit",
            )
            return None
        try:
            compiled = compile_json_path(path)
        except JsonPathError as error:
            self.error(self.loc(token, base, len(match.group(1))), str(error))
            return None
        return ExtractStep(name, "body", path, compiled, self.whole(token), keyword="extract", arrow=True)

    def xinclude(self, children: list) -> Step | None:
        token, entries = children[0], _present(children[1:])
        name, base = self.value(token, len("include"))
        if not name:
            self.error(self.whole(token), "include needs a fragment name: include login")
            return None
        if " " in name:
            self.error(
                self.loc(token, base, len(name)),
                "a fragment name is one word; its parameters go on the indented lines below: name: value",
            )
            return None
        arguments = [
            self._call_parameter(entry, entry.value or "null") for entry in self._flat(entries, "include parameters")
        ]
        return IncludeStep(
            name, self.whole(token), tuple(a for a in arguments if a is not None), keyword="include", bare=True
        )

    def _branch(self, token: Token, text: str, base: int, items: list, keyword: str) -> ConditionalBranch | None:
        in_if = keyword != "else"
        condition = self._condition(token, text, base, in_if=True) if in_if else None
        steps = self._directive_steps(items, "an if branch")
        if in_if and condition is None:
            return None
        return ConditionalBranch(condition, text, steps, self.whole(token), keyword)

    def if_(self, children: list) -> _Raw:
        token, items = children[0], children[1:]
        text, base = self.value(token, len("if"))
        if not text:
            self.error(self.whole(token), "if needs a condition: if status 201")
        branch = self._branch(token, text, base, items, "if") if text else None
        return _Raw("if", token, branch)

    def else_(self, children: list) -> _Raw:
        token, items = children[0], children[1:]
        text, base = self.value(token, len("else"))
        if text[:2].lower() == "if" and (len(text) == 2 or text[2] in " \t"):
            condition_text, offset = self.value(token, base + 2)
            if not condition_text:
                self.error(self.whole(token), "else if needs a condition: else if status 200")
                return _Raw("else", token, None)
            return _Raw("else", token, self._branch(token, condition_text, offset, items, "else if"))
        if text:
            self.error(self.loc(token, base, len(text)), "else takes nothing after it (or: else if CONDITION)")
        return _Raw("else", token, self._branch(token, "", base, items, "else"))

    def fail(self, children: list) -> Step | None:
        (token,) = children
        text, base = self.value(token, len("fail"))
        message = text
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
            message, base = text[1:-1], base + 1
        template = self.template(token, message or "failed", base, self.whole(token))
        return FailStep(template, self.whole(token)) if template is not None else None

    def webhook(self, children: list) -> Step | None:
        token, entries = children[0], _present(children[1:])
        word = "webhook:" if str(token)[7:8] == ":" else "webhook"
        name, base = self.value(token, len(word))
        if not REF_NAME.fullmatch(name or "-") or "." in name:
            self.error(self.whole(token), "webhook needs a name: webhook: callbacks")
            return None
        hooks: list[str] = []
        port, scope = 0, "scenario"
        for entry in self._flat(entries, "webhook"):
            value = _unquoted(entry.value)
            where = self.loc(entry.token, entry.value_offset, max(len(entry.value), 1))
            if entry.key in ("hook", "hooks"):
                found = [h for h in re.split(r"[\s,\[\]\"']+", value) if h]
                bad = [h for h in found if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", h)]
                if bad or not found:
                    self.error(
                        where,
                        f"{entry.key}: takes hook names (letters, digits, _ and -), got {entry.value or 'nothing'}",
                    )
                hooks += [h for h in found if h not in bad]
            elif entry.key == "port":
                if not value.isdigit() or int(value) > 65535:
                    self.error(where, f"port must be 0 (any free port) or a port number up to 65535, got {entry.value}")
                else:
                    port = int(value)
            elif entry.key == "scope":
                if value not in ("scenario", "feature"):
                    self.error(where, f"scope must be scenario or feature, got {entry.value}")
                else:
                    scope = value
            else:
                self.error(
                    self.loc(entry.token, 0, len(entry.key)),
                    f"unknown webhook setting '{entry.key}'; use hook, hooks, port or scope",
                )
        if not hooks:
            self.error(self.whole(token), f"webhook {name} needs at least one hook: hook: callback")
            return None
        return WebhookStep(name, tuple(hooks), port, scope, self.whole(token))

    def extract(self, children: list) -> Step | None:
        (token,) = children
        text, base = self.value(token, len("extract:"))
        try:
            return parse_extract(text, self.locator(token, base), self.whole(token))
        except LineError as problem:
            self.error(self.loc(token, base + problem.offset, problem.length), str(problem))
            return None

    def include(self, children: list) -> Step | None:
        (token,) = children
        name = self.named(token, "include:")
        return IncludeStep(name, self.whole(token)) if name else None

    # ------------------------------------------------------------ blocks of steps

    def _steps(self, items: list, where: str, allow_parameters: bool = False) -> tuple[tuple[Step, ...], Any]:
        """A block's steps, and its own parameters: block when it may have one (a scenario's or an
        outline's, as its first lines: semantics.md §1)."""
        steps = []
        own = None
        for index, item in enumerate(items):
            if isinstance(item, _Raw):  # only parameters blocks reach here
                if allow_parameters and index == 0 and item.kind == "parameters":
                    own = item.node
                    shared = own.get(params.SHARE) if own is not None else None
                    if shared is not None:
                        self.error(
                            shared.location,
                            f"{params.SHARE} cannot be set for one scenario: sharing is "
                            "decided by its feature or the file, because stores outlive scenarios",
                        )
                    continue
                if allow_parameters and own is not None and not steps and item.kind == "parameters":
                    self.error(
                        self.loc(item.token),
                        f"{where} has at most one parameters: block; the first is on line {own.line}",
                    )
                    continue
                where_go = (
                    f"{PARAMETERS_GO}, or as the first lines of a scenario" if allow_parameters else PARAMETERS_GO
                )
                self.error(
                    self.loc(item.token),
                    f"parameters: cannot go inside {where}"
                    f"{' after its first step' if allow_parameters else ''}; {where_go}",
                )
            elif item is not None:
                steps.append(item)
        return tuple(steps), own

    def tags(self, children: list) -> _Raw:
        # A TAG token holds a line's tags (`@a @b`).
        return _Raw("tags", children[0], frozenset(t[1:] for line in children for t in TAG.findall(str(line))))

    def scenario(self, children: list) -> _Raw:
        tags = children.pop(0).node if isinstance(children[0], _Raw) else frozenset()
        keyword = children[0]
        steps, own = self._steps(children[1:], "a scenario", allow_parameters=True)
        node = ScenarioNode(self.named(keyword, "scenario:"), tags, steps, self.whole(keyword), own)
        return _Raw("scenario", keyword, node)

    def outline(self, children: list) -> _Raw:
        """An outline is one scenario per examples row (semantics.md §5), named after the outline
        with the row's number and values; the row's cells are variables of that scenario."""
        tags = children.pop(0).node if isinstance(children[0], _Raw) and children[0].kind == "tags" else frozenset()
        keyword = children[0]
        name = self.named(keyword, "outline:")
        tables = [item for item in children[1:] if isinstance(item, _Raw) and item.kind == "examples"]
        rest = [item for item in children[1:] if not (isinstance(item, _Raw) and item.kind == "examples")]
        for extra in tables[1:]:
            self.error(
                self.loc(extra.token),
                f"an outline has one examples: table; the first is on line {tables[0].token.line - 1}",
            )
        if tables:
            after = children[children.index(tables[0]) + 1 :]
            late = next(
                (
                    item
                    for item in after
                    if item is not None and not (isinstance(item, _Raw) and item.kind == "examples")
                ),
                None,
            )
            if late is not None:
                self.error(
                    self.loc(late.token) if isinstance(late, _Raw) else late.location,
                    "examples: comes last in an outline, after its steps",
                )
        steps, own = self._steps(rest, "an outline", allow_parameters=True)
        rows = tables[0].node if tables else None
        location = self.whole(keyword)
        if not rows:  # no examples (or none parsed): the outline runs once, as BerryCrush does
            return _Raw("outlines", keyword, [ScenarioNode(name, tags, steps, location, own)])
        columns, body = rows
        scenarios = []
        for number, (token, cells) in enumerate(body, 1):
            shown = ", ".join(f"{c}={v}" for c, v in zip(columns, cells))
            row = OutlineRow(name, location.line, number, tuple(zip(columns, cells)))
            scenarios.append(ScenarioNode(f"{name} #{number} ({shown})", tags, steps, self.whole(token), own, row))
        return _Raw("outlines", keyword, scenarios)

    def examples(self, children: list) -> _Raw:
        token, lines = children[0], _present(children[1:])
        word = "examples:" if str(token)[8:9] == ":" else "examples"
        self.bare(token, word)
        if not lines:
            self.error(self.whole(token), "examples: needs a table below it: | name | age | and a row per scenario")
            return _Raw("examples", token, None)
        table: list[tuple[Token, list[str]]] = []
        for line in lines:
            text = str(line).strip()
            if not (text.startswith("|") and text.endswith("|") and len(text) > 1):
                self.error(self.whole(line), "an examples row reads like: | Fluffy | 3 |")
                return _Raw("examples", token, None)
            table.append((line, [_unquoted(cell.strip()) for cell in _cells(text[1:-1])]))
        columns = table[0][1]
        for index, column in enumerate(columns):
            if not REF_NAME.fullmatch(column) or "[" in column:
                self.error(
                    self.whole(table[0][0]),
                    f"column {index + 1} of the examples header, '{column}', is not a "
                    "variable name: letters, digits and _",
                )
                return _Raw("examples", token, None)
        rows = []
        for line, cells in table[1:]:
            if len(cells) != len(columns):
                self.error(
                    self.whole(line),
                    f"this row has {len(cells)} cell{'' if len(cells) == 1 else 's'}; "
                    f"the header has {len(columns)} "
                    f"({', '.join(columns)})",
                )
                continue
            rows.append((line, cells))
        return _Raw("examples", token, (columns, rows))

    def background(self, children: list) -> _Raw:
        keyword = self._untagged(children, "background:")
        self.bare(keyword, "background:")
        steps, _ = self._steps(children[1:], "a background")
        return _Raw("background", keyword, BackgroundNode(steps, self.loc(keyword)))

    def fragment(self, children: list) -> _Raw:
        keyword = self._untagged(children, "fragment:")
        steps, _ = self._steps(children[1:], "a fragment")
        return _Raw("fragment", keyword, FragmentNode(self.named(keyword, "fragment:"), steps, self.whole(keyword)))

    def _untagged(self, children: list, keyword: str) -> Token:
        """The keyword of a block that takes no tags; a tag before it is reported on the tag's
        line (where the mistake is), and the block is read as if it were not there."""
        if isinstance(children[0], _Raw):
            tags = children.pop(0)
            self.error(self.whole(tags.token), f"{keyword} takes no tags; tags go on a feature:, scenario: or outline:")
        return children[0]

    def description(self, children: list) -> _Raw:
        return _Raw("description", children[0], self.value(children[0], len("description:"))[0])

    # ------------------------------------------------------------ features and the file

    def _once(self, seen: dict[str, _Raw], item: _Raw, level: str) -> bool:
        if item.kind in seen:
            first = seen[item.kind].token.line - 1
            self.error(
                self.loc(item.token), f"{level} has at most one {item.kind}: block; the first is on line {first}"
            )
            return False
        seen[item.kind] = item
        return True

    def feature(self, children: list) -> _Raw:
        tags = children.pop(0).node if isinstance(children[0], _Raw) and children[0].kind == "tags" else frozenset()
        keyword, items = children[0], [i for i in children[1:] if i is not None and i.kind != "tags"]
        seen: dict[str, _Raw] = {}
        descriptions: list[str] = []
        scenarios: list[ScenarioNode] = []
        later = None  # the first item after which parameters: and description: are too late
        for item in items:
            if item.kind == "description":
                if later is not None:
                    self.error(self.loc(item.token), "description: goes directly after the feature: line")
                descriptions.append(item.node)
            elif item.kind == "parameters":
                if later is not None:
                    self.error(
                        self.loc(item.token),
                        f"a feature's parameters: must come directly after its feature: line "
                        f"(and description:), before its {later}",
                    )
                elif self._once(seen, item, "a feature"):
                    pass
            elif item.kind == "background":
                if scenarios:
                    self.error(self.loc(item.token), "a feature's background: comes before its first scenario:")
                elif self._once(seen, item, "a feature"):
                    pass
                later = later or "background"
            elif item.kind == "scenario":
                scenarios.append(item.node)
                later = later or "scenarios"
            elif item.kind == "outlines":
                scenarios.extend(item.node)
                later = later or "scenarios"
            elif item.kind == "fragment":
                self.error(self.loc(item.token), "fragments are defined at file level, not inside a feature")
        node = FeatureNode(
            self.named(keyword, "feature:"),
            "\n".join(descriptions) or None,
            seen["background"].node if "background" in seen else None,
            tuple(scenarios),
            tags,
            seen["parameters"].node if "parameters" in seen else None,
            self.whole(keyword),
        )
        return _Raw("feature", keyword, node)

    def start(self, children: list) -> ScenarioFileNode:
        seen: dict[str, _Raw] = {}
        items: list[FeatureNode | ScenarioNode] = []
        fragments: dict[str, FragmentNode] = {}
        first_other: _Raw | None = None  # parameters: must precede every other block
        for item in children:
            if item is None or item.kind == "tags":  # a line the parser skipped (reported), its tags
                continue
            if item.kind == "parameters":
                if first_other is not None:
                    self.error(
                        self.loc(item.token),
                        f"file-level parameters: must come before the first {first_other.kind.rstrip('s')}: "
                        f"(line {first_other.token.line - 1}); {PARAMETERS_GO}",
                    )
                else:
                    self._once(seen, item, "a file")
                continue
            first_other = first_other or item
            if item.kind == "background":
                standalone = next((i for i in items if isinstance(i, ScenarioNode)), None)
                if standalone is not None:
                    self.error(
                        self.loc(item.token),
                        f"the file's background: comes before its first scenario: (line {standalone.line})",
                    )
                else:
                    self._once(seen, item, "a file")
            elif item.kind == "fragment":
                if item.node.name in fragments:
                    self.error(
                        item.node.location,
                        f"a second fragment named '{item.node.name}'; "
                        f"the first is on line {fragments[item.node.name].line}",
                    )
                else:
                    fragments[item.node.name] = item.node
            elif item.kind == "outlines":
                items.extend(item.node)
            else:
                items.append(item.node)
        # Fragments of .fragment files come after the file's own (semantics.md §5).
        for fragment in self.external_fragments:
            first = fragments.get(fragment.name)
            if first is not None:
                self.error(
                    first.location if first.location.file == self.filename else fragment.location,
                    f"fragment '{fragment.name}' is defined twice: {first.location.file}:{first.line} "
                    f"and {fragment.location.file}:{fragment.line}",
                )
            else:
                fragments[fragment.name] = fragment
        self._check_user_keys()
        features = tuple(i for i in items if isinstance(i, FeatureNode))
        node = ScenarioFileNode(
            scenarios=tuple(i for i in items if isinstance(i, ScenarioNode)),
            fragments=tuple(fragments.values()),
            features=features,
            parameters=seen["parameters"].node if "parameters" in seen else None,
            background=seen["background"].node if "background" in seen else None,
            items=tuple(items),
            location=SourceLocation(self.filename, 1, 1, 1, 1),
            custom_steps=self.custom_seen or self._external_custom(),
        )
        self._check_includes(node, fragments)
        return node

    def _external_custom(self) -> bool:
        for fragment in self.external_fragments:
            for step in walk_steps(fragment.steps):
                if isinstance(step, DescribedStep) and not step.steps:
                    return True
                if isinstance(step, AssertStep) and _has_custom(step.assertion):
                    return True
                if isinstance(step, ConditionalStep) and any(_has_custom(b.condition) for b in step.branches):
                    return True
        return False

    def _check_user_keys(self) -> None:
        """A parameter key that is not known is a user parameter when the file reads it as
        {{param.KEY}}; otherwise it is the unknown-key error (a typo is still caught)."""
        if not self.user_keys:
            return
        read = set(_PARAM_REF.findall(self.text)) if "param." in self.text else set()
        for key, location in self.user_keys:
            if key not in read:
                self.error(location, params.unknown_key_message(key))

    def _check_includes(self, file: ScenarioFileNode, fragments: dict[str, FragmentNode]) -> None:
        """Unknown fragments, include cycles, and the limits on what includes expand to: nesting
        depth (MAX_INCLUDE_DEPTH) and steps a block runs (MAX_PLANNED_STEPS). Every pass is
        linear in the file: each fragment is measured once, however often it is included (24
        fragments each including the next twice expand to 2^24 steps; none is walked twice)."""
        blocks: list[tuple[Step, ...]] = [f.steps for f in fragments.values()]
        if file.background:
            blocks.append(file.background.steps)
        for item in file.items:
            if isinstance(item, FeatureNode):
                if item.background:
                    blocks.append(item.background.steps)
                blocks.extend(s.steps for s in item.scenarios)
            else:
                blocks.append(item.steps)
        names = list(fragments)
        listing = ", ".join(names[:20]) + (f" and {len(names) - 20} more" if len(names) > 20 else "")
        budget = 50_000  # name comparisons for did-you-mean: 1,000 unknown includes stay fast
        # A .fragment file may include fragments of other files: the scenario file that loads it
        # checks its includes, with every fragment known.
        for steps in blocks if not self.filename.endswith(".fragment") else ():
            for step in walk_steps(steps):
                if (
                    isinstance(step, IncludeStep)
                    and step.fragment not in fragments
                    and step.fragment not in self.skipped_fragments
                ):
                    wanted = step.fragment
                    # A close match differs in length by at most a third (difflib's 0.6 ratio).
                    candidates = [n for n in names if abs(len(n) - len(wanted)) * 3 <= max(len(n), len(wanted))]
                    budget -= len(candidates)
                    close = difflib.get_close_matches(wanted, candidates, n=1, cutoff=0.6) if budget > 0 else []
                    hint = (
                        f"; did you mean '{close[0]}'?"
                        if close
                        else (
                            f"; fragments in this file: {listing}" if fragments else "; this file defines no fragments"
                        )
                    )
                    self.error(step.location, f"include of unknown fragment '{step.fragment}'{hint}")
        cyclic = self._report_cycles(fragments)
        measures = self._measure_fragments(fragments, cyclic)
        for steps in blocks:
            self._check_expansion(steps, fragments, measures)

    @staticmethod
    def _includes(fragment: FragmentNode, fragments: dict[str, FragmentNode]) -> list[str]:
        return [
            s.fragment for s in walk_steps(fragment.steps) if isinstance(s, IncludeStep) and s.fragment in fragments
        ]

    def _report_cycles(self, fragments: dict[str, FragmentNode]) -> set[str]:
        """A fragment that includes itself, directly or not, would never end: each cycle is
        reported once, at its first fragment. Iterative depth-first search, linear."""
        state: dict[str, int] = {}  # 1 on the current path, 2 done
        cyclic: set[str] = set()
        for root in fragments:
            if root in state:
                continue
            path: list[str] = [root]
            pending: list[list[str]] = [self._includes(fragments[root], fragments)]
            state[root] = 1
            while path:
                if not pending[-1]:
                    state[path.pop()] = 2
                    pending.pop()
                    continue
                child = pending[-1].pop(0)
                if state.get(child) == 1:
                    cycle = path[path.index(child) :] + [child]
                    if not cyclic.intersection(cycle):
                        self.error(fragments[cycle[0]].location, "fragment includes itself: " + " → ".join(cycle))
                    cyclic.update(cycle)
                elif child not in state:
                    state[child] = 1
                    path.append(child)
                    pending.append(self._includes(fragments[child], fragments))
        return cyclic

    def _measure_fragments(
        self, fragments: dict[str, FragmentNode], cyclic: set[str]
    ) -> dict[str, tuple[int, int, str | None]]:
        """name -> (nesting depth of its includes, steps it expands to (capped), its deepest
        include), each computed once (children first, iteratively). Cyclic ones are left out."""
        measures: dict[str, tuple[int, int, str | None]] = {}
        cap = MAX_PLANNED_STEPS + 1
        for root in fragments:
            if root in measures or root in cyclic:
                continue
            stack = [root]
            while stack:
                name = stack[-1]
                children = [c for c in self._includes(fragments[name], fragments) if c not in cyclic]
                waiting = [c for c in children if c not in measures]
                if waiting:
                    stack.extend(waiting)
                    continue
                stack.pop()
                if name in measures:
                    continue
                depth, deepest, count = 0, None, 0
                for step in walk_steps(fragments[name].steps):
                    if isinstance(step, IncludeStep):
                        found = measures.get(step.fragment)
                        if found is not None:
                            count += found[1]
                            if found[0] + 1 > depth:
                                depth, deepest = found[0] + 1, step.fragment
                    else:
                        count += 1
                measures[name] = (depth, min(count, cap), deepest)
        return measures

    def _check_expansion(
        self,
        steps: tuple[Step, ...],
        fragments: dict[str, FragmentNode],
        measures: dict[str, tuple[int, int, str | None]],
    ) -> None:
        """The limits a block's includes must stay within, as located errors: the executor
        never drops or cuts what a limit would stop (no silent pass)."""
        total = 0
        for step in walk_steps(steps):
            if not isinstance(step, IncludeStep):
                total += 1
                continue
            found = measures.get(step.fragment)
            if found is None:
                continue
            depth, count, _ = found
            if depth + 1 > MAX_INCLUDE_DEPTH:
                chain, name = [step.fragment], step.fragment
                while (name := measures[name][2]) is not None and len(chain) <= MAX_INCLUDE_DEPTH:
                    chain.append(name)
                shown = " → ".join(chain[:4]) + (" → …" if len(chain) > 4 else "")
                self.error(
                    step.location,
                    f"includes nest {depth + 1} levels deep here ({shown}); the limit is {MAX_INCLUDE_DEPTH}",
                )
                return
            total += count
            if total > MAX_PLANNED_STEPS:
                amount = f"{count:,}" if count <= MAX_PLANNED_STEPS else f"over {MAX_PLANNED_STEPS:,}"
                self.error(
                    step.location,
                    f"include of '{step.fragment}' expands to {amount} steps "
                    f"(includes inside fragments multiply); a block runs at most "
                    f"{MAX_PLANNED_STEPS:,} steps",
                )
                return
