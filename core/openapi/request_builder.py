"""Building the request of `call ^op` from its children: pure data in, pure data out, no HTTP.

Design
------
* Input: an `Operation` (core/operations.py) and the call's children as (NAME, value) pairs,
  values already interpolated and JSON-typed (str, int, float, bool, None, list, dict).
* Placement (semantics.md §5): `query_X` / `header_X` (`Header_X`) force a place; otherwise a
  child goes where the operation declares a parameter of that name — path, then query, header,
  cookie when one name is declared in several places (header names case-insensitively). A child
  the operation does not declare is an error naming the declared ones; a missing required path
  parameter is an error (the URL cannot be built). A missing required query/header/cookie
  parameter is only a warning in `RequestPlan.warnings`: auto tests leave them out on purpose.
* Serialisation follows OpenAPI's style/explode: path `simple` (`1,2`), `label` (`.1.2`),
  `matrix` (`;id=1,2`); query `form` (explode → `a=1&a=2`, else `a=1,2`), `spaceDelimited`,
  `pipeDelimited`, `deepObject` (`a[k]=v`); header `simple`; cookie `form` (one `Cookie` header).
  Each value is percent-encoded for where it goes: a path segment encodes everything but RFC 3986
  unreserved characters; a query value the same (spaces as %20), delimiters stay literal;
  `allowReserved` keeps reserved characters in query values. Header values are sent as written
  and may not contain CR, LF or NUL.
* Bodies: a raw body (text/bytes, sent as written) or a structured body — (name, value) entries,
  a nested object being a Mapping or a sequence of (name, value) tuples — merged deeply over the
  request schema's defaults (berrycrush.md §3.2: each property gets `default`, else `example`,
  else by type: string "" (date/date-time/time now, email no-reply@berrycrush.org, uuid random,
  uri http://localhost), number 0, boolean false, array [], object its own defaults). Two steps
  beyond BerryCrush, so that the defaults satisfy the schema: the first `enum` value is taken
  before falling back on the type, and numbers and string lengths are moved inside their
  bounds (`minimum: 1` gives 1, `minLength: 3` gives "xxx"). Precedence raw > structured > json.
  `Content-Type` comes from the operation's request body (application/json first) unless a
  header gives one.
* Output: `RequestPlan` — method, path with query (relative to the base URL), headers, body
  bytes, content type, and `placements` (which child went where, encoded how) for the TUI.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Mapping, Sequence
from urllib.parse import quote

from scenario_core.openapi.documents import OpenApiError
from scenario_core.openapi.operation_lookup import closest_name
from scenario_core.openapi.operations import JSON_MEDIA, Operation, Parameter, Schema

MAX_DEFAULT_DEPTH = 8


class RequestBuildError(OpenApiError):
    """A child that cannot be placed, or a request that cannot be built; `child` names it."""

    def __init__(self, message: str, child: str | None = None, declared: Sequence[str] = ()):
        super().__init__(message)
        self.child, self.declared = child, tuple(declared)


@dataclass(frozen=True)
class Placement:
    child: str  # the child as written: `petId`, `query_limit`, `header_X-Trace`
    location: str  # path, query, header, cookie
    name: str  # the parameter's name
    value: Any  # the value given
    sent: str  # how it appears in the request: `1%2C2`, `limit=5`, `X-Trace: abc`
    declared: bool  # whether the operation declares it (a forced query_/header_ may not)


@dataclass(frozen=True)
class RequestPlan:
    method: str
    path: str  # path with query, relative to the base URL: `/pets/1?limit=2`
    headers: tuple[tuple[str, str], ...]
    body: bytes | None
    content_type: str | None
    placements: tuple[Placement, ...]
    operation: Operation = field(repr=False)
    warnings: tuple[str, ...] = ()
    json_body: Any = None  # the structured/JSON body before serialisation, if any

    def url(self, base: str) -> str:
        """base minus trailing `/` + path."""
        return base.rstrip("/") + self.path

    @property
    def body_text(self) -> str | None:
        return None if self.body is None else self.body.decode("utf-8", "replace")


_UNSET = object()


def build_request(
    operation: Operation,
    children: Sequence[tuple[str, Any]] = (),
    *,
    body: str | bytes | None = None,
    structured_body: Any = None,
    json_body: Any = _UNSET,
    headers: Sequence[tuple[str, str]] = (),
    check_required: bool = True,
    now: datetime | None = None,
) -> RequestPlan:
    """The request for `call ^op` with these children. Raises RequestBuildError.

    `body`: raw body sent as written; `structured_body`: entries merged over the schema's defaults;
    `json_body`: a JSON value sent as is (auto tests). `headers` come first (e.g. `header.*`
    parameters); header children are added after them (a child replaces a same-named one)."""
    path_values: dict[str, str] = {}
    query: list[str] = []
    header_list: list[tuple[str, str]] = list(headers)
    cookies: list[str] = []
    placements: list[Placement] = []
    warnings: list[str] = []
    given: set[tuple[str, str]] = set()
    for child, value in children:
        location, name, parameter = _place(operation, child)
        given.add(
            (
                location,
                parameter.name.lower()
                if parameter and location == "header"
                else (parameter.name if parameter else name),
            )
        )
        if parameter is not None:
            name = parameter.name
        style, explode, reserved = _style(parameter, location)
        if location == "path":
            sent = _path_value(name, value, style, explode)
            path_values[name] = sent
        elif location == "query":
            sent = _query_value(name, value, style, explode, reserved)
            if sent:
                query.append(sent)
        elif location == "header":
            sent = _plain(value, explode)
            if any(c in sent for c in "\r\n\0"):
                raise RequestBuildError(f"header {name} (child '{child}') contains a line break or NUL", child)
            header_list = [(h, v) for h, v in header_list if h.lower() != name.lower()]
            header_list.append((name, sent))
            sent = f"{name}: {sent}"
        else:
            sent = _cookie_value(name, value, explode)
            cookies.append(sent)
        placements.append(Placement(child, location, name, value, sent, parameter is not None))
    for parameter in operation.parameters:
        key = (parameter.location, parameter.name.lower() if parameter.location == "header" else parameter.name)
        if not parameter.required or key in given:
            continue
        if parameter.location == "path":
            if check_required:
                raise RequestBuildError(
                    f"{operation.label} needs path parameter '{parameter.name}': add a child "
                    f"'{parameter.name}: VALUE' under the call",
                    parameter.name,
                    _declared(operation),
                )
        else:
            warnings.append(f"required {parameter.location} parameter '{parameter.name}' is not given")
    path = _fill_path(operation.path, path_values)
    if query:
        path += "?" + "&".join(query)
    if cookies:
        header_list.append(("Cookie", "; ".join(cookies)))

    payload, json_value = _body(operation, body, structured_body, json_body, warnings, now)
    content_type = next((v for h, v in header_list if h.lower() == "content-type"), None)
    if payload is not None and content_type is None:
        content_type = _request_media(operation, json_value is not None)
        if content_type:
            header_list.append(("Content-Type", content_type))
    return RequestPlan(
        operation.method,
        path,
        tuple(header_list),
        payload,
        content_type,
        tuple(placements),
        operation,
        tuple(warnings),
        json_value,
    )


def _declared(operation: Operation) -> list[str]:
    return [f"{p.name} ({p.location})" for p in operation.parameters]


def _place(operation: Operation, child: str) -> tuple[str, str, Parameter | None]:
    for prefix, location in (("query_", "query"), ("header_", "header"), ("Header_", "header")):
        if child.startswith(prefix) and len(child) > len(prefix):
            name = child[len(prefix) :]
            return location, name, operation.parameter(name, location)
    for location in ("path", "query", "header", "cookie"):
        parameter = operation.parameter(child, location)
        if parameter is not None:
            return location, parameter.name, parameter
    declared = _declared(operation)
    suggestion = closest_name(child, [p.name for p in operation.parameters])
    hint = f"; did you mean '{suggestion}'?" if suggestion else ""
    listing = ", ".join(declared) if declared else "none"
    raise RequestBuildError(
        f"'{child}' is not a parameter of {operation.label}{hint} (it declares: {listing}; "
        f"use query_{child} or header_{child} to send it anyway)",
        child,
        declared,
    )


def _style(parameter: Parameter | None, location: str) -> tuple[str, bool, bool]:
    if parameter is None:
        return ("form" if location in ("query", "cookie") else "simple"), location in ("query", "cookie"), False
    return parameter.style, parameter.explode, parameter.allow_reserved


# ---------------------------------------------------------------------------- serialisation


def scalar_text(value: Any) -> str:
    """A JSON scalar as text: true/false/null, numbers as JSON writes them, strings as they are."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _enc(value: Any, reserved: bool = False) -> str:
    return quote(scalar_text(value), safe="!$&'()*+,;=:@/?" if reserved else "")


