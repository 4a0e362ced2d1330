"""The one writer of new scenario text: an imported file (scenario_core.importing.model) as a
whole file, or one imported request as step lines to paste into a file, in either dialect.

- **Ours**: `when: METHOD path` with `headers:` and one body form (`body:`, `form:`,
  `multipart:`, `bodyFile:`) indented below it, then `then: status N`, `then: schema` and
  `extract: NAME from SOURCE` lines (docs/spec/requests.md).
- **BerryCrush's**: a request with a known operation is a described step over `call ^operation`
  (its parameters, `header_NAME:` lines and body below the call) and a described `then` step with
  `assert status N`, `assert schema` and `extract $.path => NAME`; a request without one is
  written in our lines, which a BerryCrush-dialect file may hold (docs/spec/berrycrush.md), as
  are the extracts BerryCrush has no directive for (a header, a cookie, a regex).

The model lives in a layer above this one, so it is read by its fields here, never imported.
Every text returned has been parsed back: a text that would not parse, or a line that would lose
part of its value to a `#` comment, is a RenderError and is never returned.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Literal, cast

from scenario_core.editor.writeback import extract_text
from scenario_core.language.comments import strip_comment
from scenario_core.language.errors import InvalidFileError
from scenario_core.language.parser import parse_text
from scenario_core.support.printable import visible

if TYPE_CHECKING:
    from scenario_core.editor.import_shapes import (
        ExtractShape,
        FeatureShape,
        FileBodyShape,
        FormBodyShape,
        ImportedFileShape,
        JsonBodyShape,
        MultipartBodyShape,
        RequestShape,
        ScenarioShape,
        TextBodyShape,
    )

Dialect = Literal["ours", "berrycrush"]
DIALECTS: tuple[Dialect, ...] = ("ours", "berrycrush")
INDENT = "  "
# A JSON body on one line up to this width; a longer one is written indented over several lines.
_INLINE_JSON = 80
_DEEPEST_INDENT = 40  # ... unless indenting it would push a line this far right (20 levels)
_MOST_BODY_LINES = 60  # ... or take more lines than this
_TRIPLE = '"""'


class RenderError(Exception):
    """What could not be written, in one line; the text is never returned (or written)."""

    def __init__(self, message: str) -> None:
        super().__init__(visible(message))


# ---------------------------------------------------------------- small pieces


def _one_line(text: str) -> str:
    """A name or comment on one line: line breaks and control characters become spaces."""
    return re.sub(r"[\x00-\x1f\x7f\u2028\u2029\x85]+", " ", text).strip()


def _name(text: str) -> str:
    """A scenario or feature name that reads back as written: one line, no `#` that would start a
    comment (after a space), not empty."""
    name = re.sub(r"(?<=\s)#+", "", _one_line(text)).strip()
    return name or "imported"


def _quoted(text: str) -> str:
    """A value in double quotes, as `multipart:` and file paths take it (no escapes in between)."""
    if '"' in text:
        raise RenderError(f"cannot write {text!r}: it holds a double quote")
    return f'"{text}"'


def _plain_or_quoted(text: str) -> str:
    """A parameter value as written plainly when it reads back as itself, else in quotes."""
    if text and text == text.strip() and strip_comment(text) == text and not text.startswith(("'", '"', "{", "[")):
        return text
    return json.dumps(text, ensure_ascii=False)


def _entry(name: str, value: str, what: str) -> str:
    """A `name: value` line; a value that would lose text to a comment or to trimming cannot be
    written as such a line."""
    if ":" in name or not name or name != name.strip() or name.startswith(("#", "@", "|", '"')):
        raise RenderError(f"cannot write the {what} name {name!r} as a `name: value` line")
    line = f"{name}: {value}" if value else f"{name}:"
    if strip_comment(line) != line or value != value.strip() or re.search(r"[\r\n]", value):
        raise RenderError(f"cannot write the {what} {name}'s value {value!r} on one line as it is")
    return line


def _json_lines(value: object) -> list[str]:
    """A JSON body: `body: {...}` on one line when short, else `body:` and the indented JSON."""
    try:
        inline = json.dumps(value, ensure_ascii=False)
    except (ValueError, RecursionError):
        raise RenderError("cannot write the JSON body: it nests too deep or holds a value JSON has not") from None
    if len(inline) <= _INLINE_JSON or not isinstance(value, (dict, list)) or not value:
        return [f"body: {inline}"]
    lines = json.dumps(value, ensure_ascii=False, indent=2).split("\n")
    if len(lines) > _MOST_BODY_LINES or any(line.startswith(" " * _DEEPEST_INDENT) for line in lines):
        return [f"body: {inline}"]  # a long or deep body reads better on one line
    return ["body:"] + [INDENT + line for line in lines]


