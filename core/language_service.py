"""What an editor asks about a `.scenario` file, answered from core alone: diagnostics, hover,
go to definition, completion and the outline. Pure functions over text (no LSP, no I/O besides
the `.fragment` files a scenario sees), returning plain dataclasses; tui/lsp_server.py only
converts them to the protocol's types.

Positions here are 0-based lines and 0-based characters counted in code points, as Python
indexes a line; the adapter converts them to the client's units (UTF-16 by default).
A document whose text does not parse keeps answering from the last text that did (`stale`)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping, Sequence

from . import parameters as params
from .errors import ERROR, Diagnostic, InvalidFileError, ScenarioError
from .nodes import (ConditionalStep, DescribedStep, ExtractStep, FeatureNode, FragmentNode, IncludeStep, ScenarioFileNode,
                    ScenarioNode, SourceLocation, step_label, walk_steps)
from .scope_analysis import Analysis
from .resolution import DEFAULT, EffectiveParameters, EffectiveValue, RunOverrides, resolve_parameters
from .sharing import StoreRef, store_for

# ---------------------------------------------------------------- plain results


@dataclass(frozen=True, slots=True)
class Position:
    line: int  # 0-based
    character: int  # 0-based, in code points


@dataclass(frozen=True, slots=True)
class Span:
    start: Position
    end: Position

    def contains(self, position: Position) -> bool:
        return (self.start.line, self.start.character) <= (position.line, position.character) \
            <= (self.end.line, self.end.character)


def span_of(location: SourceLocation) -> Span:
    """A node's location (1-based, end column one past the end) as a 0-based span."""
    return Span(Position(location.line - 1, location.column - 1),
                Position(location.end_line - 1, max(location.end_column - 1, location.column - 1)))


@dataclass(frozen=True, slots=True)
class Problem:
    span: Span
    severity: str  # "error" or "warning"
    message: str
    code: str = ""


@dataclass(frozen=True, slots=True)
class HoverText:
    span: Span
    markdown: str


@dataclass(frozen=True, slots=True)
class Target:
    path: str
    span: Span


@dataclass(frozen=True, slots=True)
class Completion:
    label: str
    kind: str  # "keyword", "parameter", "variable", "fragment", "method"
    detail: str = ""
    documentation: str = ""
    insert_text: str | None = None


@dataclass(frozen=True, slots=True)
class Symbol:
    name: str
    kind: str  # "feature", "scenario", "outline", "fragment", "background"
    span: Span  # the whole block
    selection: Span  # its declaration line
    children: tuple["Symbol", ...] = ()


# ---------------------------------------------------------------- a document


@dataclass
class Document:
    """One version of an editor's text and what core made of it. `tree` is the last syntax tree
    that parsed (this text's, or an earlier one's when `stale`)."""

    path: str
    text: str
    lines: list[str]
    tree: ScenarioFileNode | None
    stale: bool
    problems: list[Problem]
    fragments: tuple[FragmentNode, ...] = ()  # from .fragment files
    analysis: Analysis | None = None  # the static scope analysis of `tree`
    run_variables: Mapping[str, Any] = field(default_factory=dict)
    overrides: RunOverrides | None = None


def _problem(diagnostic: Diagnostic, path: str) -> Problem:
    if os.path.abspath(diagnostic.location.file) == os.path.abspath(path):
        return Problem(span_of(diagnostic.location), diagnostic.severity, diagnostic.message, diagnostic.code)
    # in another file (a .fragment file this one sees): shown on the first line, naming its place
    return Problem(Span(Position(0, 0), Position(0, 0)), diagnostic.severity, str(diagnostic), diagnostic.code)


def _external_fragments(path: str) -> tuple[tuple[FragmentNode, ...], list[Problem]]:
    if path.endswith(".fragment"):
        return (), []
    from .fragment_files import fragment_files, load_fragments

    try:
        return load_fragments(fragment_files(path)), []
    except InvalidFileError as error:
        return (), [_problem(d, path) for d in error.diagnostics]
    except ScenarioError as error:
        return (), [Problem(Span(Position(0, 0), Position(0, 0)), ERROR, str(error))]