def _pairs(value: Mapping) -> list[tuple[str, Any]]:
    return [(str(k), v) for k, v in value.items()]


def _path_value(name: str, value: Any, style: str, explode: bool) -> str:
    if isinstance(value, Mapping):
        pairs = _pairs(value)
        if style == "matrix":
            if explode:
                return "".join(f";{_enc(k)}={_enc(v)}" for k, v in pairs)
            return f";{_enc(name)}=" + ",".join(f"{_enc(k)},{_enc(v)}" for k, v in pairs)
        sep, kv = ("." if style == "label" else ","), ("=" if explode else ",")
        inner = (sep if explode else ",").join(f"{_enc(k)}{kv}{_enc(v)}" for k, v in pairs)
        return ("." if style == "label" else "") + inner
    if isinstance(value, list):
        if style == "matrix":
            if explode:
                return "".join(f";{_enc(name)}={_enc(v)}" for v in value)
            return f";{_enc(name)}=" + ",".join(_enc(v) for v in value)
        if style == "label":
            return "." + ("." if explode else ",").join(_enc(v) for v in value)
        return ",".join(_enc(v) for v in value)
    if style == "matrix":
        return f";{_enc(name)}={_enc(value)}"
    if style == "label":
        return "." + _enc(value)
    return _enc(value)


