"""The documents the language service answers about, and the plain results it returns:
positions, spans, problems, hovers, targets, completions, symbols; where things are in a
document's text (blocks, references, includes). 0-based lines and code-point characters."""

from __future__ import annotations

import os
import re
from typing import Mapping, Sequence, Union

from scenario_core.analysis.scope_analysis import Analysis
from scenario_core.language.comments import strip_comment
from scenario_core.language.errors import ERROR, Diagnostic, InvalidFileError, ScenarioError
from scenario_core.language.nodes.base import SourceLocation
from scenario_core.language.nodes.blocks import (
    BackgroundNode,
    FeatureNode,
    FragmentNode,
    NamedParametersNode,
    ScenarioFileNode,
    ScenarioNode,
)
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.support.records import dataclass, field

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
        return (
            (self.start.line, self.start.character)
            <= (position.line, position.character)
            <= (self.end.line, self.end.character)
        )


def span_of(location: SourceLocation) -> Span:
    """A node's location (1-based, end column one past the end) as a 0-based span."""
    return Span(
        Position(location.line - 1, location.column - 1),
        Position(location.end_line - 1, max(location.end_column - 1, location.column - 1)),
    )


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
    run_variables: Mapping[str, object] = field(default_factory=dict)
    overrides: RunOverrides | None = None


def _problem(diagnostic: Diagnostic, path: str) -> Problem:
    if os.path.abspath(diagnostic.location.file) == os.path.abspath(path):
        return Problem(span_of(diagnostic.location), diagnostic.severity, diagnostic.message, diagnostic.code)
    # in another file (a .fragment file this one sees): shown on the first line, naming its place
    return Problem(Span(Position(0, 0), Position(0, 0)), diagnostic.severity, str(diagnostic), diagnostic.code)


def _external_fragments(path: str) -> tuple[tuple[FragmentNode | NamedParametersNode, ...], list[Problem]]:
    if path.endswith(".fragment"):
        return (), []
    from scenario_core.language.fragment_files import fragment_files, load_external
    from scenario_core.language.parser import load_file

    try:
        return load_external(fragment_files(path), load_file), []
    except InvalidFileError as error:
        return (), [_problem(d, path) for d in error.diagnostics]
    except ScenarioError as error:
        return (), [Problem(Span(Position(0, 0), Position(0, 0)), ERROR, str(error))]


def _analyze(tree: ScenarioFileNode, overrides: RunOverrides | None, run_variables: Mapping[str, object]) -> Analysis:
    from scenario_core.analysis.scope_analysis import analyze

    return analyze(tree, overrides, tuple(run_variables))


_FRAGMENT_FILE_QUIET = ("unused-fragment", "unused-variable")


def normalized_text(text: str) -> str:
    """A document's text as the service keeps it: line breaks are \\n (as the parser reads them)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_document(
    text: str,
    path: str,
    previous: Document | None = None,
    overrides: RunOverrides | None = None,
    run_variables: Mapping[str, object] | None = None,
) -> Document:
    """Parse and check `text` as the file `path`: every error and warning `check` reports.
    When it does not parse, the previous document's tree (if any) answers hover and completion."""
    from scenario_core.language.parser import parse_text

    run_variables = dict(run_variables or {})
    text = normalized_text(text)
    fragments, problems = _external_fragments(path)
    tree: ScenarioFileNode | None = None
    try:
        # Read from the parse cache, never added to: storing would cost ~15 ms a keystroke on a
        # 1,000-step file (a quarter of its parse), and each keystroke's tree would push out
        # the entries that runs use.
        tree = parse_text(text, path, fragments, keep=False)
    except InvalidFileError as error:
        problems += [_problem(d, path) for d in error.diagnostics]
        capped = any(d.code == "more" for d in error.diagnostics)
        if isinstance(error.partial, ScenarioFileNode) and not capped:  # every stage at once, as check
            problems += [_problem(d, path) for d in _checks(error.partial, overrides)]
    analysis = None
    if tree is not None:
        problems += [_problem(d, path) for d in _checks(tree, overrides)]
        analysis = _analyze(tree, overrides, run_variables)
        # A .fragment file's fragments and extractions are used by the scenario files that
        # include them: "never included" / "never used" would be said of every one of them.
        quiet = _FRAGMENT_FILE_QUIET if path.endswith(".fragment") else ()
        problems += [_problem(d, path) for d in analysis.diagnostics if d.code not in quiet]
    stale = False
    if tree is None and previous is not None and previous.tree is not None:
        stale = True
        tree, analysis = previous.tree, previous.analysis
    lines = text.split("\n")
    problems = sorted(
        (_widened(p, lines) for p in problems),
        key=lambda p: (p.span.start.line, p.span.start.character, p.severity != ERROR),
    )
    own = tuple(f for f in fragments if isinstance(f, FragmentNode))
    return Document(path, text, lines, tree, stale, problems, own, analysis, run_variables, overrides)