def _analyze(tree: ScenarioFileNode, overrides: RunOverrides | None, run_variables: Mapping[str, Any]):
    from .scope_analysis import analyze

    return analyze(tree, overrides, tuple(run_variables))


_FRAGMENT_FILE_QUIET = ("unused-fragment", "unused-variable")


def read_document(text: str, path: str, previous: Document | None = None, overrides: RunOverrides | None = None,
                  run_variables: Mapping[str, Any] | None = None) -> Document:
    """Parse and check `text` as the file `path`: every error and warning `check` reports.
    When it does not parse, the previous document's tree (if any) answers hover and completion."""
    from .parser import parse_text

    run_variables = dict(run_variables or {})
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    fragments, problems = _external_fragments(path)
    tree: ScenarioFileNode | None = None
    try:
        tree = parse_text(text, path, fragments)
    except InvalidFileError as error:
        problems += [_problem(d, path) for d in error.diagnostics]
    analysis = None
    if tree is not None:
        problems += [_problem(d, path) for d in _checks(tree, overrides)]
        analysis = _analyze(tree, overrides, run_variables)
        # A .fragment file's fragments and extractions are used by the scenario files that
        # include them: "never included" / "never used" would be said of every one of them.
        quiet = _FRAGMENT_FILE_QUIET if path.endswith(".fragment") else ()
        problems += [_problem(d, path) for d in analysis.diagnostics if d.code not in quiet]
    stale = tree is None and previous is not None and previous.tree is not None
    if stale:
        tree, analysis = previous.tree, previous.analysis
    lines = text.split("\n")
    problems = sorted((_widened(p, lines) for p in problems),
                      key=lambda p: (p.span.start.line, p.span.start.character, p.severity != ERROR))
    return Document(path, text, lines, tree, stale, problems, fragments, analysis, run_variables,
                    overrides)


def _widened(problem: Problem, lines: Sequence[str]) -> Problem:
    """A problem located at one character (a syntax error's column) underlines the rest of its
    line's text instead, so an editor shows more than a dot."""
    start, end = problem.span.start, problem.span.end
    if start.line != end.line or end.character - start.character > 1 or start.line >= len(lines):
        return problem
    last = len(_strip_comment(lines[start.line]).rstrip())
    if last <= end.character:
        return problem
    return Problem(Span(start, Position(start.line, last)), problem.severity, problem.message, problem.code)


def failed_document(text: str, path: str, previous: Document | None, error: Exception) -> Document:
    """A document core could not read because of a bug: one problem saying so, on line 1."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    message = f"internal error: {type(error).__name__}: {' '.join(str(error).split())}"
    return Document(path, text, text.split("\n"), previous.tree if previous else None, previous is not None,
                    [Problem(Span(Position(0, 0), Position(0, 0)), ERROR, message)])


def _checks(tree: ScenarioFileNode, overrides: RunOverrides | None) -> list[Diagnostic]:
    """What `check` finds beyond the parse: parameter values, OpenAPI descriptions, custom steps."""
    from .resolution import parameter_diagnostics

    found: list[Diagnostic] = []
    try:
        found += parameter_diagnostics(tree, overrides)
    except ScenarioError as error:
        found.append(Diagnostic(tree.location, str(error)))
    if tree.custom_steps:
        from .custom_steps import custom_diagnostics, load_registry

        try:
            found += custom_diagnostics(tree, load_registry(()))
        except ScenarioError as error:
            found.append(Diagnostic(tree.location, str(error)))
    return found


def diagnostics(document: Document) -> list[Problem]:
    """Errors and warnings of this text, in file order (errors first on one place)."""
    return document.problems


# ---------------------------------------------------------------- where things are


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _blank(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _block_end(lines: Sequence[str], start: int) -> Position:
    """The end of the block whose header is line `start`: its last line before the next line at
    the header's indentation or less."""
    level = _indent(lines[start]) if start < len(lines) else 0
    last = start
    for index in range(start + 1, len(lines)):
        line = lines[index]
        if _blank(line):
            continue
        if _indent(line) <= level and not line.lstrip().startswith("|"):
            break
        last = index
    return Position(last, len(lines[last]) if last < len(lines) else 0)


