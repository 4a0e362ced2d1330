"""The operation model of OpenAPI 3.0 / 3.1 / Swagger 2.0 descriptions, built from a description.

Design
------
* `build_operations(description)` turns each `paths.P.METHOD` into an `Operation`: path-level and
  operation-level parameters merged (the operation's win by (name, in)), every `$ref` on the way
  followed (documents.py), request body and responses keyed by media type. Schemas are not
  copied or converted here: a `Schema` remembers its raw value, file and JSON pointer and the
  dialect ("3.0", "3.1", "2.0") so schema_compile.py can compile it once, and request building
  can read defaults and examples.
* Swagger 2.0 is mapped into the same model: an `in: body` parameter becomes the request body
  (media types from `consumes`, default application/json), `in: formData` parameters become an
  object schema under application/x-www-form-urlencoded (multipart/form-data when consumed),
  non-body parameters get a schema from their `type`/`format`/`items`/`enum`/limits and a style
  from `collectionFormat` (csv → explode false, multi → form+explode, ssv/pipes → space/pipe
  delimited), response `schema` becomes content per `produces`. `#/definitions/...` refs stay as
  written: they point into the same document.
* A `LoadedDescription` (what the loader hands out) builds its operations once, on first use.
  Finding `^op` among them is `operation_lookup`.
"""

from __future__ import annotations

import re
from typing import Mapping

from scenario_core.openapi.documents import HTTP_METHODS, Description, join_pointer
from scenario_core.support.json_types import JsonArray, JsonObject, JsonValue
from scenario_core.support.records import dataclass, field

LOCATIONS = ("path", "query", "header", "cookie")
JSON_MEDIA = "application/json"


@dataclass(frozen=True, eq=False)
class Schema:
    """A schema as written, with where it was written (for $refs inside it) and its dialect."""

    raw: JsonValue
    file: str
    pointer: str | None  # None for a schema we synthesised (Swagger parameters, formData)
    dialect: str  # "3.0", "3.1" or "2.0"
    description: Description = field(repr=False)

    def resolved(self) -> JsonValue:
        """The raw value with a top-level $ref followed (nested $refs stay)."""
        return self.description.resolve(self.raw, self.file, self.pointer or "")[0]


@dataclass(frozen=True)
class Parameter:
    name: str
    location: str  # path, query, header, cookie
    required: bool
    schema: Schema | None
    style: str
    explode: bool
    allow_reserved: bool = False
    description: str = ""
    deprecated: bool = False
    default: JsonValue = None
    example: JsonValue = None


@dataclass(frozen=True)
class MediaType:
    media_type: str
    schema: Schema | None
    example: JsonValue = None
    examples: Mapping[str, JsonValue] = field(default_factory=dict)


@dataclass(frozen=True)
class RequestBody:
    required: bool
    content: Mapping[str, MediaType]  # in description order

    def preferred(self) -> MediaType | None:
        """application/json if declared, else a +json type, else the first media type."""
        if JSON_MEDIA in self.content:
            return self.content[JSON_MEDIA]
        for name, media in self.content.items():
            if name.endswith("+json"):
                return media
        return next(iter(self.content.values()), None)


