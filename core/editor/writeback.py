"""Writing into a scenario file what a tool computed from the syntax tree (the TUI's JSON-path
playground's extract, a pasted curl command's steps): pure functions over text in, text out, that
keep every byte they do not change. With render.py (new text: an import's file, a paste's steps)
and formatting.py (`fmt`'s layout) it is the one writer of scenario text: all three keep line
ends and a BOM as `decode`/`encode` here do, and parse what they write back before returning it.

- **Where.** A step is found by its structure, never by a line number: a `StepLocator` names the
  step's block (a scenario by its feature, name and position among namesakes; an outline; a
  background; a fragment) and its index path in it (a described step's directives, a branch's
  steps), and the step's text as written. `find_step` re-parses the text on disk and follows the
  locator, checking the text; a step gone or changed is refused in one line.
- **Lines** are the parser's: it reads `\\r\\n`, `\\r` and `\\n` as line ends and nothing else
  (a form feed, U+2028 or `\\x1c` is part of its line, unlike `str.splitlines`). A line added
  takes the line ends of the line before it; a UTF-8 BOM is kept (`decode` / `encode`).
- **What.** An `extract` step in the step's dialect: `extract: NAME from PATH` in ours, the
  directive `extract PATH => NAME` under a BerryCrush described step, the path bare or quoted as
  that dialect reads it. Every line written is parsed back before it is returned: a line that
  would not read as the extract asked for is refused, never written.
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator

from scenario_core.language.errors import InvalidFileError
from scenario_core.language.nodes.blocks import ExternalBlocks, FeatureNode, FragmentNode, ScenarioFileNode
from scenario_core.language.nodes.steps import ConditionalStep, DescribedStep, ExtractStep, Step, step_label
from scenario_core.language.parser import parse_text
from scenario_core.run.body_paths import last_key
from scenario_core.support.printable import visible
from scenario_core.support.records import dataclass

BOM = "\ufeff"
# The parser's line ends (parser.parse_text turns `\r\n` and `\r` into `\n`, the lexer splits there).
_LINE_END = re.compile(r"\r\n|\r|\n")
# Keywords only BerryCrush's directives use (ours: when:, then:, extract:).
_BERRYCRUSH_KEYWORDS = frozenset(("call", "assert"))


class WriteBackError(Exception):
    """Why nothing was written: one line, naming the file (and line) when there is one."""


# ---------------------------------------------------------------- bytes and lines


def decode(data: bytes, file: str) -> tuple[str, bool]:
    """The text of a scenario file's bytes, without its BOM, and whether it had one. Bytes that
    are not UTF-8 are refused as the parser refuses them: `file:line:column: the file is not
    UTF-8 text`."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise WriteBackError(f"{file}:{line}:{column}: the file is not UTF-8 text; nothing written") from None
    if text.startswith(BOM):
        return text[1:], True
    return text, False


def encode(text: str, bom: bool) -> bytes:
    """`decode`'s inverse: the text's UTF-8 bytes, after a BOM when the file had one."""
    return ((BOM if bom else "") + text).encode("utf-8")


def split_lines(text: str) -> list[tuple[str, str]]:
    """The parser's lines of `text`: (content, line end) each, the end `""` on a last line
    without one. Joined back they are `text`, byte for byte."""
    lines = []
    start = 0
    for match in _LINE_END.finditer(text):
        lines.append((text[start : match.start()], match.group()))
        start = match.end()
    if start < len(text):
        lines.append((text[start:], ""))
    return lines


def _indent(content: str) -> str:
    return content[: len(content) - len(content.lstrip(" \t"))]


def _blank(content: str) -> bool:
    """Blank or a whole-line comment: the lexer reads it as part of a line break."""
    rest = content.lstrip(" \t")
    return not rest or rest.startswith("#")


# ---------------------------------------------------------------- finding a step


@dataclass(frozen=True)
class StepLocator:
    """A step by its place in the syntax tree: the file, its block, the index path in the block
    and its text as written (`when: POST /pets`)."""

    file: str
    block: tuple[str, str | None, str | None, int]  # (kind, feature, name, namesakes before it)
    path: tuple[int, ...]  # step index; in a described step, its directive's; in an if, branch then step
    label: str
    line: int  # where the step was when located: for messages

    @property
    def where(self) -> str:
        kind, feature, name, _ = self.block
        named = f"{kind} '{visible(name)}'" if name is not None else kind
        return named + (f" of feature '{visible(feature)}'" if feature is not None else "")


