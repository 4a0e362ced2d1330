"""What an import produces before it is written: requests in order, grouped into scenarios (and
features whose scenarios share variables), with the values a response gives (`Extract`) and the
run variables the file needs (credentials, never written in clear). Values in paths, headers and
bodies may already hold `{{NAME}}` references; the writer copies them as they are.

The readers (curl, HAR, OpenAPI) build this; the writer renders it in a dialect; nothing here
knows text layout."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Union

JsonValue = Union[None, bool, int, float, str, list["JsonValue"], dict[str, "JsonValue"]]


@dataclass(frozen=True, slots=True)
class JsonBody:
    """`body:` sent as application/json (a `{{NAME}}` inside a string value stays a reference)."""

    value: JsonValue


@dataclass(frozen=True, slots=True)
class TextBody:
    """A `\"\"\"` body sent as written; its Content-Type comes from the request's headers."""

    text: str


@dataclass(frozen=True, slots=True)
class FormBody:
    """`form:`: application/x-www-form-urlencoded fields in order; a name may repeat."""

    fields: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class FilePart:
    """A multipart file part: `name: file PATH [MEDIA/TYPE]` (PATH relative to the written file)."""

    path: str
    media_type: str | None = None


@dataclass(frozen=True, slots=True)
class MultipartBody:
    """`multipart:`: text parts (a str) and file parts, in order."""

    parts: tuple[tuple[str, Union[str, FilePart]], ...]


@dataclass(frozen=True, slots=True)
class FileBody:
    """`bodyFile: PATH` (relative to the written file)."""

    path: str


Body = Union[JsonBody, TextBody, FormBody, MultipartBody, FileBody]

# Where an extracted value comes from: a JSON path (`$.id`), a response header, a cookie the
# response set, the whole body, a regex capture.
SourceKind = Literal["json", "header", "cookie", "body", "regex"]


@dataclass(frozen=True, slots=True)
class Extract:
    """`extract: NAME from SOURCE` after the request: kind `json` with `where` a JSON path
    (`$.id`), `header`/`cookie` with `where` its name, `regex` with `where` the pattern."""

    name: str
    kind: SourceKind
    where: str = ""


@dataclass(frozen=True, slots=True)
class Request:
    """One step that sends a request, and what follows it. `path` is the path and query (no
    scheme or host: those are the file's `baseUrl`), `operation` an OpenAPI operationId when the
    step should be written as an operation call. `status`: the `then: status N` to assert, if any;
    `schema`: a `then: schema` line after it; `extracts`: in order after the checks."""

    method: str
    path: str
    headers: tuple[tuple[str, str], ...] = ()
    body: Body | None = None
    status: int | None = None
    schema: bool = False
    extracts: tuple[Extract, ...] = ()
    operation: str | None = None
    comment: str | None = None  # a `# …` line written above the step
    # An operation call's parameters by name (`petId` → `{{petId}}`, a query parameter's name →
    # its value), for the BerryCrush dialect's `call ^operation`; ours writes `path` instead.
    parameters: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    requests: tuple[Request, ...]
    tags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Feature:
    """Scenarios that run in order and share their variables (`shareVariablesAcrossScenarios`)."""

    name: str
    scenarios: tuple[Scenario, ...]
    share: bool = True


@dataclass(frozen=True, slots=True)
class RunVariable:
    """A value the file needs at run time (`--var NAME=…`), never written in clear: `why` says
    what it stands for (`the Authorization credential of GET /me`)."""

    name: str
    why: str


@dataclass(frozen=True, slots=True)
class ImportedFile:
    """A whole file: its parameters (`baseUrl`, an `openapi:` path relative to the written file),
    the run variables listed in a comment at the top, its scenarios and features in order, and
    `notes`: one-line remarks for standard error (other hosts left out, parts not imported)."""

    items: tuple[Union[Scenario, Feature], ...]
    base_url: str | None = None
    openapi: str | None = None
    run_variables: tuple[RunVariable, ...] = ()
    notes: tuple[str, ...] = field(default=())
    source: str = ""  # what it was imported from, for the header comment (`curl`, `HAR rec.har`)