def _query_value(name: str, value: Any, style: str, explode: bool, reserved: bool) -> str:
    key = _enc(name)
    if isinstance(value, Mapping):
        pairs = _pairs(value)
        if style == "deepObject":
            return "&".join(f"{key}%5B{_enc(k)}%5D={_enc(v, reserved)}" for k, v in pairs)
        if explode:
            return "&".join(f"{_enc(k)}={_enc(v, reserved)}" for k, v in pairs)
        return f"{key}=" + ",".join(f"{_enc(k)},{_enc(v, reserved)}" for k, v in pairs)
    if isinstance(value, list):
        if not value:
            return ""
        if style == "form" and explode:
            return "&".join(f"{key}={_enc(v, reserved)}" for v in value)
        sep = {"spaceDelimited": "%20", "pipeDelimited": "|", "tabDelimited": "%09"}.get(style, ",")
        return f"{key}=" + sep.join(_enc(v, reserved) for v in value)
    return f"{key}={_enc(value, reserved)}"


def _plain(value: Any, explode: bool) -> str:
    """Header `simple` style, not percent-encoded."""
    if isinstance(value, Mapping):
        return ",".join(f"{k}={scalar_text(v)}" if explode else f"{k},{scalar_text(v)}" for k, v in _pairs(value))
    if isinstance(value, list):
        return ",".join(scalar_text(v) for v in value)
    return scalar_text(value)