def _text_lines(text: str) -> list[str]:
    """A `\"\"\"` body: the text's lines between the quotes, indented under `body:`; the parser
    removes their common indentation and the last line break, so a text that needs either (or
    holds `\"\"\"`) cannot be written so."""
    lines = text.split("\n")
    if _TRIPLE in text or "\r" in text:
        raise RenderError('cannot write a text body that holds """ or a carriage return; give it as a body file')
    written = [line for line in lines if line.strip()]
    if written and all(line[:1] in (" ", "\t") for line in written):
        raise RenderError("cannot write a text body whose every line is indented; give it as a body file")
    return ["body: " + _TRIPLE] + [INDENT + line if line else "" for line in lines] + [INDENT + _TRIPLE]


def _file_value(path: str) -> str:
    return _quoted(path) if re.search(r"\s|[\"'#]", path) or not path else path


def _body_lines(body: object) -> list[str]:
    """The lines of a body form, unindented (their children indented by INDENT); the class's
    name says which body shape it is (import_shapes)."""
    kind = type(body).__name__
    if kind == "JsonBody":
        return _json_lines(cast("JsonBodyShape", body).value)
    if kind == "TextBody":
        return _text_lines(cast("TextBodyShape", body).text)
    if kind == "FormBody":
        form = cast("FormBodyShape", body)
        if not form.fields:
            raise RenderError("cannot write an empty form")
        return ["form:"] + [INDENT + _entry(name, value, "form field") for name, value in form.fields]
    if kind == "MultipartBody":
        multipart = cast("MultipartBodyShape", body)
        if not multipart.parts:
            raise RenderError("cannot write an empty multipart body")
        lines = ["multipart:"]
        for name, part in multipart.parts:
            if isinstance(part, str):
                plain = part and not part.startswith(("file ", '"', "'")) and part != "file"
                value = part if plain and strip_comment(part) == part and part == part.strip() else _quoted(part)
                lines.append(INDENT + _entry(name, value, "multipart part"))
            else:
                value = "file " + _file_value(part.path) + (f" {part.media_type}" if part.media_type else "")
                lines.append(INDENT + _entry(name, value, "multipart part"))
        return lines
    if kind == "FileBody":
        return [f"bodyFile: {_file_value(cast('FileBodyShape', body).path)}"]
    raise RenderError(f"cannot write a body of kind {kind}")


def _source(extract: ExtractShape) -> str:
    """Where an extract reads, as our `extract:` line writes it (docs/spec/requests.md)."""
    kind, where = extract.kind, extract.where
    if kind == "json":
        return where or "$"
    if kind in ("header", "cookie"):
        return f"{kind} {where}"
    if kind == "body":
        return "body"
    if kind == "regex":
        return "regex " + json.dumps(where, ensure_ascii=False)
    raise RenderError(f"cannot write an extract from {kind}")


def _berrycrush_extract(extract: ExtractShape) -> str | None:
    """BerryCrush's `extract $.path => NAME` for a JSON path, as the playground writes it
    (writeback.extract_text); None for other sources or a path it cannot quote."""
    if extract.kind != "json":
        return None
    return extract_text(extract.where or "$", extract.name, berrycrush=True)


def _checked(line: str) -> str:
    """A step line that reads back whole: no `#` in it would start a comment."""
    if strip_comment(line) != line:
        raise RenderError(f"cannot write {line!r}: a '#' after a space would start a comment")
    return line


def _request_line(request: RequestShape) -> str:
    method = request.method.upper()
    path = request.path or "/"
    if not re.fullmatch(r"[A-Za-z]+", method):
        raise RenderError(f"cannot write the method {request.method!r}")
    if re.search(r"\s", path):
        raise RenderError(f"cannot write the path {path!r}: it holds a space (percent-encode it)")
    return _checked(f"when: {method} {path}")


# ---------------------------------------------------------------- steps


def _ours(request: RequestShape) -> list[str]:
    lines = _call_lines(request) or [_request_line(request)]
    if request.headers:
        lines.append(INDENT + "headers:")
        lines += [INDENT * 2 + _entry(name, value, "header") for name, value in request.headers]
    if request.body is not None:
        lines += [INDENT + line for line in _body_lines(request.body)]
    lines += _ours_checks(request)
    return lines


def _call_lines(request: RequestShape) -> list[str]:
    """`when: ^operation` and its parameters as children, for a request with a known operation
    (an OpenAPI import): `then: schema` needs the operation a call names (docs/openapi.md)."""
    operation = getattr(request, "operation", None)
    if not operation or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.-]*", operation):
        return []
    lines = [f"when: ^{operation}"]
    lines += [INDENT + _entry(name, value, "parameter") for name, value in getattr(request, "parameters", ())]
    return lines


def _ours_checks(request: RequestShape) -> list[str]:
    lines = []
    if request.status is not None:
        lines.append(f"then: status {int(request.status)}")
    if request.schema:
        lines.append("then: schema")
    lines += [_checked(f"extract: {extract.name} from {_source(extract)}") for extract in request.extracts]
    return lines


