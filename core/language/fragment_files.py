"""Fragments kept in `.fragment` files (docs/spec/berrycrush.md#fragments): after a scenario file's own `fragment:`
blocks come every `*.fragment` under the nearest `fragments/` (or `berrycrush/fragments/`) folder
found walking up from the scenario file, then those named by `--fragments PATH|GLOB`."""

from __future__ import annotations

import glob
import os
import re
from pathlib import Path
from typing import Callable, Sequence

from scenario_core.language.errors import Diagnostic, InvalidFileError, UsageError
from scenario_core.language.nodes.base import SourceLocation
from scenario_core.language.nodes.blocks import FragmentNode, NamedParametersNode, ParametersNode, ScenarioFileNode
from scenario_core.language.nodes.steps import IncludeStep
from scenario_core.language.nodes.walk import walk_steps
from scenario_core.support.patterns import on_first_use

# (path as shown, real path, size, mtime) -> its fragments and named parameter blocks: a TUI session reloads its file often,
# fragments rarely change. The shown path is part of the key because every location in the
# fragments carries it: the same file reached from another working directory is named otherwise.
_CACHE: dict[tuple[str, str, int, int], tuple[tuple[FragmentNode, ...], tuple[NamedParametersNode, ...]]] = {}


def nearest_fragment_folder(scenario_file: str | Path) -> Path | None:
    folder = Path(scenario_file).resolve().parent
    for candidate in (folder, *folder.parents):
        for name in ("fragments", os.path.join("berrycrush", "fragments")):
            found = candidate / name
            if found.is_dir():
                return found
    return None


def fragment_files(scenario_file: str | Path, named: Sequence[str] = ()) -> list[Path]:
    """The .fragment files a scenario file sees, in lookup order, each once; `named` are
    `--fragments` items (a file, a folder or a glob). A named item matching nothing is a UsageError."""
    found: list[Path] = []
    folder = nearest_fragment_folder(scenario_file)
    if folder is not None:
        found += sorted(folder.rglob("*.fragment"))
    for item in named:
        path = Path(item)
        if path.is_dir():
            matches = sorted(path.rglob("*.fragment"))
        elif path.is_file():
            matches = [path]
        else:
            matches = sorted(Path(p) for p in glob.glob(item, recursive=True) if Path(p).is_file())
        if not matches:
            raise UsageError(f"--fragments {item}: no .fragment file there")
        found += matches
    unique: dict[Path, Path] = {}
    for path in found:
        unique.setdefault(path.resolve(), path)
    own = Path(scenario_file).resolve()
    return [_shown(path) for resolved, path in unique.items() if resolved != own]


def _shown(path: Path) -> Path:
    """Relative to the working directory when under it: how errors and the TUI name the file."""
    try:
        return path.resolve().relative_to(Path.cwd())
    except ValueError:
        return path


def load_fragments(paths: Sequence[Path], load: Callable[[Path], ScenarioFileNode]) -> tuple[FragmentNode, ...]:
    """The fragments of these files (load_external without the named parameter blocks)."""
    return tuple(f for f in load_external(paths, load) if isinstance(f, FragmentNode))


