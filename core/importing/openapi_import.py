"""Reading an OpenAPI description (3.0, 3.1, Swagger 2.0, through the project's loader: the same
limits and `$ref` rules as a run) into one scenario per operation: an example request built from
its description (openapi_examples.py), its first 2xx status and `then: schema`.

Chaining (docs/import-har-openapi.md#openapi): a path parameter that names a field of the
response of an operation creating its resource (`POST /pets` answering `{"id": …}`, then
`/pets/{id}` or `/pets/{petId}`) is extracted from that response and used by the operations on
the resource; they form one feature sharing variables, in the order create, read, update,
delete. The other operations are isolated scenarios. An operation with an operationId is
written as an operation call; the credentials its `security` asks for are run variables."""

from __future__ import annotations

import json
import os
import re
from typing import Union, cast
from urllib.parse import quote, urlencode

from scenario_core.importing.model import (
    Body,
    Extract,
    Feature,
    FilePart,
    FormBody,
    ImportedFile,
    JsonBody,
    JsonValue,
    MultipartBody,
    Request,
    RunVariable,
    Scenario,
    TextBody,
)
from scenario_core.importing.naming import (
    Names,
    identifier,
    is_id_key,
    is_secret_field,
    singular,
    variable_name,
)
from scenario_core.importing.openapi_examples import Examples
from scenario_core.importing.writable import line_safe, name_safe, part_safe, title
from scenario_core.openapi.documents import Description
from scenario_core.openapi.loader import OpenApiError, load_description
from scenario_core.openapi.operations import MediaType, Operation
from scenario_core.support.digits import ascii_int
from scenario_core.support.header_names import is_header_name
from scenario_core.support.input_files import InputFileError
from scenario_core.support.secrets import is_secret_header

_JSON = re.compile(r"^application/(?:[\w.-]+\+)?json$")
# Names an operation call takes as its own children: a parameter of such a name is forced to its place.
_CALL_WORDS = frozenset({"headers", "query", "body", "form", "multipart", "bodyFile"})
_UNSAFE = re.compile(r"[\s\x00-\x1f\x7f\x85\u2028\u2029#]")  # percent-encoded in a written path
_RANK = {"GET": 1, "HEAD": 1, "PUT": 2, "PATCH": 2, "POST": 2, "DELETE": 3}


class OpenApiImportError(ValueError):
    """Why a description cannot be imported, in one line."""