def _pairs(tree: ScenarioFileNode) -> Iterator[tuple[FeatureNode | None, ScenarioNode]]:
    """Every scenario with its feature, in source order (outline rows each)."""
    for item in tree.items:
        if isinstance(item, FeatureNode):
            for scenario in item.scenarios:
                yield item, scenario
        else:
            yield None, item


def _header_line(scenario: ScenarioNode) -> int:
    """The 1-based line of a scenario's declaration (an outline row's: its outline's)."""
    return scenario.outline.outline_line if scenario.outline is not None else scenario.location.line


@dataclass(frozen=True, slots=True)
class _Block:
    kind: str  # "scenario", "background", "fragment", "feature", "file"
    first: int  # 0-based header line
    last: int  # 0-based last line
    node: Any
    feature: FeatureNode | None = None


def _blocks(document: Document) -> list[_Block]:
    tree, lines = document.tree, document.lines
    if tree is None:
        return []
    found: list[_Block] = []

    def add(kind: str, line: int, node: Any, feature: FeatureNode | None = None) -> None:
        first = line - 1
        if first < len(lines):
            found.append(_Block(kind, first, _block_end(lines, first).line, node, feature))

    if tree.background is not None:
        add("background", tree.background.line, tree.background)
    for fragment in tree.fragments:
        if _same_file(fragment.location.file, document.path):
            add("fragment", fragment.line, fragment)
    seen: set[int] = set()
    for item in tree.items:
        if isinstance(item, FeatureNode):
            add("feature", item.line, item)
            if item.background is not None:
                add("background", item.background.line, item.background, item)
        for scenario in item.scenarios if isinstance(item, FeatureNode) else (item,):
            line = _header_line(scenario)
            if line not in seen:
                seen.add(line)
                add("scenario", line, scenario, item if isinstance(item, FeatureNode) else None)
    return found


def _same_file(a: str, b: str) -> bool:
    return os.path.abspath(a) == os.path.abspath(b)


def _relative(file: str, scenario_file: str) -> str:
    """Another file as the scenario file's folder reaches it: `fragments/auth.fragment`."""
    try:
        return os.path.relpath(os.path.abspath(file), os.path.dirname(os.path.abspath(scenario_file)))
    except ValueError:  # another drive (Windows)
        return file


def _innermost(document: Document, line: int) -> _Block | None:
    """The smallest block holding 0-based `line` (a scenario before its feature)."""
    holding = [b for b in _blocks(document) if b.first <= line <= b.last]
    return min(holding, key=lambda b: b.last - b.first) if holding else None


_REFERENCE = re.compile(r"(?<!\\)\{\{\s*([^{}]*?)\s*\}\}")


def _reference_at(line: str, character: int) -> tuple[str, int, int] | None:
    """The `{{NAME}}` under the cursor: its name, start and end characters."""
    for match in _REFERENCE.finditer(line):
        if match.start() <= character <= match.end():
            return match.group(1), match.start(), match.end()
    return None


_INCLUDE = re.compile(r"^(\s*)(include:?)\s+(.+?)\s*$", re.IGNORECASE)


def _include_at(line: str) -> tuple[str, int, int] | None:
    found = _INCLUDE.match(_strip_comment(line))
    if found is None or (found.group(2).lower() == "include" and found.group(3).startswith(":")):
        return None
    return found.group(3), found.start(3), found.end(3)


def _strip_comment(line: str) -> str:
    from .line_lexer import strip_comment

    return strip_comment(line)


def _fragment(document: Document, name: str) -> FragmentNode | None:
    tree = document.tree
    found = tree.fragment(name) if tree is not None else None
    if found is None:
        for fragment in document.fragments:
            if fragment.name == name:
                return fragment
    return found


# ---------------------------------------------------------------- parameters