def load_external(
    paths: Sequence[Path], load: Callable[[Path], ScenarioFileNode]
) -> tuple[FragmentNode | NamedParametersNode, ...]:
    """Every fragment of these files, in order. A file that does not parse is never skipped (its
    fragments would silently go missing) nor a refusal of every scenario file that sees it: each
    `fragment: NAME` line in it gives a fragment without steps that carries the file's first error,
    and an include of one is an error of the including scenario only (`broken_includes`). A file
    holding more than fragments is an InvalidFileError, since its scenarios would never run.
    `load` parses one file (the parser's load_file, passed in: the parser uses this module, not
    the other way). Their `parameters: NAME` blocks follow the fragments: what a scenario file's
    `<< NAME` lines take in (the parser passes both to the builder)."""
    fragments: list[FragmentNode] = []
    named: list[NamedParametersNode] = []
    problems: list[Diagnostic] = []
    for path in paths:
        try:
            stat = path.stat()
        except OSError as error:
            raise UsageError(f"{path}: {error.strerror or error}") from None
        key = (str(path), str(path.resolve()), stat.st_size, stat.st_mtime_ns)
        cached = _CACHE.get(key)
        if cached is None:
            try:
                node = load(path)
            except InvalidFileError as error:
                fragments += _broken_fragments(path, error.diagnostics[0])
                named += _broken_parameters(path, error.diagnostics[0])
                continue
            extra = [item.location for item in node.items]
            extra += [block.location for block in (node.parameters, node.background) if block is not None]
            for where in extra:
                problems.append(
                    Diagnostic(
                        SourceLocation(str(path), where.line, where.column, where.line, where.column + 1),
                        "a .fragment file holds only fragment: blocks; move this to a .scenario file",
                    )
                )
            if extra:
                continue
            cached = _CACHE[key] = (node.fragments, node.named_parameters)
        fragments += cached[0]
        named += cached[1]
    if problems:
        raise InvalidFileError(problems)
    return (*fragments, *named)


# A `fragment: NAME` line of a file that does not parse (keywords in any case, docs/spec/berrycrush.md#keywords-and-comments).
_FRAGMENT_LINE = on_first_use(r"^([ ]*)(?i:fragment):[ \t]*([^\s#]+)", re.MULTILINE)


def _broken_fragments(path: Path, problem: Diagnostic) -> list[FragmentNode]:
    """The fragments a file that does not parse names, without steps, each carrying its first error."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    found = []
    for match in _FRAGMENT_LINE().finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        column = len(match.group(1)) + 1
        location = SourceLocation(str(path), line, column, line, column + len("fragment:"))
        found.append(FragmentNode(match.group(2), (), location, problem=problem))
    return found


_PARAMETERS_LINE = on_first_use(r"^(?i:parameters):[ \t]*([^\s#]+)", re.MULTILINE)


def _broken_parameters(path: Path, problem: Diagnostic) -> list[NamedParametersNode]:
    """The `parameters: NAME` blocks a file that does not parse names, empty, each carrying its
    first error: a `<< NAME` of one is that error, as an include of its fragments is."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    found = []
    for match in _PARAMETERS_LINE().finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        location = SourceLocation(str(path), line, 1, line, 1 + len("parameters:"))
        found.append(NamedParametersNode(match.group(1), ParametersNode((), location), location, problem))
    return found


def broken_includes(file: ScenarioFileNode) -> list[Diagnostic]:
    """An error at each include, in the file's own blocks, of a fragment whose .fragment file does
    not parse, naming that file's first error: local to its scenario when the include stands in a
    scenario's own steps (parameters/local_errors.py), refusing the file in a background or fragment."""
    broken = {f.name: f.problem for f in file.fragments if f.problem is not None}
    if not broken:
        return []
    blocks = [f.steps for f in file.fragments if f.location.file == file.path]
    blocks += [b.steps for b in (file.background, *(f.background for f in file.features)) if b is not None]
    blocks += [scenario.steps for scenario, _ in file.scenarios_in_order()]
    found: dict[SourceLocation, Diagnostic] = {}  # an outline's rows share their steps
    for steps in blocks:
        for step in walk_steps(steps):
            if isinstance(step, IncludeStep) and step.fragment in broken:
                message = unusable_fragment(step.fragment, broken[step.fragment])
                found[step.location] = Diagnostic(step.location, message, code="broken-fragment")
    return list(found.values())


def unusable_fragment(name: str, problem: Diagnostic) -> str:
    """Why an include of a fragment whose file does not parse fails: that file's first error."""
    where = problem.location
    return f"fragment '{name}' cannot be used: {where.file}:{where.line}:{where.column}: {problem.message}"
