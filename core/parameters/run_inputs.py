"""What `run` is given besides options: FILE arguments that may be folders or globs, and a
`--variables-file` (a JSON object, or dotenv `NAME=VALUE` lines, like Hurl's)."""

from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from scenario_core.language.errors import Diagnostic, InvalidFileError, UsageError
from scenario_core.language.nodes.base import SourceLocation
from scenario_core.support.digits import INT_DIGITS
from scenario_core.support.input_files import InputFileError, read_regular_file
from scenario_core.support.printable import visible

if TYPE_CHECKING:
    from scenario_core.parameters.resolution import RunOverrides

GLOB_CHARS = frozenset("*?[")
VARIABLES_FILE_LIMIT = 10 * 1024 * 1024


def expand_scenario_paths(items: Sequence[str]) -> list[str]:
    """Each FILE argument as the scenario files it names, in the order given: a folder is every
    `*.scenario` under it (recursively, sorted; not in sub-folders named `_*` or `.*`), a glob its matches (sorted; folders among them
    expand too), anything else itself (a missing file is reported when it is read). A folder or
    glob naming no scenario file is a UsageError. A file named twice runs once."""
    found: list[str] = []
    for item in items:
        path = Path(item)
        if path.is_dir():
            matches = _scenarios_under(path)
            if not matches:
                raise UsageError(f"{item}: no .scenario file in this folder")
        elif not path.exists() and GLOB_CHARS & set(item):
            matches = []
            for match in sorted(glob.glob(item, recursive=True)):
                if os.path.isdir(match):
                    matches += _scenarios_under(Path(match))
                elif os.path.isfile(match):
                    matches.append(match)
            if not matches:
                raise UsageError(f"{item}: no file matches this pattern")
        else:
            matches = [item]
        found += matches
    seen: set[str] = set()
    unique = []
    for name in found:
        key = os.path.normpath(os.path.abspath(name))
        if key not in seen:
            seen.add(key)
            unique.append(name)
    return unique


def _left_out(name: str) -> bool:
    """A folder run leaves out sub-folders named `_*` or `.*`: files kept aside on purpose
    (examples/_fails-on-purpose), a .git or a .venv. Naming a file or the folder itself runs it."""
    return name[:1] in ("_", ".")


def _scenarios_under(folder: Path) -> list[str]:
    return [
        str(p)
        for p in sorted(folder.rglob("*.scenario"))
        if p.is_file() and not any(_left_out(part) for part in p.relative_to(folder).parts[:-1])
    ]


def folders_left_out(items: Sequence[str]) -> list[str]:
    """The sub-folders holding .scenario files that the folders among `items` leave out (the
    outermost of each), so a run can say why their files did not run."""
    left: list[str] = []
    for item in items:
        folder = Path(item)
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*.scenario")):
            parts = path.relative_to(folder).parts[:-1]
            first = next((i for i, part in enumerate(parts) if _left_out(part)), None)
            if first is not None:
                name = str(folder.joinpath(*parts[: first + 1]))
                if name not in left:
                    left.append(name)
    return left


class NumberTooLong(ValueError):
    """A run variable's value is an integer of more than INT_DIGITS digits."""


def _json_int(text: str) -> int:
    # Without this, json.loads raises the same ValueError as for text that is not JSON, and a
    # 5,000-digit number would silently become a string.
    if len(text.lstrip("-")) > INT_DIGITS:
        raise NumberTooLong(text)
    return int(text)


def variable_value(raw: str) -> object:
    """A run variable's value (`--var`, a variables file): JSON when it reads as JSON (`7`,
    `true`, `[1, 2]`), otherwise the text. NumberTooLong for an integer past Python's limit."""
    import json  # only for --var and variables files: check and run of plain files need none

    try:
        return json.loads(raw, parse_int=_json_int)
    except NumberTooLong:
        raise
    except (ValueError, RecursionError):
        return raw


