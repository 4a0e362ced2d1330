"""`scenario-tui import curl 'curl …' | har FILE.har [--host HOST] | openapi SPEC [-o FILE]
[--dialect ours|berrycrush]` (docs/import.md): a scenario file from what a user has, written by the
one writer (scenario_core.editor.render) to standard output, or to a new file with `-o`.

`-o FILE` creates FILE and refuses one that exists (`--force` replaces it), and never writes
through a symbolic link (refused, with `--force` too); the file appears whole or not at all.
Notes (what was left out, where a body file must go) and the run variables the file needs go to
standard error. Unreadable input: one line `import KIND: …`, exit 2. Never imports textual."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Callable

from scenario_core.language.errors import InvalidFileError, ScenarioError, UsageError
from scenario_core.support.printable import visible

if TYPE_CHECKING:
    from scenario_core.importing.model import ImportedFile


class ImportFailed(UsageError):
    """One line, starting `import KIND:`; exit 2."""


def _read(kind: str, source: str, args: argparse.Namespace, written_to: str | None) -> ImportedFile:
    if kind == "curl":
        from scenario_core.importing.curl import read_curl

        command = sys.stdin.read(1024 * 1024 + 1) if source == "-" else source
        return read_curl(command)
    if kind == "har":
        return _reader(kind, "scenario_core.importing.har", "read_har")(source, args.host)
    return _reader(kind, "scenario_core.importing.openapi_import", "read_openapi")(source, written_to)


def _reader(kind: str, module_name: str, function: str) -> Callable[..., ImportedFile]:
    """A reader another module provides, imported when it is used; a version without it says so."""
    import importlib

    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != module_name:
            raise
        raise ImportFailed(f"import {kind}: not available in this version of scenario-tui") from None
    reader: Callable[..., ImportedFile] = getattr(module, function)  # (read_har, read_openapi)
    return reader


def _one_line(kind: str, error: object) -> str:
    message = " ".join(str(error).split()) or type(error).__name__
    return message if message.startswith(f"import {kind}") else f"import {kind}: {message}"


def import_(args: argparse.Namespace) -> int:
    from scenario_core.editor.render import RenderError, render_file

    kind = args.kind
    output = None if args.output in (None, "-") else args.output
    if args.host is not None and kind != "har":
        raise UsageError(f"import {kind}: --host is for import har")
    if output is not None:
        _check_output(output, args.force)
    try:
        imported = _read(kind, args.source, args, output)
        text = render_file(imported, args.dialect, output or "<stdout>")
    except ImportFailed:
        raise
    except InvalidFileError as error:  # a reader's own located errors: the first, one line
        first = error.diagnostics[0] if error.diagnostics else error
        raise ImportFailed(_one_line(kind, first)) from None
    except (ValueError, OSError, RenderError, ScenarioError) as error:
        raise ImportFailed(_one_line(kind, error)) from None
    for note in imported.notes:
        print(f"scenario-tui: note: {visible(note)}", file=sys.stderr)
    if output is None:
        sys.stdout.write(text)
    else:
        try:
            _write(output, text.encode("utf-8"), args.force)
        except OSError as error:
            raise UsageError(f"-o {output}: cannot write: {error.strerror or error}") from None
        print(f"scenario-tui: wrote {visible(output)}", file=sys.stderr)
    if imported.run_variables:
        names = ", ".join(v.name for v in imported.run_variables)
        print(
            f"scenario-tui: note: the file needs the run variables {names}: give each with --var NAME=VALUE",
            file=sys.stderr,
        )
    return 0


def _check_output(path: str, force: bool) -> None:
    """Refuse before reading anything: a symbolic link, a directory, an existing file (without
    --force), a folder that does not exist."""
    if os.path.islink(path):
        raise UsageError(f"-o {path}: is a symbolic link; give the path of a new file")
    if os.path.isdir(path):
        raise UsageError(f"-o {path}: is a directory")
    if os.path.lexists(path) and not force:
        raise UsageError(f"-o {path}: the file exists; choose a new name, or --force to replace it")
    if os.path.lexists(path) and not os.path.isfile(path):
        raise UsageError(f"-o {path}: is not a regular file")
    parent = os.path.dirname(path) or "."
    if not os.path.isdir(parent):
        raise UsageError(f"-o {path}: the folder {parent} does not exist")


def _write(path: str, data: bytes, force: bool) -> None:
    """The file whole or not at all: with --force, replaced atomically; without, created from a
    finished temporary file by a hard link, which fails when a file appeared there meanwhile."""
    from scenario_core.report.writing import atomic_write

    if force:
        _check_output(path, True)
        atomic_write(path, data)
        return
    import secrets

    directory = os.path.dirname(path) or "."
    temp = os.path.join(directory, f".{os.path.basename(path)}.scenario-tui-{os.getpid()}-{secrets.token_hex(4)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(temp, flags, 0o666)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(temp, path)
        except FileExistsError:
            raise UsageError(f"-o {path}: the file exists; choose a new name, or --force to replace it") from None
        except OSError:  # a file system without hard links: create it exclusively
            try:
                fd = os.open(path, flags, 0o666)
            except FileExistsError:
                raise UsageError(f"-o {path}: the file exists; choose a new name, or --force to replace it") from None
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
    finally:
        try:
            os.unlink(temp)
        except OSError:
            pass