@dataclass(frozen=True)
class Response:
    status: str  # "200", "2XX" or "default"
    description: str
    content: Mapping[str, MediaType]
    headers: Mapping[str, JsonValue] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class Operation:
    id: str | None  # operationId; None when the description gives none
    method: str  # upper case
    path: str  # template as written: /pets/{id}
    summary: str
    parameters: tuple[Parameter, ...]
    request_body: RequestBody | None
    responses: Mapping[str, Response]  # keys as written, 2xx normalised to 2XX
    description_name: str = "default"  # which description it came from (set by Descriptions)
    source: Description | None = field(default=None, repr=False)
    pointer: str = ""  # JSON pointer of the operation in its file
    tags: tuple[str, ...] = ()
    deprecated: bool = False
    security: JsonValue = None  # the operation's `security`, else the description's

    @property
    def label(self) -> str:
        """`getPetById (GET /pets/{id})`, or `GET /pets/{id}` when it has no id."""
        shape = f"{self.method} {self.path}"
        return f"{self.id} ({shape})" if self.id else shape

    def parameter(self, name: str, location: str | None = None) -> Parameter | None:
        for p in self.parameters:
            if location is not None and p.location != location:
                continue
            if p.name == name or (p.location == "header" and p.name.lower() == name.lower()):
                return p
        return None

    def response_for(self, status: int) -> Response | None:
        """The response declared for a status: exact, then `2XX`, then `default`."""
        return (
            self.responses.get(str(status))
            or self.responses.get(f"{str(status)[0]}XX")
            or self.responses.get("default")
        )

    def with_source(self, name: str) -> "Operation":
        from scenario_core.support.records import replace

        return replace(self, description_name=name)


class LoadedDescription(Description):
    """A description as the loader's cache hands it out: its operations are built once, on first use."""

    _operations: list[Operation] | None

    @property
    def operations(self) -> list[Operation]:
        """Every operation, in document order."""
        operations: list[Operation] | None = self._operations
        if operations is None:
            operations = self._operations = build_operations(self)
        return operations


# ------------------------------------------------------------------------------------ building


def build_operations(description: Description) -> list[Operation]:
    doc = description.document
    paths = doc.get("paths") or {}
    if not isinstance(paths, dict):
        description.fail("'paths' is not a mapping", description.path, "/paths")
    builder = _Builder(description)
    operations: list[Operation] = []
    for path, raw_item in paths.items():
        if not str(path).startswith("/"):
            continue  # `x-` extensions
        pointer = join_pointer("/paths", path)
        item, file, item_pointer = description.resolve(raw_item, description.path, pointer)
        if not isinstance(item, dict):
            continue
        shared = builder.parameters(item.get("parameters"), file, join_pointer(item_pointer, "parameters"))
        for method in HTTP_METHODS:
            raw_op = item.get(method)
            if not isinstance(raw_op, dict):
                continue
            operations.append(
                builder.operation(str(path), method, raw_op, shared, file, join_pointer(item_pointer, method))
            )
    return operations


# A parameter as the builder collects it: (the parameter, or None for a Swagger body/formData
# one; its resolved raw mapping; its file; its pointer).
_ParameterEntry = tuple[Parameter | None, JsonObject, str, str]


