"""The bytes of a request's `form:`, `multipart:` and (under `when: METHOD path`) `bodyFile:`
bodies (docs/spec/requests.md#body-forms): values rendered, files found as `bodyFile:` names are
(--resource-root, the scenario file's folder, then each parent) and read within MAX_PART_BYTES.
Every problem is a RequestFailed, one line naming the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping, NamedTuple, Sequence

from scenario_core.language.nodes.steps import FormField, RequestStep
from scenario_core.language.templates import render_text
from scenario_core.run.body_files import MAX_BODY_FILE_BYTES, find_body_file, render_file_text
from scenario_core.run.http.client import RequestFailed
from scenario_core.support.input_files import InputFileError, read_regular_file

# A file sent as a multipart part or a bodyFile is read whole, up to this size (docs/limits.md).
MAX_PART_BYTES = MAX_BODY_FILE_BYTES  # a file part is sent as a bodyFile is
_BY_EXTENSION = {".json": "application/json", ".xml": "application/xml", ".txt": "text/plain"}


class BuiltBody(NamedTuple):
    content: bytes
    # as a report shows it: the text sent, or a multipart body's parts one a line, never a file's
    # bytes: `"note": "text"` (a JSON field, so that masking knows a secret one by its name) or
    # `"photo": file rex.png (image/png, 70 bytes)`
    text: str
    content_type: str


def _json(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def has_body_form(step: RequestStep) -> bool:
    return step.form is not None or step.multipart is not None


def media_type_of(path: str) -> str:
    """A file's type by its extension: .json, .xml, .txt, else the platform's table, else
    application/octet-stream."""
    suffix = Path(path).suffix.lower()
    found = _BY_EXTENSION.get(suffix)
    if found is not None:
        return found
    import mimetypes  # (its tables: only for a file of another extension)

    return mimetypes.guess_type(path)[0] or "application/octet-stream"


def build_body(
    step: RequestStep, visible: Mapping[str, object], scenario_file: str, resource_roots: Sequence[str] = ()
) -> BuiltBody | None:
    """The step's form, multipart or bodyFile body; None when it has none of them."""
    if step.form is not None:
        from scenario_core.run.http.forms import FORM_TYPE, urlencoded  # (a run without forms never loads them)

        text = urlencoded([(f.name, render_text(f.value, visible)) for f in step.form])
        return BuiltBody(text.encode("utf-8"), text, FORM_TYPE)
    if step.multipart is not None:
        return _multipart(step.multipart, visible, scenario_file, resource_roots)
    if step.body_file is not None:
        name = render_text(step.body_file, visible)
        path, data = read_file(name, scenario_file, resource_roots, "bodyFile")
        rendered = _rendered(path, data, visible)
        content = data if rendered is None else rendered.encode("utf-8")
        shown = rendered if rendered is not None else f"({len(data)} bytes of {path.name})"
        return BuiltBody(content, shown, media_type_of(str(path)))
    return None


def read_file(name: str, scenario_file: str, resource_roots: Sequence[str], what: str) -> tuple[Path, bytes]:
    found = find_body_file(name, scenario_file, resource_roots)
    if found is None:
        folder = Path(scenario_file).resolve().parent
        roots = ", ".join(resource_roots) + ", " if resource_roots else ""
        raise RequestFailed(f"{what} '{name}' not found in {roots}{folder} or a folder above it")
    try:
        return found, read_regular_file(found, MAX_PART_BYTES)
    except InputFileError as problem:
        raise RequestFailed(f"{what} {found} {problem}") from None


def _rendered(path: Path, data: bytes, visible: Mapping[str, object]) -> str | None:
    """UTF-8 text with its {{NAME}} references rendered; None for bytes that are not UTF-8."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return render_file_text(path, text, visible)


def _multipart(
    fields: Sequence[FormField], visible: Mapping[str, object], scenario_file: str, resource_roots: Sequence[str]
) -> BuiltBody:
    from scenario_core.run.http.forms import Part, multipart

    parts: list[Part] = []
    shown: list[str] = []
    for field in fields:
        value = render_text(field.value, visible)
        if not field.file:
            parts.append(Part(field.name, value.encode("utf-8")))
            shown.append(f"{_json(field.name)}: {_json(value)}")
            continue
        path, data = read_file(value, scenario_file, resource_roots, f"multipart file of part '{field.name}'")
        media = field.media_type or media_type_of(str(path))
        parts.append(Part(field.name, data, path.name, media))
        shown.append(f"{_json(field.name)}: file {path.name} ({media}, {len(data)} bytes)")
    content, content_type = multipart(parts)
    return BuiltBody(content, "\n".join(shown), content_type)
