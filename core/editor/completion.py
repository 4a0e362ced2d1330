"""Completion (keywords for the block at the cursor, parameter keys, visible variables,
fragment names, HTTP methods) and the document outline."""

from __future__ import annotations

import os
import re
from typing import Iterator, Sequence

from scenario_core.editor.document import (
    Completion,
    Document,
    Position,
    Span,
    Symbol,
    _blank,
    _Block,
    _blocks,
    _fragment,
    _header_line,
    _indent,
    _innermost,
    _relative,
    _same_file,
)
from scenario_core.editor.hover import _parameters_of, _value_text, fragment_markdown
from scenario_core.editor.source_help import BODY_FORM_HELP, source_completions
from scenario_core.language import parameter_keys as params
from scenario_core.language.comments import strip_comment
from scenario_core.language.nodes.blocks import BackgroundNode, FeatureNode, FragmentNode, ScenarioNode
from scenario_core.language.nodes.steps import ExtractStep, IncludeStep, Step
from scenario_core.language.nodes.walk import walk_steps
from scenario_core.language.step_syntax import METHODS
from scenario_core.parameters.sharing import StoreRef, store_for

# ---------------------------------------------------------------- completion

_TOP = ("feature:", "scenario:", "outline:", "fragment:", "background:", "parameters:")
_IN_FEATURE = ("description:", "parameters:", "background:", "scenario:", "outline:")
_STEPS = ("when:", "then:", "extract:", "include:", "given", "when", "then", "and", "but")
_IN_REQUEST = ("headers:", "query:", "body:", "bodyFile:", "form:", "multipart:")
_DIRECTIVES = ("call", "assert", "extract", "include", "if", "else", "fail", "webhook:")
_HELP = {
    "feature:": "a group of scenarios, with its own parameters and background",
    "scenario:": "a scenario: its steps run in order",
    "outline:": "a scenario run once per examples row",
    "fragment:": "steps that `include:` brings in as if written in place",
    "background:": "steps run again before every scenario of its level",
    "parameters:": "parameters of this level, one `key: value` a line",
    "description:": "the feature's description",
    "when:": "one request: `when: METHOD path`",
    "then:": "an assertion on the last response",
    "extract:": "`extract: NAME from $.json.path`: a variable from the last response",
    "include:": "a fragment's steps, as if written here",
    "headers:": "request headers, one `Name: value` a line",
    "query:": "query parameters, one `name: value` a line",
    "body:": 'the request body: JSON, or a `"""` block sent as written',
    **BODY_FORM_HELP,
    "examples:": "the outline's table: a header row, then one row per scenario",
}


def _context(lines: Sequence[str], line: int, character: int) -> tuple[str, int]:
    """What block the cursor's line stands in, from the line opening it: ("top" | "feature" |
    "steps" | "scenario" | "outline" | "request" | "described" | "parameters" | "other", indent)."""
    text = lines[line][:character] if line < len(lines) else ""
    indent = _indent(text) if text.strip() else len(text)
    if indent == 0:
        return "top", 0
    for index in range(line - 1, -1, -1):
        above = lines[index]
        if _blank(above) or above.lstrip().startswith(("@", "|")) or _indent(above) >= indent:
            continue
        head = strip_comment(above).strip()
        word = head.split(":", 1)[0].split(" ", 1)[0].lower()
        has_colon = head.split(" ", 1)[0].endswith(":")
        if word == "feature":
            return "feature", indent
        if word == "scenario":
            return "scenario", indent
        if word == "outline":
            return "outline", indent
        if word in ("background", "fragment"):
            return "steps", indent
        if word == "parameters":
            return "parameters", indent
        if word == "when" and has_colon and re.match(r"(?i)when:\s*[A-Za-z]+\s+\S", head):
            return "request", indent
        if word in ("given", "when", "then", "and", "but"):
            return "described", indent
        if word in ("if", "else"):
            return "described", indent
        return "other", indent
    return "top", 0


