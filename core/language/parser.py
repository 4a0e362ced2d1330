"""Reading `.scenario` files and text into a syntax tree, the front door: the input's limits,
a cached tree when this very input was parsed before (parse_cache.py: no lark at all), else
lark's parse (lark_parser.py, imported only then: ~80 ms of lark's import and tables that a
run of an unchanged file never pays), and its errors capped and made one line each."""

from __future__ import annotations

from pathlib import Path

from scenario_core.language import parse_cache
from scenario_core.language.errors import Diagnostic, InvalidFileError, UsageError
from scenario_core.language.nodes.base import SourceLocation
from scenario_core.language.nodes.blocks import ExternalBlocks, ScenarioFileNode
from scenario_core.support import input_files
from scenario_core.support.patterns import on_first_use
from scenario_core.support.records import replace

# A scenario file is text a person writes: anything larger is a mistake (a log, an image, a
# device) that must be refused at once rather than read into memory. The limit is what `check`
# does within 60 s and 1 GiB on 2 cores for the worst shape (the shortest scenarios, ~545,000 of
# them): ~26 s and ~770 MB measured; at 50 MB a million scenarios took 107 s and 1.75 GB
# (docs/limits.md, bench/check_at_size_limit.py).
MAX_FILE_BYTES = 16 * 1024 * 1024
# A file reports at most this many errors, then one line saying how many more there are: past a
# hundred, the first ones are what a person fixes (the rest are often the same mistake).
MAX_ERRORS = 100


def parse_text(
    text: str,
    filename: str = "<text>",
    fragments: ExternalBlocks = (),
    max_errors: int | None = MAX_ERRORS,
    keep: bool = True,
) -> ScenarioFileNode:
    """Parse and validate text; raises InvalidFileError holding every diagnostic found, in file
    order: the first `max_errors` and one more saying how many were left out (None: all of them),
    and the tree read around them (`partial`) when the parser could go on to the end.
    `fragments`: FragmentNodes of .fragment files, available to `include` after the file's own.
    A tree read before from the same input comes from the parse cache; `keep=False` reads the
    cache but adds nothing to it (an editor's buffer at each keystroke)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    key = parse_cache.key(text, filename, fragments)
    if key is not None:
        cached = parse_cache.load(key)
        if cached is not None:
            return cached
    from scenario_core.language.builder.parameter_blocks import UNKNOWN_PARAMETERS_BLOCK
    from scenario_core.language.lark_parser import parse_source

    tree, diagnostics = parse_source(text, filename, fragments)
    if tree is not None and tree.named_parameters and any(d.code == UNKNOWN_PARAMETERS_BLOCK for d in diagnostics):
        # A `<< NAME` above the `parameters: NAME` it names: read again, this file's named
        # blocks known from the start (docs/spec/berrycrush.md#named-parameter-blocks).
        tree, diagnostics = parse_source(text, filename, (*fragments, *tree.named_parameters))
    if diagnostics:
        raise InvalidFileError(_capped(diagnostics, max_errors), tree)
    assert tree is not None
    if key is not None and keep:
        parse_cache.store(key, tree)
    return tree


_LINE_BREAK = on_first_use(r"[ \t]*[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]+[ \t]*")


def _one_line(diagnostic: Diagnostic) -> Diagnostic:
    """A message that quotes text across a line break (a triple-quoted block) stays one line: the
    break shows as ⏎ (errors are one line each, docs/spec/cli.md#error-lines)."""
    if _LINE_BREAK().search(diagnostic.message) is None:
        return diagnostic
    return replace(diagnostic, message=_LINE_BREAK().sub(" ⏎ ", diagnostic.message))


def _capped(diagnostics: list[Diagnostic], limit: int | None) -> list[Diagnostic]:
    """The first `limit` diagnostics in file order and, when there are more, one line at the
    next one's place counting them: `... and 37 more errors`. Each is one line."""
    diagnostics = [_one_line(d) for d in diagnostics]
    if limit is None or len(diagnostics) <= limit:
        return diagnostics
    ordered = sorted(diagnostics, key=lambda d: (d.location.file, d.location.line, d.location.column))
    more = len(ordered) - limit
    return ordered[:limit] + [
        Diagnostic(ordered[limit].location, f"... and {more} more error{'s' if more > 1 else ''}", code="more")
    ]


def _usage_error(path: str | Path, problem: input_files.InputFileError, what: str) -> UsageError:
    if problem.cause == "kind":
        return UsageError(f"{path} {problem}; give a {what}")
    if problem.cause == "size":
        return UsageError(f"{path} {problem}, the limit of a {what}")
    return UsageError(f"{path}: {problem}")


def require_regular_file(path: str | Path, what: str = ".scenario file") -> None:
    """Refuse a directory, FIFO or device before anything opens it: UsageError, one line."""
    try:
        input_files.require_regular_file(path)
    except input_files.InputFileError as problem:
        raise _usage_error(path, problem, what) from None


def read_input(path: str | Path, what: str = ".scenario file", limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; UsageError, one line, otherwise."""
    try:
        return input_files.read_regular_file(path, limit)
    except input_files.InputFileError as problem:
        raise _usage_error(path, problem, what) from None


def load_file(
    path: str | Path, fragments: tuple[str, ...] | list[str] | None = (), max_errors: int | None = MAX_ERRORS
) -> ScenarioFileNode:
    """Read and parse a file. Unreadable files are a UsageError, bad content an InvalidFileError.
    A .scenario file also sees the fragments of .fragment files (fragment_files.py): those under
    the nearest fragments/ folder and those `fragments` names (`--fragments`); None: none at all.
    `max_errors` as for parse_text."""
    name = str(path)
    external: ExternalBlocks = ()
    if fragments is not None and not name.endswith(".fragment"):
        from scenario_core.language.fragment_files import fragment_files, load_external

        external = load_external(fragment_files(path, fragments), load_file)
    data = read_input(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise InvalidFileError(
            [Diagnostic(SourceLocation(name, line, column, line, column + 1), "the file is not UTF-8 text")]
        ) from None
    return parse_text(text, name, external, max_errors)