def _parameters_of(document: Document, feature: FeatureNode | None,
                   scenario: ScenarioNode | None) -> EffectiveParameters | None:
    try:
        return resolve_parameters(document.tree, feature, document.overrides,
                                  scenario if scenario is not None and scenario.parameters else None)
    except ScenarioError as error:  # an unset $VAR: show what does resolve
        return getattr(error, "partial", None)
    except Exception:  # an unreadable OpenAPI description and the like: reported as a diagnostic
        return None


def _value_text(value: Any) -> str:
    if value is None:
        return "(none)"
    from .resolution import parameter_text

    return parameter_text(value) if value != () else "(none)"


def _provenance(effective: EffectiveValue, parameters: EffectiveParameters) -> str:
    from .params_report import shown_value

    where = effective.winner.describe()
    lower = [f"{s.short()} {_value_text(shown_value(parameters, effective.key, s.value))}"
             for s in effective.overridden]
    return " · ".join([where] + lower)


def parameters_markdown(title: str, parameters: EffectiveParameters) -> str:
    """The effective parameters as a hover shows them: every value some level sets, with its
    provenance, then how many keys are at their defaults."""
    from .params_report import shown_value

    store = store_for(parameters)
    rows = [f"**{_md(title)}** — {store.describe() if store else 'isolated'}", "",
            "| parameter | value | from |", "|---|---|---|"]
    defaults = 0
    for key, effective in parameters.items():
        if effective.source == DEFAULT and key not in (params.SHARE, params.TIMEOUT, params.BASE_URL):
            defaults += 1
            continue
        shown = _value_text(shown_value(parameters, key, effective.value))
        rows.append(f"| `{key}` | `{_cell(shown)}` | {_cell(_provenance(effective, parameters))} |")
    if defaults:
        rows += ["", f"{defaults} other parameter{'s' if defaults != 1 else ''} at {'their' if defaults != 1 else 'its'} default"]
    return "\n".join(rows)


def _md(text: str) -> str:
    return re.sub(r"([\\`*_\[\]<>|])", r"\\\1", text)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _spec_markdown(key: str) -> str:
    spec = params.spec_for(key)
    if spec is None:
        return f"`{key}`: a user parameter, read as `{{{{param.{key}}}}}`"
    default = _value_text(spec.default)
    return f"`{key}`: {spec.type_name}, default `{default}` — {spec.help}"


# ---------------------------------------------------------------- variables


@dataclass(frozen=True, slots=True)
class _Writer:
    step: ExtractStep
    owner: str  # "scenario 'create a pet'", "fragment 'login'", "the file's background"
    path: str


def _writers(document: Document) -> dict[str, list[_Writer]]:
    """Every extract of the file (and of the fragments it sees), by name, in source order."""
    tree = document.tree
    found: dict[str, list[_Writer]] = {}
    if tree is None:
        return found

    def add(steps: Sequence[Any], owner: str, path: str) -> None:
        for step in walk_steps(tuple(steps)):
            if isinstance(step, ExtractStep):
                found.setdefault(step.name, []).append(_Writer(step, owner, path))

    blocks: list[tuple[int, Sequence[Any], str, str]] = []
    if tree.background is not None:
        blocks.append((tree.background.line, tree.background.steps, "the file's background", tree.path))
    for fragment in tree.fragments + tuple(f for f in document.fragments if tree.fragment(f.name) is None):
        blocks.append((fragment.line if _same_file(fragment.location.file, tree.path) else 1 << 30,
                       fragment.steps, f"fragment '{fragment.name}'", fragment.location.file))
    seen: set[int] = set()
    for feature, scenario in _pairs(tree):
        if feature is not None and feature.background is not None and feature.background.line not in seen:
            seen.add(feature.background.line)
            blocks.append((feature.background.line, feature.background.steps,
                           f"the background of feature '{feature.name}'", tree.path))
        line = _header_line(scenario)
        if line not in seen:
            seen.add(line)
            name = scenario.outline.outline if scenario.outline is not None else scenario.name
            blocks.append((line, scenario.steps, f"{'outline' if scenario.outline else 'scenario'} '{name}'", tree.path))
    for _, steps, owner, path in sorted(blocks, key=lambda b: b[0]):
        add(steps, owner, path)
    return found