def read_variables_file(path: str) -> dict[str, object]:
    """A JSON object (its values as they are), or dotenv lines: `NAME=VALUE`, `export NAME=VALUE`,
    `#` comments and blank lines; a VALUE is JSON when it parses as JSON (like `--var`), a
    '...' quoted one is text as written. A problem is one `FILE:LINE:COLUMN: error:` line."""
    from scenario_core.language.templates import NAME

    try:
        data = read_regular_file(path, VARIABLES_FILE_LIMIT)
    except InputFileError as error:
        raise UsageError(f"--variables-file {path}: {error}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UsageError(f"--variables-file {path}: not UTF-8 text") from None
    if text.lstrip().startswith("{"):
        import json

        try:
            value: dict[str, object] = json.loads(text)  # it starts with `{`: an object
        except (ValueError, RecursionError) as error:
            line, column = getattr(error, "lineno", 1), getattr(error, "colno", 1)
            raise _problem(path, line, column, f"not a JSON object: {getattr(error, 'msg', error)}") from None
        bad = [name for name in value if not NAME.fullmatch(name)]
        if bad:
            raise _problem(path, 1, 1, f"'{bad[0][:60]}' is not a variable name (letters, digits and _)")
        return value
    variables: dict[str, object] = {}
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        column = len(line) - len(line.lstrip()) + 1
        if stripped.startswith("export "):
            stripped = stripped[len("export ") :].lstrip()
        name, sep, raw = stripped.partition("=")
        name, raw = name.strip(), raw.strip()
        if not sep or not NAME.fullmatch(name):
            raise _problem(path, number, column, "expected NAME=VALUE with NAME made of letters, digits and _")
        if len(raw) >= 2 and raw[0] == raw[-1] == "'":
            variables[name] = raw[1:-1]
            continue
        if not _is_utf8(raw):
            raise UsageError(
                f"--var {name}: the value is not valid UTF-8 text (bytes the terminal or shell could not decode)"
            )
        try:
            variables[name] = variable_value(raw)
        except NumberTooLong:
            raise _problem(
                path,
                number,
                column,
                f"{name}: a number with more than {INT_DIGITS} digits cannot be used; quote it to pass it as text",
            ) from None
    return variables


def _problem(path: str, line: int, column: int, message: str) -> InvalidFileError:
    return InvalidFileError([Diagnostic(SourceLocation(path, line, column, line, column), message)])


def command_line_overrides(param: Sequence[str], base_url: str | None, openapi: Sequence[str]) -> RunOverrides:
    """--param KEY=VALUE, --base-url and --openapi as RunOverrides; UsageError, one line, if invalid."""
    from scenario_core.parameters.resolution import RunOverrides

    try:
        return RunOverrides.from_cli(param, base_url, openapi)
    except ValueError as error:  # a last guard: every parameter validator raises UsageError itself
        raise UsageError(f"--param: {' '.join(str(error).split())}") from None


def run_variables_from(items: Sequence[str]) -> dict[str, object]:
    """--var NAME=VALUE items as run variables (VALUE read as JSON when it is JSON)."""
    variables: dict[str, object] = {}
    if not items:  # most runs: nothing to import
        return variables
    from scenario_core.language.templates import NAME

    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not NAME.fullmatch(name):
            raise UsageError(
                f"--var {_clip(visible(item))}: expected NAME=VALUE with NAME made of letters, digits and _"
            )
        if not _is_utf8(raw):
            raise UsageError(
                f"--var {name}: the value is not valid UTF-8 text (bytes the terminal or shell could not decode)"
            )
        try:
            variables[name] = variable_value(raw)
        except NumberTooLong:
            raise UsageError(
                f"--var {name}: a number with more than {INT_DIGITS} digits cannot be used; "
                f"quote it to pass it as text: --var '{name}=\"...\"'"
            ) from None
    return variables


def _is_utf8(text: str) -> bool:
    """Whether `text` came from valid UTF-8: bytes that were not reach Python's argv as lone
    surrogates (surrogateescape), which no header, body or report can carry."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _clip(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
