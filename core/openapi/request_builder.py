"""Building the request of `call ^op` from its children: pure data in, pure data out, no HTTP.

Design
------
* Input: an `Operation` (operations.py) and the call's children as (NAME, value) pairs,
  values already interpolated and JSON-typed (str, int, float, bool, None, list, dict).
* Placement (docs/spec/berrycrush.md#operation-calls): `query_X` / `header_X` (`Header_X`) force a place; otherwise a
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
  request schema's defaults (body_defaults.py). Precedence raw > structured > json.
  `Content-Type` comes from the operation's request body (application/json first) unless a
  header gives one.
* Output: `RequestPlan` — method, path with query (relative to the base URL), headers, body
  bytes, content type, and `placements` (which child went where, encoded how) for the TUI.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Mapping, Sequence
from urllib.parse import quote

from scenario_core.openapi.body_defaults import merge_body, request_defaults
from scenario_core.openapi.documents import OpenApiError
from scenario_core.openapi.operation_lookup import closest_name
from scenario_core.openapi.operations import JSON_MEDIA, Operation, Parameter
from scenario_core.support.records import dataclass, field


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
    value: object  # the value given
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
    json_body: object = None  # the structured/JSON body before serialisation, if any

    def url(self, base: str) -> str:
        """base minus trailing `/` + path."""
        return base.rstrip("/") + self.path

    @property
    def body_text(self) -> str | None:
        return None if self.body is None else self.body.decode("utf-8", "replace")


_UNSET = object()


def build_request(
    operation: Operation,
    children: Sequence[tuple[str, object]] = (),
    *,
    body: str | bytes | None = None,
    structured_body: object = None,
    json_body: object = _UNSET,
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


def scalar_text(value: object) -> str:
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


def _enc(value: object, reserved: bool = False) -> str:
    return quote(scalar_text(value), safe="!$&'()*+,;=:@/?" if reserved else "")


def _pairs(value: Mapping[object, object]) -> list[tuple[str, object]]:
    return [(str(k), v) for k, v in value.items()]


def _path_value(name: str, value: object, style: str, explode: bool) -> str:
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


def _query_value(name: str, value: object, style: str, explode: bool, reserved: bool) -> str:
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


def _plain(value: object, explode: bool) -> str:
    """Header `simple` style, not percent-encoded."""
    if isinstance(value, Mapping):
        return ",".join(f"{k}={scalar_text(v)}" if explode else f"{k},{scalar_text(v)}" for k, v in _pairs(value))
    if isinstance(value, list):
        return ",".join(scalar_text(v) for v in value)
    return scalar_text(value)


def _cookie_value(name: str, value: object, explode: bool) -> str:
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
    structured: object,
    json_value: object,
    warnings: list[str],
    now: datetime | None,
) -> tuple[bytes | None, object]:
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


def _json_bytes(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