def completions(document: Document, position: Position) -> list[Completion]:
    """What may be typed at the cursor."""
    if position.line >= len(document.lines):
        return []
    line = document.lines[position.line]
    before = line[: position.character]
    opened = before.rfind("{{")
    if opened >= 0 and "}}" not in before[opened:]:
        return _variable_completions(document, position.line, before[opened + 2 :].strip())
    include = re.match(r"^\s*include(:|\s)\s*", before, re.IGNORECASE)
    if include is not None and len(before) >= include.end():
        return _fragment_completions(document)
    if re.match(r"^\s*when:\s*[A-Za-z]*$", before, re.IGNORECASE):
        return [Completion(m, "method", "HTTP method", insert_text=f"{m} ") for m in METHODS]
    sources = source_completions(before)  # extract: NAME from …, then: …
    if sources is not None:
        return sources
    if before.strip() and (" " in before.strip() or ":" in before):
        return []  # past the keyword: values are free text
    kind, _ = _context(document.lines, position.line, position.character)
    if kind == "parameters":
        return _parameter_completions()
    words = {
        "top": _TOP,
        "feature": _IN_FEATURE,
        "scenario": ("parameters:",) + _STEPS,
        "outline": ("parameters:",) + _STEPS + ("examples:",),
        "steps": _STEPS,
        "request": _IN_REQUEST,
        "described": _DIRECTIVES,
    }.get(kind, ())
    return [
        Completion(
            w, "keyword", _HELP.get(w, ""), insert_text=w + " " if w.endswith(":") or w in _DIRECTIVES + _STEPS else w
        )
        for w in words
    ]


def _parameter_completions() -> list[Completion]:
    items = []
    for key, spec in params.SPECS.items():
        items.append(
            Completion(
                key,
                "parameter",
                f"{spec.type_name}, default {_value_text(spec.default)}",
                spec.help,
                insert_text=f"{key}: ",
            )
        )
    items.append(
        Completion(
            "header.",
            "parameter",
            "string",
            "a header sent with every request of this level: header.NAME: value",
            insert_text="header.",
        )
    )
    return items


def _fragment_completions(document: Document) -> list[Completion]:
    seen: dict[str, FragmentNode] = {}
    tree = document.tree
    for fragment in (tree.fragments if tree is not None else ()) + document.fragments:
        seen.setdefault(fragment.name, fragment)
    return [
        Completion(
            name,
            "fragment",
            f"{len(f.steps)} step{'s' if len(f.steps) != 1 else ''}"
            + ("" if _same_file(f.location.file, document.path) else f" · {_relative(f.location.file, document.path)}"),
            fragment_markdown(f, document.path),
        )
        for name, f in seen.items()
    ]


def _variable_completions(document: Document, line: int, typed: str) -> list[Completion]:
    if typed.startswith("param."):
        return [
            Completion(f"param.{key}", "parameter", spec.type_name, spec.help) for key, spec in params.SPECS.items()
        ]
    if typed.startswith("env."):
        return [Completion(f"env.{name}", "variable", "environment variable") for name in sorted(os.environ)]
    return [Completion(name, "variable", detail) for name, detail in visible_names(document, line).items()]


def visible_names(document: Document, line: int) -> dict[str, str]:
    """Names a `{{...}}` on 0-based `line` may read, each with where it comes from: earlier steps
    of its scenario (backgrounds and includes in place), its store's earlier scenarios
    ("sometimes"), outline columns, run variables."""
    tree = document.tree
    names: dict[str, str] = {}
    for name in document.run_variables:
        names[name] = "run variable (--var)"
    block = _innermost(document, line)
    if tree is None or block is None:
        return names
    node = block.node
    scenario = node if isinstance(node, ScenarioNode) else None
    feature = block.feature
    in_reach: list[tuple[Sequence[Step], str, int | None]] = []  # steps, what, last line (1-based)
    if isinstance(node, FragmentNode):
        in_reach.append((node.steps, f"fragment '{node.name}'", line + 1))
    elif isinstance(node, BackgroundNode):
        if block.feature is not None and tree.background is not None:
            in_reach.append((tree.background.steps, "the file's background", None))
        in_reach.append((node.steps, "this background", line + 1))
    elif scenario is not None:
        if tree.background is not None:
            in_reach.append((tree.background.steps, "the file's background", None))
        if feature is not None and feature.background is not None:
            in_reach.append((feature.background.steps, f"the background of feature '{feature.name}'", None))
        in_reach.append((scenario.steps, "an earlier step", line + 1))
        if scenario.outline is not None:
            for column, _ in scenario.outline.variables:
                names.setdefault(column, "a column of the examples")
    for steps, what, before in in_reach:
        for step, where in _extracts(document, steps, before):
            names[step.name] = f"{what}, {where}"
    if scenario is not None:
        for name, what in _store_names(document, feature, scenario).items():
            names.setdefault(name, what)
    return names