def _analysis_reference(document: Document, name: str, line: int, character: int):
    """The analysis's Reference for the `{{name}}` starting at 0-based (line, character)."""
    analysis = document.analysis
    if analysis is None:
        return None
    found = analysis.reference_at(line + 1, character + 3)  # its location is NAME's, inside the braces
    if found is not None and found.name == name:
        return found
    candidates = [r for r in analysis.references if r.name == name and r.location.line == line + 1]
    return min(candidates, key=lambda r: abs(r.location.column - 1 - character)) if candidates else None


def _writer_for(document: Document, location: SourceLocation) -> _Writer | None:
    """Our own record of the extract step at `location` (the analysis names writers by place)."""
    for writers in _writers(document).values():
        for writer in writers:
            where = writer.step.location
            if where.line == location.line and _same_file(where.file, location.file):
                return writer
    return None


def _writer_text(document: Document, writer: _Writer | SourceLocation) -> str:
    if isinstance(writer, SourceLocation):
        known = _writer_for(document, writer)
        if known is None:
            return f"line {writer.line}" if _same_file(writer.file, document.path) else str(writer)
        writer = known
    location = writer.step.location
    where = f"line {location.line}"
    if not _same_file(location.file, document.path):
        where = f"{_relative(location.file, document.path)} {where}"
    return f"`{step_label(writer.step)}` ({_md(writer.owner)}, {where})"


def variable_markdown(document: Document, name: str, line: int, character: int) -> str:
    """Where `{{name}}` at this place gets its value, or why it cannot."""
    if name.startswith("env."):
        variable = name[4:]
        state = "set" if variable in os.environ else "**not set** in the server's environment"
        return f"**`{{{{{name}}}}}`** — environment variable `{variable}`, {state}"
    if name.startswith("param."):
        return _param_reference_markdown(document, name[6:], line)
    parts = [f"**`{{{{{name}}}}}`**"]  # a code span: shown as written, no escapes
    reference = _analysis_reference(document, name, line, character)
    writers: Sequence[Any] = _writers(document).get(name, [])
    if reference is not None:
        parts[0] += f" — {reference.visibility} visible here"
        if reference.explanation:
            parts += ["", _md(reference.explanation)]
        if reference.writers:
            writers = reference.writers
    sources = _other_sources(document, name, line)
    if sources:
        parts += [""] + [f"- {s}" for s in sources]
    if writers:
        parts += ["", "Extracted by:"] + [f"- {_writer_text(document, w)}" for w in writers]
    elif not sources and reference is None:
        parts += ["", f"No step extracts `{name}`: pass it with `--var {name}=...`"]
    return "\n".join(parts)


def _other_sources(document: Document, name: str, line: int) -> list[str]:
    """Where else a name may come from: a run variable, an outline's column, an include's argument."""
    found: list[str] = []
    if name in document.run_variables:
        found.append(f"run variable (`--var {name}=...`)")
    block = _innermost(document, line)
    if block is not None and block.kind == "scenario" and block.node.outline is not None:
        if name in dict(block.node.outline.variables):
            found.append(f"a column of the examples of outline '{_md(block.node.outline.outline)}'")
    if block is not None and block.kind == "fragment":
        found.append(f"inside fragment '{_md(block.node.name)}': visible as where it is included")
    return found


def _param_reference_markdown(document: Document, key: str, line: int) -> str:
    block = _innermost(document, line)
    feature = block.feature if block is not None else None
    scenario = block.node if block is not None and block.kind == "scenario" else None
    if block is not None and block.kind == "feature":
        feature = block.node
    parameters = _parameters_of(document, feature, scenario) if document.tree is not None else None
    head = f"**`{{{{param.{key}}}}}`** — {_spec_markdown(key)}"
    if parameters is None or key not in parameters:
        return head + "\n\nNo level sets it here."
    effective = parameters[key]
    return f"{head}\n\nHere: `{_value_text(effective.value)}` ← {_provenance(effective, parameters)}"