def _scalar(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _success(operation: Operation) -> tuple[int | None, bool]:
    """The first 2xx status declared, and whether its response has a JSON schema to check."""
    codes = sorted(n for code in operation.responses if code.startswith("2") and (n := ascii_int(code, 3)) is not None)
    status = codes[0] if codes else (200 if "2XX" in operation.responses else None)
    response = operation.response_for(status) if status is not None else None
    schema = bool(response) and any(
        _JSON.match(media.split(";")[0].strip().lower()) and content.schema is not None
        for media, content in (response.content.items() if response else ())
    )
    return (status if codes else None), schema


def _response_fields(operation: Operation) -> set[str]:
    """The top-level property names of the first 2xx JSON response's schema."""
    status, _ = _success(operation)
    response = operation.response_for(status) if status else None
    if response is None:
        return set()
    for media, content in response.content.items():
        if _JSON.match(media.split(";")[0].strip().lower()) and content.schema is not None:
            return _properties(content.schema.description, content.schema.raw, content.schema.file, 0)
    return set()


def _properties(description: Description, raw: JsonValue, file: str, depth: int) -> set[str]:
    if depth > 8:
        return set()
    try:
        node, file, _ = description.resolve(raw, file, "")
    except OpenApiError:
        return set()
    if not isinstance(node, dict):
        return set()
    properties, all_of = node.get("properties"), node.get("allOf")
    found = set(properties) if isinstance(properties, dict) else set()
    for part in all_of if isinstance(all_of, list) else ():
        found |= _properties(description, part, file, depth + 1)
    return found


class _Reader:
    def __init__(self, description: Description, spec: str, written_to: str | None) -> None:
        self.description = description
        self.examples = Examples(description)
        self.names = Names()
        self.run_variables: list[RunVariable] = []
        self.credentials: dict[str, str] = {}  # scheme name → variable
        self.notes: list[str] = []
        folder = os.path.dirname(os.path.abspath(written_to)) if written_to else os.getcwd()
        self.openapi = os.path.relpath(os.path.abspath(spec), folder).replace(os.sep, "/")

    # -- chaining --------------------------------------------------------------------------
    @staticmethod
    def chains(operations: list[Operation]) -> dict[int, tuple[int, str, str]]:
        """consumer index → (creator index, path parameter, response field): for each operation,
        its deepest path parameter that a POST to the collection above it answers with."""
        links: dict[int, tuple[int, str, str]] = {}
        posts: dict[str, int] = {}
        for j, op in enumerate(operations):
            if op.method == "POST":
                posts.setdefault(op.path.rstrip("/"), j)
        for i, consumer in enumerate(operations):
            segments = consumer.path.strip("/").split("/")
            for depth in range(len(segments) - 1, 0, -1):
                match = re.fullmatch(r"\{([^{}]+)\}", segments[depth])
                if not match:
                    continue
                collection = "/" + "/".join(segments[:depth])
                creator = posts.get(collection)
                if creator is None:
                    continue
                field = _field_for(match.group(1), segments[depth - 1], _response_fields(operations[creator]))
                if field is not None:
                    links[i] = (creator, match.group(1), field)
                    break
        return links

    # -- requests --------------------------------------------------------------------------
    def security(self, operation: Operation) -> list[tuple[str, str, str]]:
        """(place, name, value) for the credentials the operation's first security requirement asks."""
        requirements = operation.security
        if not isinstance(requirements, list) or not requirements or not isinstance(requirements[0], dict):
            return []
        components = self.description.document.get("components")
        schemes = (components.get("securitySchemes") if isinstance(components, dict) else None) or (
            self.description.document.get("securityDefinitions") or {}
        )
        out = []
        for name in requirements[0]:
            scheme = schemes.get(name) if isinstance(schemes, dict) else None
            if not isinstance(scheme, dict):
                continue
            kind, how = str(scheme.get("type", "")).lower(), str(scheme.get("scheme", "")).lower()
            if kind == "apikey" and isinstance(scheme.get("name"), str):
                place = {"header": "header", "query": "query", "cookie": "cookie"}.get(str(scheme.get("in")), "header")
                variable = self.variable(name, "apiKey", f"the API key {scheme['name']} ({place}) of {name}")
                out.append((place, str(scheme["name"]), variable))
            elif kind == "basic" or (kind == "http" and how == "basic"):
                variable = self.variable(name, "basicAuth", "the Basic credentials (base64 of user:password)")
                out.append(("header", "Authorization", f"Basic {variable}"))
            elif kind in ("http", "oauth2", "openidconnect"):
                variable = self.variable(name, "token", f"the bearer token of {name}")
                out.append(("header", "Authorization", f"Bearer {variable}"))
        return out

    def variable(self, scheme: str, wanted: str, why: str) -> str:
        if scheme not in self.credentials:
            self.credentials[scheme] = self.names.unique(wanted)
            self.run_variables.append(RunVariable(self.credentials[scheme], why))
        return "{{" + self.credentials[scheme] + "}}"

    def request(self, operation: Operation, chained: dict[str, str]) -> Request:
        path = operation.path
        parameters: list[tuple[str, str]] = []
        query: list[str] = []
        headers: list[tuple[str, str]] = []
        cookies: list[str] = []
        covered: set[tuple[str, str]] = set()  # (place, lower-case name) a credential fills
        for place, name, value in self.security(operation):
            covered.add((place, name.lower()))
            if place == "header":
                headers.append((name, value))
            elif place == "query":
                query.append(f"{quote(name, safe='')}={value}")
                parameters.append((f"query_{name}", value))
            else:
                cookies.append(f"{name}={value}")
        for parameter in operation.parameters:
            location, name = parameter.location, parameter.name
            if location == "path":
                value = chained.get(name) or _scalar(self.examples.of_parameter(parameter))
                path = path.replace("{" + name + "}", value if value.startswith("{{") else quote(value, safe=""))
            elif not parameter.required or (location, name.lower()) in covered:
                continue
            elif location in ("header", "cookie") and not (is_header_name(name) and name_safe(name)):
                self.notes.append(f"{operation.label}: its {location} parameter {name!r} is left out: not a valid name")
                continue
            else:
                secret = is_secret_header(name) if location == "header" else is_secret_field(name)
                if secret:  # a credential the description names: never its example in clear
                    why = f"the {name} {location} parameter of {operation.label}"
                    value = self.variable(f"{location} {name}", identifier(name), why)
                else:
                    value = _scalar(self.examples.of_parameter(parameter))
                if location in ("header", "cookie") and (not line_safe(value) or ";" in value and location == "cookie"):
                    self.notes.append(
                        f"{operation.label}: its {location} {name} is left out: its example cannot be written"
                    )
                    continue
                if location == "query":
                    query.append(f"{quote(name, safe='')}={value if secret else quote(value, safe='')}")
                elif location == "header":
                    headers.append((name, value))
                elif location == "cookie":
                    cookies.append(f"{name}={value}")
            if name in _CALL_WORDS and location == "query":
                name = f"query_{name}"
            if location in ("path", "query") and re.fullmatch(r"[A-Za-z_][\w.-]*", name):
                # a call's child value is JSON when it is not a plain word: quoted, escaped
                parameters.append((name, value if line_safe(value) else json.dumps(value)))
        if cookies:
            headers.append(("Cookie", "; ".join(cookies)))
        body, content_type = self.body(operation)
        if content_type:
            headers.append(("Content-Type", content_type))
        status, schema = _success(operation)
        callable_id = operation.id if operation.id and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.-]*", operation.id) else None
        return Request(
            method=operation.method,
            path=_UNSAFE.sub(lambda m: quote(m.group()), path) + ("?" + "&".join(query) if query else ""),
            headers=tuple(headers),
            body=body,
            status=status,
            schema=schema and callable_id is not None,  # `then: schema` needs an operation call
            operation=callable_id,
            parameters=tuple(parameters),
        )

    def body(self, operation: Operation) -> tuple[Body | None, str | None]:
        """The example body, and a Content-Type to send when the body form does not set it."""
        request_body = operation.request_body
        media = request_body.preferred() if request_body else None
        if media is None:
            return None, None
        kind = media.media_type.split(";")[0].strip().lower()
        value = self.examples.of_media(media, all_properties=True)
        if _JSON.match(kind):
            # The description's example or one built from its schema: parsed JSON or YAML.
            return JsonBody(cast(JsonValue, value)), None if kind == "application/json" else media.media_type
        if kind == "application/x-www-form-urlencoded" and isinstance(value, dict):
            fields = tuple((k, _scalar(v)) for k, v in value.items() if v is not None)
            if not fields:
                return None, None
            if all(name_safe(k) and line_safe(v) for k, v in fields):
                return FormBody(fields), None
            return TextBody(urlencode(fields)), media.media_type  # form-encoded as a `form:` would send it
        if kind == "multipart/form-data" and isinstance(value, dict):
            parts: list[tuple[str, Union[str, FilePart]]] = []
            for name, part in value.items():
                if part == "" and _is_binary(media, name) and name_safe(name) and re.fullmatch(r"[\w.-]+", name):
                    parts.append((name, FilePart(f"{name}.bin")))
                    self.notes.append(
                        f"{operation.label}: put a file {name}.bin next to the scenario for its part {name!r}"
                    )
                elif part is not None and name_safe(name) and part_safe(_scalar(part)):
                    parts.append((name, _scalar(part)))
            return (MultipartBody(tuple(parts)), None) if parts else (None, None)
        if isinstance(value, str) and value and '"""' not in value and "\r" not in value:
            return TextBody(value), media.media_type
        return None, None