_BlockKey = tuple[str, str | None, str | None, int]  # StepLocator.block


def _blocks(tree: ScenarioFileNode, file: str) -> Iterator[tuple[_BlockKey, tuple[Step, ...]]]:
    """Every step block written in `file`, in source order, keyed as a StepLocator's block."""
    seen: dict[tuple[str, str | None, str | None], int] = {}

    def keyed(
        kind: str, feature: str | None, name: str | None, steps: tuple[Step, ...]
    ) -> tuple[_BlockKey, tuple[Step, ...]]:
        key = (kind, feature, name)
        count = seen.get(key, 0)
        seen[key] = count + 1
        return (kind, feature, name, count), steps

    for fragment in tree.fragments:
        if fragment.location.file == file:
            yield keyed("fragment", None, fragment.name, fragment.steps)
    if tree.background is not None and tree.background.location.file == file:
        yield keyed("background", None, None, tree.background.steps)
    for item in tree.items:
        feature = item.name if isinstance(item, FeatureNode) else None
        if isinstance(item, FeatureNode) and item.background is not None:
            yield keyed("background", feature, None, item.background.steps)
        outlines: set[int] = set()
        for scenario in item.scenarios if isinstance(item, FeatureNode) else (item,):
            if scenario.outline is None:
                yield keyed("scenario", feature, scenario.name, scenario.steps)
            elif scenario.outline.outline_line not in outlines:  # its rows share its steps: once
                outlines.add(scenario.outline.outline_line)
                yield keyed("outline", feature, scenario.outline.outline, scenario.steps)


def _walk(
    steps: tuple[Step, ...], path: tuple[int, ...] = (), parent: DescribedStep | None = None
) -> Iterator[tuple[tuple[int, ...], Step, DescribedStep | None]]:
    """(index path, step, the described step over it or None) of every step of a block."""
    for index, step in enumerate(steps):
        yield path + (index,), step, parent
        if isinstance(step, DescribedStep):
            yield from _walk(step.steps, path + (index,), step)
        elif isinstance(step, ConditionalStep):
            for number, branch in enumerate(step.branches):
                yield from _walk(branch.steps, path + (index, number), parent)


def locate_step(trees: Iterable[object], step: Step) -> StepLocator | None:
    """The locator of `step` in the syntax trees loaded (`trees`: ScenarioFileNodes): found as
    that very node, else as the node written at its place; None when no tree holds it."""
    file = step.location.file
    place = (step.location.line, step.location.column)
    found: StepLocator | None = None
    for tree in trees:
        if not isinstance(tree, ScenarioFileNode):
            continue
        for block, steps in _blocks(tree, file):
            for path, node, _ in _walk(steps):
                if node is step:
                    return StepLocator(file, block, path, step_label(node), node.location.line)
                if found is None and (node.location.line, node.location.column) == place:
                    found = StepLocator(file, block, path, step_label(node), node.location.line)
    return found


def fragments_for(trees: Iterable[object], file: str) -> tuple[FragmentNode, ...]:
    """The fragments of .fragment files that `file` was parsed with (its tree among `trees`):
    its includes name them, so it parses again only with them. A .fragment file has none."""
    if file.endswith(".fragment"):
        return ()
    for tree in trees:
        if isinstance(tree, ScenarioFileNode) and tree.path == file:
            return tuple(f for f in tree.fragments if f.location.file != file)
    return ()


def parse_source(text: str, file: str, fragments: ExternalBlocks = ()) -> ScenarioFileNode:
    """The syntax tree of the text on disk, or the reason it has none, in one line."""
    try:
        return parse_text(text, file, fragments, keep=False)
    except InvalidFileError as error:
        first = error.diagnostics[0] if error.diagnostics else None
        raise WriteBackError(f"{first}; nothing written" if first else f"{file} does not parse") from None