# ---------------------------------------------------------------- hover


def hover(document: Document, position: Position) -> HoverText | None:
    """What the cursor is on: a `{{NAME}}`, an include, a parameter entry, or the declaration of
    a scenario, feature or the file's parameters."""
    if position.line >= len(document.lines) or document.tree is None:
        return None
    line = document.lines[position.line]
    on_line = Span(Position(position.line, 0), Position(position.line, len(line)))
    found = _reference_at(line, position.character)
    if found is not None:
        name, start, end = found
        return HoverText(Span(Position(position.line, start), Position(position.line, end)),
                         variable_markdown(document, name, position.line, start))
    include = _include_at(line)
    if include is not None:
        name, start, end = include
        fragment = _fragment(document, name)
        span = Span(Position(position.line, start), Position(position.line, end))
        if fragment is None:
            return HoverText(span, f"no fragment named `{name}`")
        return HoverText(span, fragment_markdown(fragment, document.path))
    block = _declaration_at(document, position.line)
    if block is not None:
        title, parameters = block
        if parameters is None:
            return None
        return HoverText(on_line, parameters_markdown(title, parameters))
    entry = _parameter_entry_at(document, position.line)
    if entry is not None:
        key, title, parameters = entry
        text = _spec_markdown(key)
        if parameters is not None and key in parameters:
            effective = parameters[key]
            from .params_report import shown_value

            text += (f"\n\nEffective for {title}: `{_value_text(shown_value(parameters, key, effective.value))}` "
                     f"← {_provenance(effective, parameters)}")
        return HoverText(on_line, text)
    return None


def fragment_markdown(fragment: FragmentNode, path: str) -> str:
    where = f"line {fragment.line}"
    if not _same_file(fragment.location.file, path):
        where = f"{_relative(fragment.location.file, path)}:{fragment.line}"
    steps = list(_step_lines(fragment.steps))
    return "\n".join([f"**fragment '{_md(fragment.name)}'** ({_md(where)})", "", "```", *steps, "```"])


def _step_lines(steps: Sequence[Any], depth: int = 0) -> Iterator[str]:
    """Steps as written, a directive indented under its step, a branch's steps under its if."""
    for step in steps:
        yield "  " * depth + step_label(step)
        if isinstance(step, DescribedStep):
            yield from _step_lines(step.steps, depth + 1)
        elif isinstance(step, ConditionalStep):
            for branch in step.branches:
                yield from _step_lines(branch.steps, depth + 1)


_DECLARATION = re.compile(r"^\s*(feature|scenario|outline|parameters)\s*:", re.IGNORECASE)


def _declaration_at(document: Document, line: int) -> tuple[str, EffectiveParameters | None] | None:
    """On a feature's, scenario's or outline's line, or the file's own `parameters:` line."""
    text = document.lines[line]
    found = _DECLARATION.match(text)
    if found is None:
        return None
    kind = found.group(1).lower()
    tree = document.tree
    if kind == "parameters":
        if _indent(text) != 0:
            return None
        return f"file {os.path.basename(document.path)}", _parameters_of(document, None, None)
    for feature, scenario in _pairs(tree):
        if feature is not None and feature.line == line + 1:
            return f"feature '{feature.name}'", _parameters_of(document, feature, None)
        if _header_line(scenario) == line + 1:
            name = scenario.outline.outline if scenario.outline is not None else scenario.name
            return f"{kind} '{name}'", _parameters_of(document, feature, scenario)
    return None


_ENTRY = re.compile(r"^(\s+)([A-Za-z_][\w.\-]*)\s*:")