def _cookie_value(name: str, value: Any, explode: bool) -> str:
    if isinstance(value, Mapping):
        if explode:
            return "; ".join(f"{_enc(k)}={_enc(v)}" for k, v in _pairs(value))
        return f"{_enc(name)}=" + ",".join(f"{_enc(k)},{_enc(v)}" for k, v in _pairs(value))
    if isinstance(value, list):
        if explode:
            return "; ".join(f"{_enc(name)}={_enc(v)}" for v in value)
        return f"{_enc(name)}=" + ",".join(_enc(v) for v in value)
    return f"{_enc(name)}={_enc(value)}"


def _fill_path(template: str, values: Mapping[str, str]) -> str:
    out, i = [], 0
    while i < len(template):
        start = template.find("{", i)
        if start < 0:
            out.append(template[i:])
            break
        end = template.find("}", start)
        if end < 0:
            out.append(template[i:])
            break
        out.append(template[i:start])
        name = template[start + 1 : end]
        out.append(values.get(name, template[start : end + 1]))
        i = end + 1
    path = "".join(out)
    return path if path.startswith("/") else "/" + path


# ------------------------------------------------------------------------------------- bodies


def _request_media(operation: Operation, is_json: bool) -> str | None:
    body = operation.request_body
    if body is not None and body.content:
        media = body.preferred()
        return media.media_type if media else None
    return JSON_MEDIA if is_json else None


def _body(
    operation: Operation,
    raw: str | bytes | None,
    structured: Any,
    json_value: Any,
    warnings: list[str],
    now: datetime | None,
) -> tuple[bytes | None, Any]:
    if raw is not None:
        if structured is not None:
            warnings.append("both a raw body and a structured body: the raw body is sent")
        return (raw.encode("utf-8") if isinstance(raw, str) else bytes(raw)), None
    if structured is not None:
        merged = merge_body(request_defaults(operation, now=now), structured)
        return _json_bytes(merged), merged
    if json_value is not _UNSET:
        return _json_bytes(json_value), json_value
    return None, None


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def structured_to_json(entries: Any) -> Any:
    """Structured-body entries to a JSON value: a Mapping, or a sequence of (name, value) tuples,
    is an object (recursively); anything else is kept."""
    if isinstance(entries, Mapping):
        return {str(k): structured_to_json(v) for k, v in entries.items()}
    if isinstance(entries, (list, tuple)) and entries and all(isinstance(e, tuple) and len(e) == 2 for e in entries):
        return {str(k): structured_to_json(v) for k, v in entries}
    if isinstance(entries, list):
        return [structured_to_json(e) if isinstance(e, Mapping) else e for e in entries]
    return entries


def merge_body(defaults: Any, entries: Any) -> Any:
    """Written entries over schema defaults; objects merge deeply, anything else replaces."""
    written = {} if isinstance(entries, (list, tuple)) and not entries else structured_to_json(entries)
    return _deep_merge(defaults, written)


def _deep_merge(base: Any, over: Any) -> Any:
    if isinstance(base, dict) and isinstance(over, dict):
        merged = dict(base)
        for key, value in over.items():
            merged[key] = _deep_merge(base[key], value) if key in base else value
        return merged
    return over


def request_defaults(operation: Operation, media_type: str | None = None, now: datetime | None = None) -> Any:
    """The request body the schema alone gives (berrycrush.md §3.2); {} when there is no schema."""
    body = operation.request_body
    if body is None or not body.content:
        return {}
    media = body.content.get(media_type) if media_type else body.preferred()
    if media is None or media.schema is None:
        return {}
    return schema_defaults(media.schema, now=now)


def schema_defaults(schema: Schema, now: datetime | None = None) -> Any:
    """Default value of a schema: `default`, else `example`, else first enum value, else by type."""
    return _Defaults(schema, now or datetime.now(timezone.utc)).value(
        schema.raw, schema.file, schema.pointer or "", 0, ()
    )


