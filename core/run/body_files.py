"""`bodyFile:` of an operation call: finding the file (`file:` in the working directory; any
other name in each --resource-root, then on the standalone class path: beside the scenario file
and in each folder above it, with their src/test/resources and src/main/resources; BerryCrush's
`classpath:` prefix is dropped), reading it safely and rendering its `{{NAME}}`
references (docs/openapi.md). Every problem is a RequestFailed, one line."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

from scenario_core.language.nodes.base import SourceLocation
from scenario_core.language.templates import TemplateError, render_text, text_template
from scenario_core.run.http.client import RequestFailed
from scenario_core.support.class_path import CLASSPATH, class_path_folders
from scenario_core.support.input_files import InputFileError, read_regular_file

# A request body read from a file (`bodyFile:`) is sent, not parsed: it may be larger than a
# scenario file may be (docs/limits.md).
MAX_BODY_FILE_BYTES = 50 * 1024 * 1024


def read_body_file(
    name: str, scenario_file: str, visible: Mapping[str, object], resource_roots: Sequence[str] = ()
) -> str:
    """`bodyFile: "x.json"`, BerryCrush's `"classpath:templates/x.json"` or `"file:x.json"`: the
    file's text with its {{NAME}} references rendered (docs/openapi.md). `file:` is relative to
    the working directory; any other relative name is looked up in each --resource-root, then on
    the standalone class path (support/class_path.py)."""
    found = find_body_file(name, scenario_file, resource_roots)
    if found is not None:
        return _rendered(found, visible)
    if name.startswith("file:"):
        where = "the working directory"
    else:
        folder = Path(scenario_file).resolve().parent
        where = f"{', '.join(resource_roots) + ', ' if resource_roots else ''}{folder} or a folder above it"
    raise RequestFailed(f"bodyFile '{name}' not found in {where}")


def find_body_file(name: str, scenario_file: str, resource_roots: Sequence[str] = ()) -> Path | None:
    """The file a bodyFile name stands for (read_body_file's lookup), None when there is none."""
    if name.startswith("file:"):
        candidates = [Path(name[len("file:") :])]
    else:
        relative = name[len(CLASSPATH) :].lstrip("/") if name.startswith(CLASSPATH) else name
        roots = [Path(r) for r in resource_roots] + class_path_folders(scenario_file)
        candidates = [Path(relative)] if Path(relative).is_absolute() else [d / relative for d in roots]
    return next((candidate for candidate in candidates if candidate.exists()), None)


def _rendered(candidate: Path, visible: Mapping[str, object]) -> str:
    """The file's text, its references rendered."""
    try:
        data = read_regular_file(candidate, MAX_BODY_FILE_BYTES)
        text = data.decode("utf-8")
    except InputFileError as problem:
        raise RequestFailed(f"bodyFile {candidate} {problem}") from None
    except UnicodeDecodeError:
        raise RequestFailed(f"bodyFile {candidate} is not UTF-8 text") from None
    return render_file_text(candidate, text, visible)


def render_file_text(path: Path, text: str, visible: Mapping[str, object]) -> str:
    """A file's text with its `{{NAME}}` references rendered (a bodyFile's, a multipart file
    part's); a reference is located in the file, on its one "line"."""
    if "{{" not in text:
        return text
    where = str(path)
    try:
        template = text_template(text, lambda o, n: SourceLocation(where, 1, o + 1, 1, o + 1 + n))
    except TemplateError as problem:
        raise RequestFailed(f"bodyFile {path}: {problem}") from None
    missing = [r.name for r in template.refs if r.name not in visible]
    if missing:
        raise RequestFailed(
            f"undefined variable '{missing[0]}' in bodyFile {path}; "
            f"visible here: {', '.join(sorted(visible)) or 'nothing'}"
        )
    return render_text(template, visible)