def find_step(tree: ScenarioFileNode, locator: StepLocator) -> tuple[Step, DescribedStep | None]:
    """The step `locator` names in `tree` and the described step over it (or None): at its
    index path when its text is still the same there, else the one step of its block written
    the same at the same depth. WriteBackError, one line, when there is none (or several)."""
    blocks = [steps for block, steps in _blocks(tree, locator.file) if block == locator.block]
    where = f"{locator.file}:{locator.line}"
    if not blocks:
        raise WriteBackError(f"{where}: {locator.where} not found in the file on disk; nothing written")
    steps = blocks[0]
    same = [(path, node, parent) for path, node, parent in _walk(steps) if step_label(node) == locator.label]
    exact = [(node, parent) for path, node, parent in same if path == locator.path]
    if exact:
        return exact[0]
    moved = [(node, parent) for path, node, parent in same if len(path) == len(locator.path)]
    if len(moved) == 1:
        return moved[0]
    why = "not found" if not moved else f"found {len(moved)} times"
    raise WriteBackError(
        f"{where}: step '{visible(locator.label)}' {why} in {locator.where} of the file on disk; nothing written"
    )


# ---------------------------------------------------------------- the extract line


def extract_name(path: str) -> str:
    """The variable an extract of `path` stores by default: the path's last key, as a name."""
    key = last_key(path) or "value"
    name = re.sub(r"\W", "_", key)
    return name if not name[0].isdigit() else f"_{name}"


def is_berrycrush_step(step: Step, parent: DescribedStep | None = None) -> bool:
    """A step written in BerryCrush's dialect: a directive under a described step (`call`,
    `assert`, `extract $.p => n`, ...)."""
    return parent is not None or step.keyword in _BERRYCRUSH_KEYWORDS or bool(getattr(step, "arrow", False))


def extract_text(path: str, name: str, berrycrush: bool) -> str | None:
    """The extract step of `path` into `name`, without indentation, in a dialect: ours,
    `extract: NAME from PATH`; BerryCrush's, `extract PATH => NAME` with the path bare, or in
    the quotes it does not hold when it holds a space, `=>`, a quote or a `#` (that dialect has
    no escapes: a path needing quotes that holds both kinds cannot be written, None)."""
    if not berrycrush:
        return f"extract: {name} from {path}"
    if path and not re.search(r"\s|=>|[\"'#]", path):
        return f"extract {path} => {name}"
    for quote in "\"'":
        if quote not in path:
            return f"extract {quote}{path}{quote} => {name}"
    return None


@dataclass(frozen=True)
class Insertion:
    """The new text, and the line added: its 1-based number and its text (indented)."""

    text: str
    line: int
    written: str


def insert_extract(source_text: str, step_locator: StepLocator, line: str, fragments: ExternalBlocks = ()) -> str:
    """`source_text` with `line` (a step, without indentation) added right after the step
    `step_locator` finds in it (and the lines under it), at that step's indentation."""
    return _insert(source_text, step_locator, line, fragments).text


def _insert(source_text: str, locator: StepLocator, line: str, fragments: ExternalBlocks) -> Insertion:
    tree = parse_source(source_text, locator.file, fragments)
    step, _ = find_step(tree, locator)
    return _insert_after(source_text, step, line)


def _insert_after(source_text: str, step: Step, line: str) -> Insertion:
    lines = split_lines(source_text)
    start = step.location.line - 1
    indent = _indent(lines[start][0]) if start < len(lines) else ""
    end = _end_of(step, lines, len(indent))
    written = indent + line
    before = lines[end - 1] if end > 0 else None
    ending = before[1] if before is not None and before[1] else _first_end(lines)
    new = [content + end_ for content, end_ in lines]
    if before is not None and not before[1]:  # after a last line without its line end: it gets one,
        new[end - 1] += ending  # the new last line keeps the file without one
        new.insert(end, written)
    else:
        new.insert(end, written + ending)
    return Insertion("".join(new), end + 1, written)


def _first_end(lines: list[tuple[str, str]]) -> str:
    return next((end for _, end in lines if end), "\n")


def _end_of(step: Step, lines: list[tuple[str, str]], indent: int) -> int:
    """The 0-based index just past the step's last line: the lines indented under it (headers,
    a body) are its own; blank lines and comments after them are not."""
    end = min(max(step.location.end_line, step.location.line), len(lines))
    index = end
    while index < len(lines):
        content = lines[index][0]
        if not _blank(content):
            if len(_indent(content)) <= indent:
                break
            end = index + 1
        index += 1
    return end


