"""`scenario-tui fmt FILE|DIR... [--check] [--diff]`: every scenario and fragment file named, in
the canonical layout (scenario_core.editor.formatting, docs/fmt.md). Without options each file
that changes is replaced atomically (its permissions kept); `--check` writes nothing and lists
the files that would change (exit 1); `--diff` writes nothing and prints the change as a unified
diff. An invalid file is reported file:line:column and left alone (exit 2). Never imports
textual."""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from scenario_core.language.errors import InvalidFileError, UsageError
from scenario_core.support.printable import visible
from scenario_tui.cli.errors import print_error

if TYPE_CHECKING:
    from scenario_core.language.nodes.blocks import FragmentNode


def _left_out(name: str) -> bool:
    return name[:1] in ("_", ".")


def files_to_format(items: list[str]) -> list[str]:
    """Each argument as the files it names: a folder is every `*.scenario` and `*.fragment` under
    it, sorted, leaving out sub-folders named `_*` or `.*` as a run does; a file is itself."""
    found: list[str] = []
    for item in items:
        path = Path(item)
        if path.is_dir():
            matches = [
                str(p)
                for p in sorted(path.rglob("*"))
                if p.suffix in (".scenario", ".fragment")
                and p.is_file()
                and not any(_left_out(part) for part in p.relative_to(path).parts[:-1])
            ]
            if not matches:
                raise UsageError(f"{item}: no .scenario or .fragment file in this folder")
            found += matches
        else:
            found.append(item)
    seen: set[str] = set()
    unique = []
    for name in found:
        key = os.path.normpath(os.path.abspath(name))
        if key not in seen:
            seen.add(key)
            unique.append(name)
    return unique


def _fragments(file: str, named: list[str]) -> tuple[FragmentNode, ...]:
    """The .fragment files a scenario file sees (and `--fragments`), parsed: it parses only with them."""
    if file.endswith(".fragment"):
        return ()
    from scenario_core.language.fragment_files import fragment_files, load_fragments
    from scenario_core.language.parser import load_file

    return load_fragments(fragment_files(file, named), load_file)


def _diff(file: str, before: bytes, after: bytes) -> str:
    old = before.decode("utf-8", "replace").splitlines(keepends=True)
    new = after.decode("utf-8", "replace").splitlines(keepends=True)
    lines = difflib.unified_diff(old, new, f"{file}", f"{file} (formatted)")
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n" for line in lines)


def fmt(args: argparse.Namespace) -> int:
    from scenario_core.editor.formatting import format_bytes
    from scenario_core.editor.writeback import WriteBackError
    from scenario_core.language.parser import read_input
    from scenario_core.report.writing import ReportPathError, atomic_write

    if not args.files:
        raise UsageError("fmt: expected FILE or DIR (see fmt --help)")
    status = 0
    changed = read = 0
    files = files_to_format(args.files)
    for file in files:
        try:
            if os.path.islink(file):
                raise UsageError(f"{file} is a symbolic link; format the file it points to")
            data = read_input(file)
            after, formatted = format_bytes(data, file, _fragments(file, getattr(args, "fragments", [])))
        except InvalidFileError as error:
            print("\n".join(visible(str(d)) for d in error.diagnostics[:1]), file=sys.stderr)
            status = 2
            continue
        except (UsageError, WriteBackError) as error:
            print_error(str(error))
            status = 2
            continue
        read += 1
        if formatted.changed_meaning is not None:
            print(
                f"scenario-tui: warning: {visible(file)}: only partly formatted: the full layout would change "
                f"what it says ({visible(formatted.changed_meaning)})",
                file=sys.stderr,
            )
        if after == data:
            continue
        changed += 1
        if args.diff:
            sys.stdout.write(_diff(file, data, after))
        if args.check:
            if not args.diff:
                print(visible(file))
            status = max(status, 1)
        elif not args.diff:
            try:
                atomic_write(file, after)
            except (ReportPathError, OSError) as error:
                print_error(f"{file}: cannot write: {getattr(error, 'strerror', None) or error}")
                status = 2
    if not args.check and not args.diff and read:
        plural = "s" if read != 1 else ""
        done = f"formatted {changed} of {read} file{plural}" if changed else f"{read} file{plural} already formatted"
        print(f"scenario-tui: {done}", file=sys.stderr)
    elif args.check and changed:
        print(f"scenario-tui: {changed} of {read} files would change (run fmt without --check)", file=sys.stderr)
    return status