def _is_binary(media: MediaType, name: str) -> bool:
    raw = media.schema.resolved() if media.schema is not None else None
    properties = raw.get("properties") if isinstance(raw, dict) else None
    sub = properties.get(name) if isinstance(properties, dict) else None
    return isinstance(sub, dict) and sub.get("format") == "binary"


def _field_for(parameter: str, collection: str, fields: set[str]) -> str | None:
    """The response field a path parameter names: itself, or `id` for `{id}`/`{petId}`/`{pet_id}`
    under `/pets` (any id-named parameter of the collection's resource)."""
    if parameter in fields:
        return parameter
    lowered = {f.lower(): f for f in fields}
    if parameter.lower() in lowered:
        return lowered[parameter.lower()]
    resource = singular(collection).lower().replace("-", "").replace("_", "")
    bare = parameter.lower().replace("-", "").replace("_", "")
    if "id" in fields and (bare in ("id", resource + "id") or (is_id_key(parameter) and bare.startswith(resource))):
        return "id"
    return None


def read_openapi(spec: str, written_to: str | None = None) -> ImportedFile:
    """One scenario per operation of the description at `spec` (chained operations as features),
    naming the description relative to `written_to` (the file written; the cwd when None).
    Raises OpenApiImportError."""
    try:
        description = load_description(spec)
        operations = list(description.operations)
    except (OpenApiError, InputFileError) as error:
        text = str(error)
        raise OpenApiImportError(text if text.startswith(spec) else f"{spec}: {text}") from None
    except OSError as error:
        raise OpenApiImportError(f"{spec}: cannot be read: {error.strerror or error}") from None
    if not operations:
        raise OpenApiImportError(f"{spec}: the description has no operations to import")
    reader = _Reader(description, spec, written_to)
    try:
        items = _items(reader, operations, reader.chains(operations))
    except OpenApiError as error:  # a $ref found broken only while building an example
        text = str(error)
        raise OpenApiImportError(text if text.startswith(spec) else f"{spec}: {text}") from None
    server = description.server_url()
    base_url = None
    if not server or not re.match(r"https?://[^/]", server):
        reader.notes.append(f"{spec}: no absolute server URL in the description; give one with --base-url")
    return ImportedFile(
        items=tuple(items),
        base_url=base_url,
        openapi=reader.openapi,
        run_variables=tuple(reader.run_variables),
        notes=tuple(dict.fromkeys(reader.notes)),
        source=f"OpenAPI {os.path.basename(spec)}",
    )


