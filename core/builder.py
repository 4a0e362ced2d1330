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

from . import parameters as params
from .errors import Diagnostic
from .line_lexer import TAG
from .nodes import MAX_INCLUDE_DEPTH, MAX_PLANNED_STEPS
from .nodes import (
    BackgroundNode, CallParameter, FeatureNode, FragmentNode, HeaderEntry, IncludeStep, JsonTemplate, OperationRef,
    ParameterEntry, ParametersNode, QueryEntry, RequestStep, ScenarioFileNode, ScenarioNode,
    SourceLocation, Step, TextTemplate,
)
from .step_syntax import LineError, parse_extract, parse_then, split_request
from .templates import JsonTextError, TemplateError, json_template, text_template

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
_BARE_JSON = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?|true|false|null|\{\{[^{}]*\}\}")


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


class Builder(Transformer):
    def __init__(self) -> None:
        super().__init__(visit_tokens=False)
        self.filename = "<text>"
        self.diagnostics: list[Diagnostic] = []

    def begin(self, filename: str) -> None:
        self.filename = filename
        self.diagnostics = []

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
            self.error(self.loc(token, offset, len(rest)),
                       f"'{keyword}' stands alone on its line; put its content on the indented lines below")

    def named(self, token: Token, keyword: str) -> str:
        name, _ = self.value(token, len(keyword))
        if not name:
            self.error(self.whole(token), f"'{keyword}' needs a name on the same line")
        return name

    # ------------------------------------------------------------ parameters and key: value blocks

    def entry(self, children: list) -> _Entry:
        token = children[0]
        colon = str(token).index(":")
        value, offset = self.value(token, colon + 1)
        return _Entry(token, str(token)[:colon].strip(), value, offset)

    def parameters(self, children: list) -> _Raw:
        keyword, entries = children[0], children[1:]
        self.bare(keyword, "parameters:")
        built: list[ParameterEntry] = []
        seen: dict[str, int] = {}
        for entry in entries:
            key, raw = entry.key, entry.value
            key_location = self.loc(entry.token, 0, len(key))
            if params.spec_for(key) is None:
                self.error(key_location, params.unknown_key_message(key))
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
        entries = self._entries(children[1:], "header", HeaderEntry)
        return _Raw("headers", children[0], entries)

    def query(self, children: list) -> _Raw:
        self.bare(children[0], "query:")
        entries = self._entries(children[1:], "query", QueryEntry)
        return _Raw("query", children[0], entries)

    def template(self, token: Token, text: str, base: int = 0,
                 location: SourceLocation | None = None) -> TextTemplate | None:
        try:
            return text_template(text, self.locator(token, base), location)
        except TemplateError as problem:
            self.error(self.loc(token, base + problem.offset, 2), str(problem))
            return None

    # ------------------------------------------------------------ steps

    def body_line(self, children: list) -> Token:
        return children[0]

    def body(self, children: list) -> _Raw:
        keyword, lines = children[0], children[1:]
        inline, inline_offset = self.value(keyword, len("body:"))
        if inline and lines:
            self.error(self.loc(lines[0]), "body: is written either on its line or indented below it, not both")
            return _Raw("body", keyword, None)
        if not inline and not lines:
            self.error(self.whole(keyword), "body: needs a JSON value, on the same line or indented below it")
            return _Raw("body", keyword, None)
        if lines and lines[0].type == "ENTRY" and str(lines[0])[:1] not in '{["':  # `name: value` lines
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

    def _structured_body(self, lines: list[Token]) -> JsonTemplate | None:
        """`name: "Max"` lines, nested by indentation, as one JSON object template (values keep
        their JSON type; a bare word is a string); the executor merges it over the operation's
        request-schema defaults."""
        root: dict = {}
        stack: list[tuple[int, dict]] = [(0, root)]  # (column, object) of the open levels
        for token in lines:
            text = str(token).rstrip()
            colon = text.find(":")
            if token.type != "ENTRY" or colon <= 0:
                self.error(self.whole(token), "a structured body has only `name: value` lines "
                                              "(or write the whole body as JSON)")
                return None
            while len(stack) > 1 and token.column <= stack[-1][0]:
                stack.pop()
            name, value = text[:colon].strip(), text[colon + 1:].strip()
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

    def when(self, children: list) -> Step | None:
        token, items = children[0], children[1:]
        text, base = self.value(token, len("when:"))
        location = self.whole(token)
        operation = None
        method = url = None
        if text.startswith("^") or text.startswith("using "):
            operation = self._operation_ref(token, text, base)
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
            if item.kind == "parameters":
                self.error(self.loc(item.token), f"parameters: cannot go inside a step; {PARAMETERS_GO}")
            elif item.kind == "entry":
                entries.append(item.node)
            elif item.kind in found:
                first = found[item.kind].token.line - 1
                self.error(self.loc(item.token), f"a second {item.kind}: for this request; the first is on line {first}")
            else:
                found[item.kind] = item
        call_parameters, body_file = self._call_entries(entries, operation, text)
        if (url is None and operation is None) or any(item.node is None for item in found.values() if item.kind == "body"):
            return None
        body = found.get("body")
        if body is not None and body_file is not None:
            self.error(self.loc(body.token), "a request has either body: or bodyFile:, not both")
        return RequestStep(
            method, url,
            found["headers"].node if "headers" in found else (),
            found["query"].node if "query" in found else (),
            body.node if body is not None else None,
            location,
            operation,
            call_parameters,
            body is not None and body.structured,
            body_file,
        )

    def _operation_ref(self, token: Token, text: str, base: int) -> OperationRef | None:
        match = _OPERATION.fullmatch(text)
        if match is None:
            self.error(self.loc(token, base, len(text)),
                       "an operation call reads like: when: ^getPetById (or when: using auth ^login)")
            return None
        return OperationRef(match.group(2), match.group(1), self.loc(token, base + match.start(2) - 1,
                                                                       len(match.group(2)) + 1))

    def _call_entries(self, entries: list[_Entry], operation: OperationRef | None,
                      request: str) -> tuple[tuple[CallParameter, ...], TextTemplate | None]:
        built: list[CallParameter] = []
        body_file = None
        seen: dict[str, int] = {}
        for entry in entries:
            name, raw = entry.key, entry.value
            name_location = self.loc(entry.token, 0, len(name))
            if name == "bodyFile":
                body_file = self.template(entry.token, _unquoted(raw), entry.value_offset, self.whole(entry.token))
                continue
            if operation is None:
                self.error(name_location, f"'{name}:' places a value in an operation's request; "
                                          f"'{request}' is not an operation call (when: ^operationId). "
                                          "Use headers: or query: here")
                continue
            if name in seen:
                self.error(name_location, f"'{name}' is given twice for this call; the first is on line {seen[name]}")
                continue
            seen[name] = name_location.line
            if not raw:
                self.error(name_location, f"'{name}:' needs a value")
                continue
            text = _json_value_text(raw)
            try:
                value = json_template(text, self.locator(entry.token, entry.value_offset), self.whole(entry.token))
            except (TemplateError, JsonTextError) as problem:
                self.error(self.loc(entry.token, entry.value_offset, len(raw)), f"{name}: {problem}")
                continue
            built.append(CallParameter(name, value, self.whole(entry.token)))
        return tuple(built), body_file

    def then(self, children: list) -> Step | None:
        (token,) = children
        text, base = self.value(token, len("then:"))
        try:
            return parse_then(text, self.locator(token, base), self.whole(token))
        except LineError as problem:
            self.error(self.loc(token, base + problem.offset, problem.length), str(problem))
            return None

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

    def _steps(self, items: list, where: str) -> tuple[Step, ...]:
        steps = []
        for item in items:
            if isinstance(item, _Raw):  # only parameters blocks reach here
                self.error(self.loc(item.token), f"parameters: cannot go inside {where}; {PARAMETERS_GO}")
            elif item is not None:
                steps.append(item)
        return tuple(steps)

    def tags(self, children: list) -> _Raw:
        # A TAG token holds a line's tags (`@a @b`).
        return _Raw("tags", children[0], frozenset(t[1:] for line in children for t in TAG.findall(str(line))))

    def scenario(self, children: list) -> _Raw:
        tags = children.pop(0).node if isinstance(children[0], _Raw) else frozenset()
        keyword = children[0]
        steps = self._steps(children[1:], "a scenario")
        node = ScenarioNode(self.named(keyword, "scenario:"), tags, steps, self.whole(keyword))
        return _Raw("scenario", keyword, node)

    def background(self, children: list) -> _Raw:
        keyword = children[0]
        self.bare(keyword, "background:")
        steps = self._steps(children[1:], "a background")
        return _Raw("background", keyword, BackgroundNode(steps, self.loc(keyword)))

    def fragment(self, children: list) -> _Raw:
        keyword = children[0]
        steps = self._steps(children[1:], "a fragment")
        return _Raw("fragment", keyword, FragmentNode(self.named(keyword, "fragment:"), steps, self.whole(keyword)))

    def description(self, children: list) -> _Raw:
        return _Raw("description", children[0], self.value(children[0], len("description:"))[0])

    # ------------------------------------------------------------ features and the file

    def _once(self, seen: dict[str, _Raw], item: _Raw, level: str) -> bool:
        if item.kind in seen:
            first = seen[item.kind].token.line - 1
            self.error(self.loc(item.token), f"{level} has at most one {item.kind}: block; the first is on line {first}")
            return False
        seen[item.kind] = item
        return True

    def feature(self, children: list) -> _Raw:
        tags = children.pop(0).node if isinstance(children[0], _Raw) and children[0].kind == "tags" else frozenset()
        keyword, items = children[0], children[1:]
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
                    self.error(self.loc(item.token),
                               f"a feature's parameters: must come directly after its feature: line "
                               f"(and description:), before its {later}")
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
            if item.kind == "parameters":
                if first_other is not None:
                    self.error(self.loc(item.token),
                               f"file-level parameters: must come before the first {first_other.kind}: "
                               f"(line {first_other.token.line - 1}); {PARAMETERS_GO}")
                else:
                    self._once(seen, item, "a file")
                continue
            first_other = first_other or item
            if item.kind == "background":
                standalone = next((i for i in items if isinstance(i, ScenarioNode)), None)
                if standalone is not None:
                    self.error(self.loc(item.token),
                               f"the file's background: comes before its first scenario: (line {standalone.line})")
                else:
                    self._once(seen, item, "a file")
            elif item.kind == "fragment":
                if item.node.name in fragments:
                    self.error(item.node.location, f"a second fragment named '{item.node.name}'; "
                               f"the first is on line {fragments[item.node.name].line}")
                else:
                    fragments[item.node.name] = item.node
            else:
                items.append(item.node)
        features = tuple(i for i in items if isinstance(i, FeatureNode))
        node = ScenarioFileNode(
            scenarios=tuple(i for i in items if isinstance(i, ScenarioNode)),
            fragments=tuple(fragments.values()),
            features=features,
            parameters=seen["parameters"].node if "parameters" in seen else None,
            background=seen["background"].node if "background" in seen else None,
            items=tuple(items),
            location=SourceLocation(self.filename, 1, 1, 1, 1),
        )
        self._check_includes(node, fragments)
        return node

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
        for steps in blocks:
            for step in steps:
                if isinstance(step, IncludeStep) and step.fragment not in fragments:
                    wanted = step.fragment
                    # A close match differs in length by at most a third (difflib's 0.6 ratio).
                    candidates = [n for n in names if abs(len(n) - len(wanted)) * 3 <= max(len(n), len(wanted))]
                    budget -= len(candidates)
                    close = difflib.get_close_matches(wanted, candidates, n=1, cutoff=0.6) if budget > 0 else []
                    hint = f"; did you mean '{close[0]}'?" if close else (
                        f"; fragments in this file: {listing}" if fragments else "; this file defines no fragments")
                    self.error(step.location, f"include of unknown fragment '{step.fragment}'{hint}")
        cyclic = self._report_cycles(fragments)
        measures = self._measure_fragments(fragments, cyclic)
        for steps in blocks:
            self._check_expansion(steps, fragments, measures)

    @staticmethod
    def _includes(fragment: FragmentNode, fragments: dict[str, FragmentNode]) -> list[str]:
        return [s.fragment for s in fragment.steps if isinstance(s, IncludeStep) and s.fragment in fragments]

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
                    cycle = path[path.index(child):] + [child]
                    if not cyclic.intersection(cycle):
                        self.error(fragments[cycle[0]].location, "fragment includes itself: " + " → ".join(cycle))
                    cyclic.update(cycle)
                elif child not in state:
                    state[child] = 1
                    path.append(child)
                    pending.append(self._includes(fragments[child], fragments))
        return cyclic

    def _measure_fragments(self, fragments: dict[str, FragmentNode],
                           cyclic: set[str]) -> dict[str, tuple[int, int, str | None]]:
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
                for step in fragments[name].steps:
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

    def _check_expansion(self, steps: tuple[Step, ...], fragments: dict[str, FragmentNode],
                         measures: dict[str, tuple[int, int, str | None]]) -> None:
        """The limits a block's includes must stay within, as located errors: the executor
        never drops or cuts what a limit would stop (no silent pass)."""
        total = 0
        for step in steps:
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
                self.error(step.location, f"includes nest {depth + 1} levels deep here ({shown}); "
                                          f"the limit is {MAX_INCLUDE_DEPTH}")
                return
            total += count
            if total > MAX_PLANNED_STEPS:
                amount = f"{count:,}" if count <= MAX_PLANNED_STEPS else f"over {MAX_PLANNED_STEPS:,}"
                self.error(step.location, f"include of '{step.fragment}' expands to {amount} steps "
                                          f"(includes inside fragments multiply); a block runs at most "
                                          f"{MAX_PLANNED_STEPS:,} steps")
                return