class _Builder:
    def __init__(self, description: Description):
        self.d = description
        self.version = description.version
        doc = description.document
        self.consumes = _names(doc.get("consumes")) or [JSON_MEDIA]
        self.produces = _names(doc.get("produces")) or [JSON_MEDIA]

    def schema(self, raw: JsonValue, file: str, pointer: str | None) -> Schema | None:
        if raw is None:
            return None
        return Schema(raw, file, pointer, self.version, self.d)

    # ---- parameters

    def parameters(self, raw: JsonValue, file: str, pointer: str) -> list[_ParameterEntry]:
        """[(parameter, or None for a Swagger body/formData one; resolved raw; its file; its pointer)]"""
        result = []
        if raw is not None and not isinstance(raw, list):
            self.d.fail("'parameters' must be a list", file, pointer)
        for index, entry in enumerate(raw or ()):
            value, vfile, vpointer = self.d.resolve(entry, file, join_pointer(pointer, index))
            if not isinstance(value, dict) or "name" not in value or "in" not in value:
                self.d.fail("a parameter needs 'name' and 'in'", vfile, vpointer)
            result.append((self.parameter(value, vfile, vpointer), value, vfile, vpointer))
        return result

    def parameter(self, raw: JsonObject, file: str, pointer: str) -> Parameter | None:
        location = str(raw["in"])
        name = str(raw["name"])
        if location in ("body", "formData"):
            return None
        if location not in LOCATIONS:
            self.d.fail(f"parameter '{name}' has an unknown location in: {location}", file, pointer)
        if self.version == "2.0":
            schema_raw = {k: raw[k] for k in _SWAGGER_SCHEMA_KEYS if k in raw}
            schema = self.schema(schema_raw, file, None) if schema_raw else None
            fmt = raw.get("collectionFormat", "csv")
            style, explode = _COLLECTION_FORMATS.get(
                fmt, ("form" if location in ("query", "cookie") else "simple", False)
            )
            default, example = raw.get("default"), raw.get("x-example")
        else:
            if "schema" in raw:
                schema = self.schema(raw["schema"], file, join_pointer(pointer, "schema"))
            elif isinstance(content := raw.get("content"), dict) and content:
                media, value = next(iter(content.items()))
                schema = self.schema(
                    value.get("schema") if isinstance(value, dict) else None,
                    file,
                    join_pointer(pointer, "content", media, "schema"),
                )
            else:
                schema = None
            style = str(raw.get("style") or ("form" if location in ("query", "cookie") else "simple"))
            explode = bool(raw.get("explode", style == "form"))
            resolved = schema.resolved() if schema is not None else None
            default = resolved.get("default") if isinstance(resolved, dict) else None
            example = raw.get("example", resolved.get("example") if isinstance(resolved, dict) else None)
        return Parameter(
            name,
            location,
            bool(raw.get("required")) or location == "path",
            schema,
            str(style),
            explode,
            bool(raw.get("allowReserved")),
            str(raw.get("description") or ""),
            bool(raw.get("deprecated")),
            default,
            example,
        )

    # ---- operation

    def operation(
        self, path: str, method: str, raw: JsonObject, shared: list[_ParameterEntry], file: str, pointer: str
    ) -> Operation:
        own = self.parameters(raw.get("parameters"), file, join_pointer(pointer, "parameters"))
        merged: dict[tuple[str, str], _ParameterEntry] = {}
        for entry in shared + own:
            merged[(str(entry[1]["name"]), str(entry[1]["in"]))] = entry
        parameters = [e[0] for e in merged.values() if e[0] is not None]
        declared = {p.name for p in parameters if p.location == "path"}
        for name in re.findall(r"\{([^{}/]+)\}", path):  # a placeholder the description forgot
            if name not in declared:
                parameters.append(Parameter(name, "path", True, None, "simple", False))
        if self.version == "2.0":
            body = self.swagger_body(raw, [e for e in merged.values() if e[0] is None])
            responses = self.swagger_responses(raw, file, pointer)
        else:
            body = self.request_body(raw.get("requestBody"), file, join_pointer(pointer, "requestBody"))
            responses = self.responses(raw.get("responses"), file, join_pointer(pointer, "responses"))
        op_id = raw.get("operationId")
        return Operation(
            str(op_id) if op_id not in (None, "") else None,
            method.upper(),
            path,
            str(raw.get("summary") or ""),
            tuple(parameters),
            body,
            responses,
            source=self.d,
            pointer=pointer,
            tags=tuple(_names(raw.get("tags"))),
            deprecated=bool(raw.get("deprecated")),
            security=raw.get("security", self.d.document.get("security")),
        )

    def content(self, raw: JsonValue, file: str, pointer: str) -> dict[str, MediaType]:
        result = {}
        if raw is not None and not isinstance(raw, dict):
            self.d.fail("'content' must be a mapping of media types", file, pointer)
        for media, value in (raw or {}).items():
            value, vfile, vpointer = self.d.resolve(value, file, join_pointer(pointer, media))
            value = value if isinstance(value, dict) else {}
            result[str(media)] = MediaType(
                str(media),
                self.schema(value.get("schema"), vfile, join_pointer(vpointer, "schema")),
                value.get("example"),
                _mapping(value.get("examples")),
            )
        return result

    def request_body(self, raw: JsonValue, file: str, pointer: str) -> RequestBody | None:
        if raw is None:
            return None
        value, vfile, vpointer = self.d.resolve(raw, file, pointer)
        if not isinstance(value, dict):
            return None
        return RequestBody(
            bool(value.get("required")), self.content(value.get("content"), vfile, join_pointer(vpointer, "content"))
        )

    def responses(self, raw: JsonValue, file: str, pointer: str) -> dict[str, Response]:
        result = {}
        if raw is not None and not isinstance(raw, dict):
            self.d.fail("'responses' must be a mapping of statuses", file, pointer)
        for status, value in (raw or {}).items():
            if str(status).startswith("x-"):
                continue
            value, vfile, vpointer = self.d.resolve(value, file, join_pointer(pointer, status))
            value = value if isinstance(value, dict) else {}
            key = str(status).upper() if str(status).lower() != "default" else "default"
            result[key] = Response(
                key,
                str(value.get("description") or ""),
                self.content(value.get("content"), vfile, join_pointer(vpointer, "content")),
                _mapping(value.get("headers")),
            )
        return result

    # ---- Swagger 2.0

    def swagger_body(self, raw: JsonObject, entries: list[_ParameterEntry]) -> RequestBody | None:
        consumes = _names(raw.get("consumes")) or self.consumes
        for _, value, vfile, vpointer in entries:
            if value["in"] == "body":
                schema = self.schema(value.get("schema"), vfile, join_pointer(vpointer, "schema"))
                return RequestBody(bool(value.get("required")), {str(m): MediaType(str(m), schema) for m in consumes})
        form = [(value, vfile) for _, value, vfile, _ in entries if value["in"] == "formData"]
        if not form:
            return None
        properties: JsonObject = {str(v["name"]): {k: v[k] for k in _SWAGGER_SCHEMA_KEYS if k in v} for v, _ in form}
        required: JsonArray = [str(v["name"]) for v, _ in form if v.get("required")]
        schema_raw: JsonObject = {
            "type": "object",
            "properties": properties,
            **({"required": required} if required else {}),
        }
        media = "multipart/form-data" if "multipart/form-data" in consumes else "application/x-www-form-urlencoded"
        return RequestBody(bool(required), {media: MediaType(media, self.schema(schema_raw, form[0][1], None))})

    def swagger_responses(self, raw: JsonObject, file: str, pointer: str) -> dict[str, Response]:
        produces = _names(raw.get("produces")) or self.produces
        result = {}
        responses = raw.get("responses")
        if responses is not None and not isinstance(responses, dict):
            self.d.fail("'responses' must be a mapping of statuses", file, join_pointer(pointer, "responses"))
        for status, value in (responses or {}).items():
            if str(status).startswith("x-"):
                continue
            rpointer = join_pointer(pointer, "responses", status)
            value, vfile, vpointer = self.d.resolve(value, file, rpointer)
            value = value if isinstance(value, dict) else {}
            key = str(status).upper() if str(status).lower() != "default" else "default"
            content = {}
            if "schema" in value:
                schema = self.schema(value["schema"], vfile, join_pointer(vpointer, "schema"))
                examples = _mapping(value.get("examples"))
                content = {str(m): MediaType(str(m), schema, examples.get(m)) for m in produces}
            result[key] = Response(key, str(value.get("description") or ""), content, _mapping(value.get("headers")))
        return result


def _names(value: object) -> list[str]:
    """A list of names as written (`tags`, `consumes`); anything else counts as none."""
    return [str(v) for v in value] if isinstance(value, list) else []


def _mapping(value: JsonValue) -> JsonObject:
    return value if isinstance(value, dict) else {}


# Swagger 2.0 `collectionFormat` -> (style, explode); keyed by whatever the description wrote.
_COLLECTION_FORMATS: dict[object, tuple[str, bool]] = {
    "multi": ("form", True),
    "ssv": ("spaceDelimited", False),
    "tsv": ("tabDelimited", False),
    "pipes": ("pipeDelimited", False),
}

_SWAGGER_SCHEMA_KEYS = (
    "type",
    "format",
    "items",
    "enum",
    "default",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "multipleOf",
    "x-nullable",
)