def _berrycrush(request: RequestShape) -> list[str]:
    operation = request.operation
    if not operation or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.-]*", operation):
        return _ours(request)
    lines = [f"when I call {operation}", INDENT + f"call ^{operation}"]
    under = INDENT * 2
    for name, value in getattr(request, "parameters", ()):
        lines.append(under + _entry(name, value, "parameter"))
    for name, value in request.headers:
        # A call's values are JSON: a header's text is a JSON string (`{{NAME}}` inside it is text).
        lines.append(under + _entry(f"header_{name}", json.dumps(value, ensure_ascii=False), "header"))
    if request.body is not None:
        lines += [under + line for line in _body_lines(request.body)]
    asserts = []
    if request.status is not None:
        asserts.append(f"assert status {int(request.status)}")
    if request.schema:
        asserts.append("assert schema")
    ours = []
    for extract in request.extracts:
        line = _berrycrush_extract(extract)
        if line is None:  # BerryCrush has no directive for it: our line beside the described step
            ours.append(_checked(f"extract: {extract.name} from {_source(extract)}"))
        else:
            asserts.append(_checked(line))
    if asserts:
        lines.append("then the response is as recorded")
        lines += [INDENT + line for line in asserts]
    return lines + ours


def request_lines(request: RequestShape, dialect: Dialect = "ours") -> list[str]:
    """One imported request as step lines, unindented (children indented by two spaces): its
    comment, the request, its checks and extracts, in the dialect asked for."""
    if dialect not in DIALECTS:
        raise RenderError(f"unknown dialect {dialect!r}; use ours or berrycrush")
    lines = []
    if request.comment:
        lines.append(f"# {_one_line(request.comment)}")
    lines += _berrycrush(request) if dialect == "berrycrush" else _ours(request)
    return lines


def render_steps(request: RequestShape, dialect: Dialect = "ours", indent: str = "") -> list[str]:
    """`request_lines` indented by `indent`, checked by parsing them in a scenario of their own:
    what the TUI pastes after a step (writeback.insert_lines puts them in place)."""
    lines = request_lines(request, dialect)
    _parse("scenario: pasted\n" + "".join(INDENT + line + "\n" if line else "\n" for line in lines), "<pasted>")
    return [indent + line if line else "" for line in lines]


# ---------------------------------------------------------------- files


def _header(imported: ImportedFileShape) -> list[str]:
    source = _one_line(imported.source) or "another tool's request"
    lines = [f"# Imported from {source} by scenario-tui import."]
    if imported.run_variables:
        lines.append("# Run variables it needs, given at run time (`--var NAME=VALUE`), never written here:")
        for variable in imported.run_variables:
            why = _one_line(variable.why)
            lines.append(f"#   {variable.name}: {why}" if why else f"#   {variable.name}")
    return lines


def _parameters(imported: ImportedFileShape) -> list[str]:
    entries = []
    if imported.base_url:
        entries.append(INDENT + _entry("baseUrl", _plain_or_quoted(imported.base_url), "parameter"))
    if imported.openapi:
        entries.append(INDENT + _entry("openapi", _plain_or_quoted(imported.openapi), "parameter"))
    return ["parameters:"] + entries if entries else []


def _scenario(scenario: ScenarioShape, dialect: Dialect, indent: str) -> list[str]:
    lines = []
    if scenario.tags:
        tags = " ".join("@" + re.sub(r"[\s@#]", "_", tag.lstrip("@")) for tag in scenario.tags)
        lines.append(indent + tags)
    lines.append(indent + f"scenario: {_name(scenario.name)}")
    if not scenario.requests:
        raise RenderError(f"scenario {_name(scenario.name)!r} has no request to write")
    for request in scenario.requests:
        lines += [indent + INDENT + line if line else "" for line in request_lines(request, dialect)]
    return lines


def render_file(imported: ImportedFileShape, dialect: Dialect = "ours", file: str = "<import>") -> str:
    """A whole scenario file of an import: a comment naming its source and the run variables it
    needs, its `parameters:` (`baseUrl`, `openapi`), then its scenarios and features, a blank line
    between top-level blocks, `\\n` line ends. Parsed back before it is returned."""
    if dialect not in DIALECTS:
        raise RenderError(f"unknown dialect {dialect!r}; use ours or berrycrush")
    if not imported.items:
        raise RenderError("nothing to write: no request was imported")
    blocks: list[list[str]] = []
    parameters = _parameters(imported)
    header = _header(imported)
    blocks.append(header + parameters if parameters else header)
    for item in imported.items:
        if hasattr(item, "scenarios"):
            feature = cast("FeatureShape", item)  # a feature: the one item that has scenarios
            block = [f"feature: {_name(feature.name)}"]
            if feature.share:
                block += [INDENT + "parameters:", INDENT * 2 + "shareVariablesAcrossScenarios: true"]
            for number, scenario in enumerate(feature.scenarios):
                block += ([""] if number else []) + _scenario(scenario, dialect, INDENT)
            blocks.append(block)
        else:
            blocks.append(_scenario(item, dialect, ""))
    text = "\n\n".join("\n".join(block) for block in blocks) + "\n"
    _parse(text, file)
    return text


def _parse(text: str, file: str) -> None:
    try:
        parse_text(text, file, keep=False)
    except InvalidFileError as error:
        first = error.diagnostics[0] if error.diagnostics else file
        raise RenderError(f"internal error: the text written does not parse ({first}); nothing written") from None
