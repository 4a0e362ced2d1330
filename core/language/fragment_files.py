"""Fragments kept in `.fragment` files (semantics.md §5): after a scenario file's own `fragment:`
blocks come every `*.fragment` under the nearest `fragments/` (or `berrycrush/fragments/`) folder
found walking up from the scenario file, then those named by `--fragments PATH|GLOB`."""

from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import Callable, Sequence

from scenario_core.language.errors import Diagnostic, InvalidFileError, UsageError
from scenario_core.language.nodes.base import SourceLocation
from scenario_core.language.nodes.blocks import FragmentNode, ScenarioFileNode

# (path, size, mtime) -> its fragments: a TUI session reloads its file often, fragments rarely change.
_CACHE: dict[tuple[str, int, int], tuple[FragmentNode, ...]] = {}


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
    """Every fragment of these files, in order. A file that does not parse is an InvalidFileError
    with its own located errors (never skipped: its fragments would silently go missing); a file
    holding more than fragments is one too, since its scenarios would never run. `load` parses one
    file (the parser's load_file, passed in: the parser uses this module, not the other way)."""
    fragments: list[FragmentNode] = []
    problems: list[Diagnostic] = []
    for path in paths:
        try:
            stat = path.stat()
        except OSError as error:
            raise UsageError(f"{path}: {error.strerror or error}") from None
        key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
        cached = _CACHE.get(key)
        if cached is None:
            try:
                node = load(path)
            except InvalidFileError as error:
                problems += error.diagnostics
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
            cached = _CACHE[key] = node.fragments
        fragments += cached
    if problems:
        raise InvalidFileError(problems)
    return tuple(fragments)