def _widened(problem: Problem, lines: Sequence[str]) -> Problem:
    """A problem located at one character (a syntax error's column) underlines the rest of its
    line's text instead, so an editor shows more than a dot."""
    start, end = problem.span.start, problem.span.end
    if start.line != end.line or end.character - start.character > 1 or start.line >= len(lines):
        return problem
    last = len(strip_comment(lines[start.line]).rstrip())
    if last <= end.character:
        return problem
    return Problem(Span(start, Position(start.line, last)), problem.severity, problem.message, problem.code)


def failed_document(text: str, path: str, previous: Document | None, error: Exception) -> Document:
    """A document core could not read because of a bug: one problem saying so, on line 1."""
    text = normalized_text(text)
    message = f"internal error: {type(error).__name__}: {' '.join(str(error).split())}"
    return Document(
        path,
        text,
        text.split("\n"),
        previous.tree if previous else None,
        previous is not None,
        [Problem(Span(Position(0, 0), Position(0, 0)), ERROR, message)],
    )


def _checks(tree: ScenarioFileNode, overrides: RunOverrides | None) -> list[Diagnostic]:
    """What `check` finds beyond the parse: parameter values, OpenAPI descriptions, custom steps."""
    from scenario_core.parameters.diagnostics import parameter_diagnostics

    found: list[Diagnostic] = []
    try:
        found += parameter_diagnostics(tree, overrides)
    except ScenarioError as error:
        found.append(Diagnostic(tree.location, str(error)))
    if tree.custom_steps:
        from scenario_core.custom_steps.diagnostics import custom_diagnostics
        from scenario_core.custom_steps.plugins import load_registry

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


def _header_line(scenario: ScenarioNode) -> int:
    """The 1-based line of a scenario's declaration (an outline row's: its outline's)."""
    return scenario.outline.outline_line if scenario.outline is not None else scenario.location.line


_BlockNode = Union[BackgroundNode, FragmentNode, FeatureNode, ScenarioNode]


@dataclass(frozen=True, slots=True)
class _Block:
    kind: str  # "scenario", "background", "fragment", "feature", "file"
    first: int  # 0-based header line
    last: int  # 0-based last line
    node: _BlockNode  # its class says its kind
    feature: FeatureNode | None = None


def _blocks(document: Document) -> list[_Block]:
    tree, lines = document.tree, document.lines
    if tree is None:
        return []
    found: list[_Block] = []

    def add(kind: str, line: int, node: _BlockNode, feature: FeatureNode | None = None) -> None:
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
    found = _INCLUDE.match(strip_comment(line))
    if found is None or (found.group(2).lower() == "include" and found.group(3).startswith(":")):
        return None
    return found.group(3), found.start(3), found.end(3)


def _fragment(document: Document, name: str) -> FragmentNode | None:
    tree = document.tree
    found = tree.fragment(name) if tree is not None else None
    if found is None:
        for fragment in document.fragments:
            if fragment.name == name:
                return fragment
    return found