def _number_within(node: Mapping, kind: str) -> int | float:
    """0, or the nearest value the bounds allow (a 3.0 boolean or a 3.1 numeric exclusive bound)."""
    step = 1 if kind == "integer" else 0.5
    value: int | float = 0
    low, high = node.get("minimum"), node.get("maximum")
    low_x, high_x = node.get("exclusiveMinimum"), node.get("exclusiveMaximum")
    if isinstance(low_x, (int, float)) and not isinstance(low_x, bool):
        low, low_x = low_x, True
    if isinstance(high_x, (int, float)) and not isinstance(high_x, bool):
        high, high_x = high_x, True
    if (
        isinstance(low, (int, float))
        and not isinstance(low, bool)
        and (value < low or (low_x is True and value <= low))
    ):
        value = low + step if low_x is True else low
    elif (
        isinstance(high, (int, float))
        and not isinstance(high, bool)
        and (value > high or (high_x is True and value >= high))
    ):
        value = high - step if high_x is True else high
    return int(value) if kind == "integer" and float(value).is_integer() else value


class _Defaults:
    def __init__(self, schema: Schema, now: datetime):
        self.d = schema.description
        self.now = now

    def value(self, raw: Any, file: str, pointer: str, depth: int, seen: tuple) -> Any:
        if isinstance(raw, dict) and "$ref" in raw:
            node, file, pointer = self.d.resolve(raw, file, pointer)
            if (file, pointer) in seen or depth > MAX_DEFAULT_DEPTH:
                return None  # a recursive schema: stop where it repeats
            seen = seen + ((file, pointer),)
        else:
            node = raw
        if not isinstance(node, dict):
            return None
        for key in ("default", "example"):
            if key in node:
                return node[key]
        if node.get("examples") and isinstance(node["examples"], list):
            return node["examples"][0]
        if isinstance(node.get("enum"), list) and node["enum"]:
            return node["enum"][0]
        if "const" in node:
            return node["const"]
        if isinstance(node.get("allOf"), list):
            merged: Any = {}
            for i, part in enumerate(node["allOf"]):
                merged = _deep_merge(merged, self.value(part, file, f"{pointer}/allOf/{i}", depth + 1, seen))
            if isinstance(merged, dict) and isinstance(node.get("properties"), dict):
                merged = _deep_merge(merged, self.object(node, file, pointer, depth, seen))
            return merged
        for key in ("oneOf", "anyOf"):
            if isinstance(node.get(key), list) and node[key]:
                return self.value(node[key][0], file, f"{pointer}/{key}/0", depth + 1, seen)
        kind = node.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), None)
        if kind == "object" or (kind is None and isinstance(node.get("properties"), dict)):
            return self.object(node, file, pointer, depth, seen)
        if kind == "array":
            return []
        if kind in ("integer", "number"):
            return _number_within(node, kind)
        if kind == "boolean":
            return False
        if kind == "string":
            text = self.string(node.get("format"))
            least = node.get("minLength")
            return text + "x" * (least - len(text)) if isinstance(least, int) and len(text) < least else text
        return None

    def object(self, node: dict, file: str, pointer: str, depth: int, seen: tuple) -> dict:
        if depth > MAX_DEFAULT_DEPTH:
            return {}
        props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
        return {
            name: self.value(
                sub, file, f"{pointer}/properties/{name.replace('~', '~0').replace('/', '~1')}", depth + 1, seen
            )
            for name, sub in props.items()
        }

    def string(self, fmt: Any) -> str:
        if fmt == "date-time":
            return self.now.isoformat().replace("+00:00", "Z")
        if fmt == "date":
            return self.now.date().isoformat()
        if fmt == "time":
            return self.now.time().replace(microsecond=0).isoformat()
        if fmt == "email":
            return "no-reply@berrycrush.org"
        if fmt == "uuid":
            return str(uuid.uuid4())
        if fmt in ("uri", "url"):
            return "http://localhost"
        return ""