def _extracts(
    document: Document, steps: Sequence[Step], before: int | None, depth: int = 0
) -> Iterator[tuple[ExtractStep, str]]:
    """Extract steps of `steps` written before line `before`, includes expanded in place, each
    with where it is written (`line 19`, `fragment 'login' line 4`)."""
    for step in walk_steps(tuple(steps)):
        if before is not None and step.line >= before:
            return
        if isinstance(step, ExtractStep):
            yield step, f"line {step.line}"
        elif isinstance(step, IncludeStep) and depth < 32:
            fragment = _fragment(document, step.fragment)
            if fragment is not None:
                for inner, _ in _extracts(document, fragment.steps, None, depth + 1):
                    yield inner, f"fragment '{fragment.name}' line {inner.line}"


def _store_names(document: Document, feature: FeatureNode | None, scenario: ScenarioNode) -> dict[str, str]:
    """Names earlier scenarios write to the store this scenario reads, if one applies."""
    tree = document.tree
    stores: dict[int | None, StoreRef | None] = {}

    def store(of: FeatureNode | None, which: ScenarioNode) -> StoreRef | None:
        key = id(which) if which.parameters is not None else (id(of) if of is not None else None)
        if key not in stores:
            parameters = _parameters_of(document, of, which)
            stores[key] = store_for(parameters) if parameters is not None else None
        return stores[key]

    mine = store(feature, scenario)
    names: dict[str, str] = {}
    if mine is None or tree is None:  # (a scenario to complete in means there is a tree)
        return names
    header = _header_line(scenario)
    for other, other_feature in tree.scenarios_in_order():
        if _header_line(other) >= header:
            break
        if store(other_feature, other) != mine:
            continue
        for step, where in _extracts(document, other.steps, None):
            names[step.name] = f"sometimes: scenario '{other.name}', {where}, if it got that far ({mine.describe()})"
    return names


# ---------------------------------------------------------------- outline


def symbols(document: Document) -> list[Symbol]:
    """Features (with their background and scenarios), standalone scenarios and outlines,
    fragments and the file's background, in source order."""
    result: list[tuple[int, Symbol]] = []
    by_feature: dict[int, list[Symbol]] = {}
    features: dict[int, tuple[_Block, FeatureNode]] = {}
    for block in _blocks(document):
        node = block.node
        selection = Span(Position(block.first, 0), Position(block.first, len(document.lines[block.first])))
        span = Span(Position(block.first, 0), Position(block.last, len(document.lines[block.last])))
        if isinstance(node, FeatureNode):
            features[id(node)] = (block, node)
            by_feature.setdefault(id(node), [])
            continue
        if isinstance(node, ScenarioNode) and node.outline is not None:
            symbol = Symbol(node.outline.outline, "outline", span, selection)
        elif isinstance(node, BackgroundNode):
            symbol = Symbol("background", "background", span, selection)
        else:
            symbol = Symbol(node.name, block.kind, span, selection)
        if block.feature is not None:
            by_feature.setdefault(id(block.feature), []).append(symbol)
        else:
            result.append((block.first, symbol))
    for key, (block, feature) in features.items():
        selection = Span(Position(block.first, 0), Position(block.first, len(document.lines[block.first])))
        span = Span(Position(block.first, 0), Position(block.last, len(document.lines[block.last])))
        children = tuple(sorted(by_feature.get(key, []), key=lambda s: s.selection.start.line))
        result.append((block.first, Symbol(feature.name, "feature", span, selection, children)))
    return [symbol for _, symbol in sorted(result, key=lambda item: item[0])]