def _parameter_entry_at(document: Document, line: int):
    """On a `key: value` line of a parameters block: (full key, whose, effective parameters)."""
    found = _ENTRY.match(document.lines[line])
    if found is None:
        return None
    chain = _enclosing_headers(document.lines, line)
    keys = [found.group(2)]
    for _, header in chain:
        word = header.strip().rstrip(":").strip()
        if word.lower() == "parameters":
            break
        if not header.strip().endswith(":") or " " in word:
            return None
        keys.insert(0, word)  # a nested block: `retry:` + `maxAttempts: 3`
    else:
        return None
    key = ".".join(keys)
    block = _innermost(document, line)
    feature = block.feature if block is not None else None
    scenario = block.node if block is not None and block.kind == "scenario" else None
    if block is not None and block.kind == "feature":
        feature = block.node
    title = (f"scenario '{scenario.name}'" if scenario is not None else f"feature '{feature.name}'"
             if feature is not None else "the file")
    parameters = _parameters_of(document, feature, scenario) if document.tree is not None else None
    return key, title, parameters


def _enclosing_headers(lines: Sequence[str], line: int) -> list[tuple[int, str]]:
    """The lines that open the blocks holding `line`, innermost first."""
    found: list[tuple[int, str]] = []
    level = _indent(lines[line]) if lines[line].strip() else len(lines[line])
    for index in range(line - 1, -1, -1):
        text = lines[index]
        if _blank(text) or text.lstrip().startswith(("|", "@")):
            continue
        indent = _indent(text)
        if indent < level:
            found.append((index, _strip_comment(text).strip()))
            level = indent
            if indent == 0:
                break
    return found


# ---------------------------------------------------------------- definition


def definition(document: Document, position: Position) -> list[Target]:
    """`{{NAME}}` → the extract steps that write it; `include: X` → fragment X."""
    if position.line >= len(document.lines) or document.tree is None:
        return []
    line = document.lines[position.line]
    found = _reference_at(line, position.character)
    if found is not None:
        name, start, _ = found
        reference = _analysis_reference(document, name, position.line, start)
        locations = list(reference.writers) if reference is not None and reference.writers else \
            [w.step.location for w in _writers(document).get(name, [])]
        return [Target(os.path.abspath(loc.file), span_of(loc)) for loc in locations]
    include = _include_at(line)
    if include is not None and include[1] <= position.character <= include[2]:
        fragment = _fragment(document, include[0])
        if fragment is not None:
            return [Target(os.path.abspath(fragment.location.file), span_of(fragment.location))]
    return []


# ---------------------------------------------------------------- completion

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
_TOP = ("feature:", "scenario:", "outline:", "fragment:", "background:", "parameters:")
_IN_FEATURE = ("description:", "parameters:", "background:", "scenario:", "outline:")
_STEPS = ("when:", "then:", "extract:", "include:", "given", "when", "then", "and", "but")
_IN_REQUEST = ("headers:", "query:", "body:", "bodyFile:")
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
    "body:": "the request body (JSON)",
    "bodyFile:": "the request body, read from a file",
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
        head = _strip_comment(above).strip()
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
        return _variable_completions(document, position.line, before[opened + 2:].strip())
    include = re.match(r"^\s*include(:|\s)\s*", before, re.IGNORECASE)
    if include is not None and len(before) >= include.end():
        return _fragment_completions(document)
    if re.match(r"^\s*when:\s*[A-Za-z]*$", before, re.IGNORECASE):
        return [Completion(m, "method", "HTTP method", insert_text=f"{m} ") for m in METHODS]
    if before.strip() and (" " in before.strip() or ":" in before):
        return []  # past the keyword: values are free text
    kind, _ = _context(document.lines, position.line, position.character)
    if kind == "parameters":
        return _parameter_completions()
    words = {"top": _TOP, "feature": _IN_FEATURE, "scenario": ("parameters:",) + _STEPS,
             "outline": ("parameters:",) + _STEPS + ("examples:",), "steps": _STEPS, "request": _IN_REQUEST,
             "described": _DIRECTIVES}.get(kind, ())
    return [Completion(w, "keyword", _HELP.get(w, ""), insert_text=w + " " if w.endswith(":") or w in
                       _DIRECTIVES + _STEPS else w) for w in words]