# Response sources the playground writes extracts of besides a JSON path (docs/spec/requests.md#response-sources).
_SOURCES = ("xpath ", "regex ")


def write_extract(
    source_text: str, locator: StepLocator, path: str, name: str | None = None, fragments: ExternalBlocks = ()
) -> Insertion:
    """An extract of `path` (into `name`, by default the path's last key) added right after the
    step `locator` finds in `source_text`, in that step's dialect; the new text is parsed back
    and must hold that very extract there, else WriteBackError (nothing to write)."""
    name = name or extract_name(path)
    tree = parse_source(source_text, locator.file, fragments)
    step, parent = find_step(tree, locator)
    source = path.startswith(_SOURCES)  # `xpath "…"`, `regex "…"`: our line in either dialect
    line = extract_text(path, name, is_berrycrush_step(step, parent) and not source)
    where = f"{locator.file}:{step.location.line}"
    if line is None:
        raise WriteBackError(
            f"{where}: a BerryCrush extract cannot quote {visible(path)} (it holds both quote marks); nothing written"
        )
    insertion = _insert_after(source_text, step, line)
    try:
        written = parse_text(insertion.text, locator.file, fragments, keep=False)
    except InvalidFileError:
        written = None
    added = _step_at(written, locator.file, insertion.line) if written is not None else None
    kind = path.split(None, 1)[0] if source else "body"
    if not (isinstance(added, ExtractStep) and added.source == kind and (added.path, added.name) == (path, name)):
        raise WriteBackError(f"{where}: '{visible(line)}' would not read back as written; nothing written")
    return insertion


def _step_at(tree: ScenarioFileNode, file: str, line: int) -> Step | None:
    for _, steps in _blocks(tree, file):
        for _, node, _ in _walk(steps):
            if node.location.line == line:
                return node
    return None


# ---------------------------------------------------------------- pasted steps


def insert_steps(source_text: str, locator: StepLocator, lines: list[str], fragments: ExternalBlocks = ()) -> Insertion:
    """`lines` (steps written by the one writer, scenario_core.editor.render, unindented with
    their children indented below) added after the step `locator` finds, at that step's
    indentation; after a directive of a described step, after the described step itself (a
    request by path is a step of its own). The new text must parse, holding a request step at
    the first line added (the line a comment above it leaves), else WriteBackError."""
    tree = parse_source(source_text, locator.file, fragments)
    step, parent = find_step(tree, locator)
    anchor = parent if parent is not None else step
    where = f"{locator.file}:{anchor.location.line}"
    if not lines:
        raise WriteBackError(f"{where}: nothing to insert")
    first = _insert_after(source_text, anchor, lines[0])
    base = _indent(first.written)
    insertion = first
    for line in lines[1:]:  # each below the last, at the anchor's indentation plus its own
        insertion = _insert_at(insertion.text, insertion.line, base + line if line else "")
    text = insertion.text
    try:
        written = parse_text(text, locator.file, fragments, keep=False)
    except InvalidFileError as error:
        why = error.diagnostics[0].message if error.diagnostics else "it does not parse"
        raise WriteBackError(f"{where}: the pasted step would not read back ({why}); nothing written") from None
    offset = 1 if lines[0].lstrip().startswith("#") and len(lines) > 1 else 0
    added = _step_at(written, locator.file, first.line + offset)
    if added is None or step_label(added) != lines[offset].strip():
        raise WriteBackError(f"{where}: the pasted step would not read back as written; nothing written")
    return Insertion(text, first.line + offset, base + lines[offset])


def _insert_at(source_text: str, after_line: int, written: str) -> Insertion:
    """`written` as a new line right after the 1-based line `after_line`, with its line end."""
    lines = split_lines(source_text)
    before = lines[after_line - 1]
    ending = before[1] or _first_end(lines)
    new = [content + end for content, end in lines]
    if not before[1]:
        new[after_line - 1] += ending
        new.insert(after_line, written)
    else:
        new.insert(after_line, written + ending)
    return Insertion("".join(new), after_line + 1, written)