def _name(operation: Operation) -> str:
    return title(operation.id or "", "") or title(f"{operation.method} {operation.path}", operation.method)


def _with_extracts(request: Request, extracts: tuple[Extract, ...]) -> Request:
    from dataclasses import replace

    return replace(request, extracts=extracts)


def _root(i: int, links: dict[int, tuple[int, str, str]]) -> int:
    while i in links:  # a creator's path is shorter than its consumers': no loop
        i = links[i][0]
    return i


def _items(
    reader: _Reader, operations: list[Operation], links: dict[int, tuple[int, str, str]]
) -> list[Scenario | Feature]:
    """Isolated scenarios, and a feature per resource whose operations chain, where its
    creating operation stands in the description."""
    creators = {creator for creator, _, _ in links.values()}
    variables: dict[int, str] = {}  # creator → the variable its response gives
    for consumer in sorted(links):
        creator, _, field = links[consumer]
        if creator not in variables:
            wanted = variable_name(field, operations[creator].path) if field == "id" else field
            variables[creator] = reader.names.unique(wanted)

    def chained(i: int) -> dict[str, str]:
        values: dict[str, str] = {}
        while i in links:
            creator, parameter, _ = links[i]
            values.setdefault(parameter, "{{" + variables[creator] + "}}")
            i = creator
        return values

    def scenario(i: int) -> Scenario:
        request = reader.request(operations[i], chained(i))
        if i in variables:
            field = next(f for c, (k, _, f) in sorted(links.items()) if k == i)
            request = _with_extracts(request, (Extract(variables[i], "json", f"$.{field}"),))
        tags = tuple(re.sub(r"[^\w.-]+", "_", tag) for tag in operations[i].tags if tag)  # `--tags pets` picks them
        return Scenario(_name(operations[i]), (request,), tags=tags)

    def order(i: int) -> tuple[int, int, int]:
        rank = 0 if i in creators else _RANK.get(operations[i].method, 2)
        depth = operations[i].path.count("/")
        return rank, -depth if rank == 3 else depth, i

    items: list[Scenario | Feature] = []
    for i, operation in enumerate(operations):
        if i in links:
            continue  # in its resource's feature
        if i not in creators:
            items.append(scenario(i))
            continue
        members = sorted([i] + [j for j in links if _root(j, links) == i], key=order)
        resource = operation.path.strip("/").rsplit("/", 1)[-1] or "resource"
        items.append(
            Feature(title(f"{resource}: create, read, update, delete", "resource"), tuple(scenario(j) for j in members))
        )
    return items