def _parameter_completions() -> list[Completion]:
    items = []
    for key, spec in params.SPECS.items():
        items.append(Completion(key, "parameter", f"{spec.type_name}, default {_value_text(spec.default)}",
                                spec.help, insert_text=f"{key}: "))
    items.append(Completion("header.", "parameter", "string", "a header sent with every request of this level: "
                            "header.NAME: value", insert_text="header."))
    return items


def _fragment_completions(document: Document) -> list[Completion]:
    seen: dict[str, FragmentNode] = {}
    tree = document.tree
    for fragment in (tree.fragments if tree is not None else ()) + document.fragments:
        seen.setdefault(fragment.name, fragment)
    return [Completion(name, "fragment", f"{len(f.steps)} step{'s' if len(f.steps) != 1 else ''}"
                       + ("" if _same_file(f.location.file, document.path) else f" · {_relative(f.location.file, document.path)}"),
                       fragment_markdown(f, document.path)) for name, f in seen.items()]


def _variable_completions(document: Document, line: int, typed: str) -> list[Completion]:
    if typed.startswith("param."):
        return [Completion(f"param.{key}", "parameter", spec.type_name, spec.help) for key, spec in params.SPECS.items()]
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
    scenario = block.node if block.kind == "scenario" else None
    feature = block.feature
    in_reach: list[tuple[Sequence[Any], str, int | None]] = []  # steps, what, last line (1-based)
    if block.kind == "fragment":
        in_reach.append((block.node.steps, f"fragment '{block.node.name}'", line + 1))
    elif block.kind == "background":
        if block.feature is not None and tree.background is not None:
            in_reach.append((tree.background.steps, "the file's background", None))
        in_reach.append((block.node.steps, "this background", line + 1))
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


def _extracts(document: Document, steps: Sequence[Any], before: int | None, depth: int = 0
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
    if mine is None:
        return names
    header = _header_line(scenario)
    for other_feature, other in _pairs(tree):
        if _header_line(other) >= header:
            break
        if store(other_feature, other) != mine:
            continue
        for step, where in _extracts(document, other.steps, None):
            names[step.name] = (f"sometimes: scenario '{other.name}', {where}, "
                                f"if it got that far ({mine.describe()})")
    return names


# ---------------------------------------------------------------- outline


def symbols(document: Document) -> list[Symbol]:
    """Features (with their background and scenarios), standalone scenarios and outlines,
    fragments and the file's background, in source order."""
    result: list[tuple[int, Symbol]] = []
    by_feature: dict[int, list[Symbol]] = {}
    features: dict[int, _Block] = {}
    for block in _blocks(document):
        node = block.node
        selection = Span(Position(block.first, 0), Position(block.first, len(document.lines[block.first])))
        span = Span(Position(block.first, 0), Position(block.last, len(document.lines[block.last])))
        if block.kind == "feature":
            features[id(node)] = block
            by_feature.setdefault(id(node), [])
            continue
        if block.kind == "scenario" and node.outline is not None:
            symbol = Symbol(node.outline.outline, "outline", span, selection)
        elif block.kind == "background":
            symbol = Symbol("background", "background", span, selection)
        else:
            symbol = Symbol(node.name, block.kind, span, selection)
        if block.feature is not None:
            by_feature.setdefault(id(block.feature), []).append(symbol)
        else:
            result.append((block.first, symbol))
    for key, block in features.items():
        selection = Span(Position(block.first, 0), Position(block.first, len(document.lines[block.first])))
        span = Span(Position(block.first, 0), Position(block.last, len(document.lines[block.last])))
        children = tuple(sorted(by_feature.get(key, []), key=lambda s: s.selection.start.line))
        result.append((block.first, Symbol(block.node.name, "feature", span, selection, children)))
    return [symbol for _, symbol in sorted(result, key=lambda item: item[0])]


__all__ = ["Completion", "Document", "HoverText", "Position", "Problem", "Span", "Symbol", "Target",
           "completions", "definition", "diagnostics", "hover", "read_document", "symbols", "visible_names"]
