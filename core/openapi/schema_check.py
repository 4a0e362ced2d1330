"""Checking a response against the called operation's schema (`assert schema`, `then: schema`,
autoAssertions).

Design
------
* **One validator, JSON Schema 2020-12** (jsonschema's `Draft202012Validator`, with a format
  checker). Each dialect is first converted to 2020-12 by its own rules:
  - OpenAPI 3.0 / Swagger 2.0: `nullable: true` (`x-nullable`) adds `"null"` to `type` (and to
    `enum`), or wraps a typeless composition in `anyOf: [{type: null}, …]`; boolean
    `exclusiveMinimum`/`exclusiveMaximum` become the numeric 2020-12 form; siblings of `$ref` are
    ignored (3.0 rule); a Swagger `items` list is `prefixItems`; `type: file` is dropped.
  - OpenAPI 3.1: already 2020-12 — type arrays, `const`, `prefixItems`, `if/then/else`,
    `dependentRequired`, `$ref` with siblings all kept.
  - Annotation-only keywords (`example`, `discriminator`, `readOnly`, `xml`, …) and identifiers
    (`$id`, `$anchor`, `$schema`) are dropped; `$dynamicRef` is not supported.
  We do the conversion ourselves rather than with openapi-schema-validator's OAS30Validator
  because we also bundle: every `$ref` (to any file) is inlined, converted once and shared, and a
  recursive one becomes an entry of one `$defs`, so each compiled schema is self-contained (no
  registry lookups at validation time), and strict mode can be applied per use site.
* **strict** (`strictSchemaValidation`) closes objects: an object schema that declares
  `properties`, `patternProperties` or a composition (`allOf`/`anyOf`/`oneOf`) and sets neither
  `additionalProperties` nor `unevaluatedProperties` gets `unevaluatedProperties: false` — at the
  places where an instance is a value of its own (root, property, item), never inside an `allOf`
  branch, so `Pet = allOf[NewPet, {id}]` accepts `id` and `name` but nothing else. A schema with
  no declared properties (a free-form map) stays open.
* **Compiled once**: validators are cached on the Description per (schema, strict), so a run of
  600 `assert schema` checks compiles one validator.
* **Messages**: `$.tags[2]: expected string, got 7` — the JSON path of the offending value, what
  the schema wanted and what came; at most 5 problems, then `… and N more`.
* **Which schema**: the response for the status (exact, `2XX`, `default`), then the media type
  matching the response's actual Content-Type (exact, `type/*`, `*/*`; parameters ignored).
"""

from __future__ import annotations

import ast
import calendar
import json
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError

from scenario_core.openapi.operations import MediaType, Operation, Response, Schema

MAX_SHOWN = 5

# ------------------------------------------------------------------------------ format checker

FORMATS = FormatChecker()
_DATE_TIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:[^\s]*")
_HOSTNAME = re.compile(
    r"(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9\-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9\-]{0,61}[A-Za-z0-9])?)*\.?"
)


@FORMATS.checks("date-time")
def _date_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    m = _DATE_TIME.fullmatch(value)
    if not m:
        return False
    year, month, day, hour, minute, second = (int(m.group(i)) for i in range(1, 7))
    if not (1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]):
        return False
    if hour > 23 or minute > 59 or second > 60:
        return False
    return m.group(9) is None or (int(m.group(9)) <= 23 and int(m.group(10)) <= 59)


@FORMATS.checks("uri")
def _uri(value: object) -> bool:
    return not isinstance(value, str) or bool(_SCHEME.fullmatch(value))


@FORMATS.checks("uri-reference")
def _uri_reference(value: object) -> bool:
    return not isinstance(value, str) or not re.search(r"\s", value)


@FORMATS.checks("hostname")
def _hostname(value: object) -> bool:
    return not isinstance(value, str) or bool(_HOSTNAME.fullmatch(value))


@FORMATS.checks("int32")
def _int32(value: object) -> bool:
    return not isinstance(value, int) or isinstance(value, bool) or -(2**31) <= value < 2**31


@FORMATS.checks("int64")
def _int64(value: object) -> bool:
    return not isinstance(value, int) or isinstance(value, bool) or -(2**63) <= value < 2**63


# ----------------------------------------------------------------------------------- convert

_DROP = {
    "$id",
    "$schema",
    "$anchor",
    "$dynamicAnchor",
    "$dynamicRef",
    "$comment",
    "$defs",
    "definitions",
    "discriminator",
    "xml",
    "externalDocs",
    "example",
    "examples",
    "readOnly",
    "writeOnly",
    "deprecated",
    "nullable",
    "x-nullable",
    "$ref",
    "id",
}
_MAPS = {"properties": True, "patternProperties": True, "dependentSchemas": False}
_SINGLE = {
    "additionalProperties": True,
    "unevaluatedProperties": True,
    "items": True,
    "contains": True,
    "propertyNames": False,
    "additionalItems": True,
    "unevaluatedItems": True,
    "not": False,
    "if": False,
    "then": False,
    "else": False,
}
_LISTS = {"allOf": False, "anyOf": False, "oneOf": False, "prefixItems": True}


class _Converter:
    """Builds one self-contained 2020-12 schema: every $ref target becomes a `$defs` entry."""

    def __init__(self, schema: Schema, strict: bool):
        self.d = schema.description
        self.dialect = schema.dialect
        self.strict = strict
        self.defs: dict[str, Any] = {}
        self.names: dict[tuple, str] = {}
        self.stack: set[tuple] = set()
        self.inlined: dict[tuple, Any] = {}

    def root(self, schema: Schema) -> Any:
        converted = self.convert(schema.raw, schema.file, schema.pointer or "", True)
        if self.defs:
            if not isinstance(converted, dict):
                converted = {"allOf": [converted]}
            converted = {**converted, "$defs": self.defs}
        return converted

    def convert(self, raw: Any, file: str, pointer: str, closed: bool) -> Any:
        if isinstance(raw, bool):
            return raw
        if not isinstance(raw, dict):
            return {}
        ref = raw.get("$ref")
        if isinstance(ref, str):
            target = self.reference(ref, file, pointer, closed)
            if self.dialect == "3.1":
                rest = {k: v for k, v in raw.items() if k != "$ref"}
                if rest:
                    return (
                        {**self.body(rest, file, pointer, False), "allOf": [target]}
                        if "allOf" not in rest
                        else {"allOf": [self.body(rest, file, pointer, False), target]}
                    )
            return target
        return self.body(raw, file, pointer, closed)

    def reference(self, ref: str, file: str, pointer: str, closed: bool) -> Any:
        """A $ref target, inlined (shared, converted once) unless it is recursive: then it becomes a
        `$defs` entry. Inlining spares jsonschema a registry lookup per $ref per validation."""
        value, tfile, tpointer = self.d.follow(ref, file, pointer)
        key = (tfile, tpointer, closed and self.strict)
        name = self.names.get(key)
        if name is None and key in self.stack:  # recursion: this target needs a name
            tail = re.sub(r"[^A-Za-z0-9_]", "_", tpointer.rsplit("/", 1)[-1]) or "root"
            name = self.names[key] = f"{tail}_{len(self.names)}"
        if name is not None:
            return {"$ref": f"#/$defs/{name}"}
        if key in self.inlined:
            return self.inlined[key]
        self.stack.add(key)
        converted = self.convert(value, tfile, tpointer, closed)
        self.stack.discard(key)
        if key in self.names:
            self.defs[self.names[key]] = converted
            return {"$ref": f"#/$defs/{self.names[key]}"}
        self.inlined[key] = converted
        return converted

    def body(self, raw: dict, file: str, pointer: str, closed: bool) -> Any:
        out: dict[str, Any] = {}
        legacy = self.dialect in ("3.0", "2.0")
        for key, value in raw.items():
            sub = f"{pointer}/{key}"
            if key in _DROP or key.startswith("x-"):
                continue
            if key in _MAPS and isinstance(value, dict):
                out[key] = {name: self.convert(v, file, f"{sub}/{_esc(name)}", _MAPS[key]) for name, v in value.items()}
            elif key == "items" and isinstance(value, list):
                out["prefixItems"] = [self.convert(v, file, f"{sub}/{i}", True) for i, v in enumerate(value)]
            elif key in _SINGLE:
                out[key] = self.convert(value, file, sub, _SINGLE[key])
            elif key in _LISTS and isinstance(value, list):
                out[key] = [self.convert(v, file, f"{sub}/{i}", _LISTS[key]) for i, v in enumerate(value)]
            elif key == "dependencies" and isinstance(value, dict):
                for name, dep in value.items():
                    if isinstance(dep, list):
                        out.setdefault("dependentRequired", {})[name] = dep
                    else:
                        out.setdefault("dependentSchemas", {})[name] = self.convert(dep, file, f"{sub}/{name}", False)
            elif key == "type" and value == "file":
                continue
            elif legacy and key in ("exclusiveMinimum", "exclusiveMaximum") and isinstance(value, bool):
                bound = "minimum" if key == "exclusiveMinimum" else "maximum"
                if value and bound in raw:
                    out[key] = raw[bound]
            else:
                out[key] = value
        if legacy:
            for key in ("exclusiveMinimum", "exclusiveMaximum"):
                bound = "minimum" if key == "exclusiveMinimum" else "maximum"
                if raw.get(key) is True and bound in raw:
                    out.pop(bound, None)
            if raw.get("nullable") is True or raw.get("x-nullable") is True:
                out = _nullable(out)
        if (
            self.strict
            and closed
            and "additionalProperties" not in out
            and "unevaluatedProperties" not in out
            and any(k in out for k in ("properties", "patternProperties", "allOf", "anyOf", "oneOf"))
        ):
            out["unevaluatedProperties"] = False
        return out


def _esc(name: str) -> str:
    return str(name).replace("~", "~0").replace("/", "~1")


def _nullable(out: dict) -> dict:
    kind = out.get("type")
    if isinstance(kind, str):
        out["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        out["type"] = kind + ["null"]
    elif kind is None and any(k in out for k in ("allOf", "anyOf", "oneOf", "$ref")):
        return {"anyOf": [{"type": "null"}, out]}
    if isinstance(out.get("enum"), list) and None not in out["enum"]:
        out["enum"] = out["enum"] + [None]
    return out


def to_json_schema(schema: Schema, strict: bool = False) -> Any:
    """The self-contained JSON Schema 2020-12 form of an OpenAPI schema (for tests and display)."""
    return _Converter(schema, strict).root(schema)


def compile_schema(schema: Schema, strict: bool = False) -> Draft202012Validator:
    """A validator for the schema, compiled once per (schema, strict) and cached on its description."""
    cache = schema.description._validators
    key = (schema.file, schema.pointer if schema.pointer is not None else id(schema), strict)
    validator = cache.get(key)
    if validator is None:
        validator = Draft202012Validator(to_json_schema(schema, strict), format_checker=FORMATS)
        cache[key] = validator
    return validator


# ---------------------------------------------------------------------------------- problems


@dataclass(frozen=True)
class SchemaProblem:
    path: str  # JSON path of the offending value: `$`, `$.tags[2]`
    message: str  # `expected string, got 7`

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def _shown(value: Any) -> str:
    if isinstance(value, dict):
        return "an object" if value else "{}"
    if isinstance(value, list):
        return f"an array of {len(value)}" if value else "[]"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:39] + '…"'


def _child_path(path: str, key: str) -> str:
    return f"{path}.{key}" if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) else f"{path}[{json.dumps(key)}]"


def _json_path(error: ValidationError) -> str:
    path = "$"
    for part in error.absolute_path:
        path = f"{path}[{part}]" if isinstance(part, int) else _child_path(path, str(part))
    return path


def _extras(error: ValidationError) -> list[str]:
    match = re.search(r"\((.*) (?:was|were) unexpected\)", error.message, re.S)
    if match:
        try:
            names = ast.literal_eval(f"[{match.group(1)}]")
            return [str(n) for n in names]
        except (ValueError, SyntaxError):
            pass
    return []


def _declared_keys(schema: Any, root: Any, instance: dict, seen: set) -> set[str]:
    """Property names a schema declares through its applicators, valid or not (for strict mode:
    jsonschema drops the annotations of a failing allOf branch, which would make every property
    of an object with one bad value look unexpected)."""
    keys: set[str] = set()
    if not isinstance(schema, dict) or id(schema) in seen:
        return keys
    seen.add(id(schema))
    keys.update(schema.get("properties") or {})
    for pattern in schema.get("patternProperties") or {}:
        keys.update(k for k in instance if re.search(pattern, k))
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        keys |= _declared_keys(root.get("$defs", {}).get(ref[8:]), root, instance, seen)
    for key in ("allOf", "anyOf", "oneOf"):
        for sub in schema.get(key) or ():
            keys |= _declared_keys(sub, root, instance, seen)
    for key in ("if", "then", "else"):
        keys |= _declared_keys(schema.get(key), root, instance, seen)
    for sub in (schema.get("dependentSchemas") or {}).values():
        keys |= _declared_keys(sub, root, instance, seen)
    return keys


def _describe(error: ValidationError, root: Any = None) -> list[SchemaProblem]:
    path, kind, want, got = _json_path(error), error.validator, error.validator_value, error.instance
    if kind == "unevaluatedProperties" and want is False and isinstance(got, dict) and isinstance(root, dict):
        declared = _declared_keys(error.schema, root, got, set())
        return [
            SchemaProblem(_child_path(path, name), "unexpected property (the schema does not allow it)")
            for name in got
            if name not in declared
        ]
    if kind == "type":
        types = want if isinstance(want, list) else [want]
        return [SchemaProblem(path, f"expected {' or '.join(map(str, types))}, got {_shown(got)}")]
    if kind == "required":
        missing = [name for name in want if isinstance(got, dict) and name not in got]
        return [SchemaProblem(path, f"required property '{name}' is missing") for name in missing[:1] or ["?"]]
    if kind in ("additionalProperties", "unevaluatedProperties") and want is False:
        extras = _extras(error) or ["?"]
        return [
            SchemaProblem(_child_path(path, name), "unexpected property (the schema does not allow it)")
            for name in extras
        ]
    if kind == "enum":
        return [SchemaProblem(path, f"expected one of {json.dumps(want, ensure_ascii=False)}, got {_shown(got)}")]
    if kind == "const":
        return [SchemaProblem(path, f"expected {_shown(want)}, got {_shown(got)}")]
    words = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}
    if kind in words:
        return [SchemaProblem(path, f"expected a number {words[kind]} {want}, got {_shown(got)}")]
    if kind in ("minLength", "maxLength"):
        bound = "at least" if kind == "minLength" else "at most"
        return [SchemaProblem(path, f"expected {bound} {want} characters, got {_shown(got)} ({len(got)})")]
    if kind in ("minItems", "maxItems"):
        bound = "at least" if kind == "minItems" else "at most"
        return [SchemaProblem(path, f"expected {bound} {want} items, got {len(got)}")]
    if kind in ("minProperties", "maxProperties"):
        bound = "at least" if kind == "minProperties" else "at most"
        return [SchemaProblem(path, f"expected {bound} {want} properties, got {len(got)}")]
    if kind == "pattern":
        return [SchemaProblem(path, f"expected text matching /{want}/, got {_shown(got)}")]
    if kind == "format":
        return [SchemaProblem(path, f"expected format {want}, got {_shown(got)}")]
    if kind == "multipleOf":
        return [SchemaProblem(path, f"expected a multiple of {want}, got {_shown(got)}")]
    if kind == "uniqueItems":
        return [SchemaProblem(path, "expected unique items, got duplicates")]
    if kind == "oneOf":
        count = len(want)
        if error.context:
            return [
                SchemaProblem(
                    path, f"expected exactly one of {count} alternatives (oneOf) to match, none did: {_closest(error)}"
                )
            ]
        return [SchemaProblem(path, f"expected exactly one of {count} alternatives (oneOf) to match, several did")]
    if kind == "anyOf":
        return [
            SchemaProblem(
                path, f"expected at least one of {len(want)} alternatives (anyOf) to match, none did: {_closest(error)}"
            )
        ]
    if kind == "not":
        return [SchemaProblem(path, f"expected a value that does not match the 'not' schema, got {_shown(got)}")]
    if kind == "dependentRequired":
        return [SchemaProblem(path, error.message)]
    return [SchemaProblem(path, error.message)]


def _closest(error: ValidationError) -> str:
    from jsonschema.exceptions import best_match

    # A branch of the right type is the closer one: prefer its errors over "expected integer".
    candidates = [e for e in error.context if e.validator != "type"] or list(error.context)
    best = best_match(candidates)
    if best is None:
        return "?"
    return "; ".join(str(p) for p in _describe(best)[:1])


def problems_of(validator: Draft202012Validator, instance: Any) -> list[SchemaProblem]:
    problems: list[SchemaProblem] = []
    for error in validator.iter_errors(instance):
        problems.extend(_describe(error, validator.schema))
    return problems


def validate_value(schema: Schema, instance: Any, strict: bool = False) -> list[SchemaProblem]:
    """Every problem of a JSON value against a schema ([] when it matches)."""
    return problems_of(compile_schema(schema, strict), instance)


def summarize(problems: list[SchemaProblem], limit: int = MAX_SHOWN) -> str:
    """`$.a: …; $.b: …` for the first `limit` problems, then `… and N more`."""
    shown = "; ".join(str(p) for p in problems[:limit])
    if len(problems) > limit:
        shown += f"; … and {len(problems) - limit} more"
    return shown


# ------------------------------------------------------------------------------ media types


def media_type_of(content_type: str | None) -> str | None:
    """`application/json; charset=utf-8` → `application/json` (lower case); None if absent."""
    if not content_type:
        return None
    return content_type.split(";", 1)[0].strip().lower() or None


def media_matches(declared: str, actual: str) -> bool:
    declared = media_type_of(declared) or ""
    if declared in ("*/*", "*"):
        return True
    if declared == actual:
        return True
    major, _, minor = declared.partition("/")
    return minor == "*" and actual.partition("/")[0] == major


def select_media(content: Mapping[str, MediaType], content_type: str | None) -> MediaType | None:
    """The declared media type for an actual Content-Type: exact, then `type/*`, then `*/*`."""
    actual = media_type_of(content_type)
    if actual is None:
        return None
    for rank in (0, 1, 2):
        for declared, media in content.items():
            name = media_type_of(declared) or ""
            if rank == 0 and name == actual:
                return media
            if rank == 1 and name.endswith("/*") and name != "*/*" and media_matches(name, actual):
                return media
            if rank == 2 and name in ("*/*", "*"):
                return media
    return None


def is_json_media(media_type: str | None) -> bool:
    media_type = media_type_of(media_type) or ""
    return media_type.endswith("/json") or media_type.endswith("+json")


# --------------------------------------------------------------------------------- responses


@dataclass(frozen=True)
class SchemaCheck:
    """The outcome of checking one response. `message` is one line; '' when ok."""

    ok: bool
    message: str
    problems: tuple[SchemaProblem, ...] = ()
    status_key: str | None = None  # "200", "2XX", "default" — which response was used
    media_type: str | None = None  # which declared media type was used

    def __bool__(self) -> bool:
        return self.ok


_UNSET = object()
_NO_BODY = (204, 205, 304)  # HTTP says these have no body, whatever a `default` response declares


def check_response(
    operation: Operation,
    status: int,
    content_type: str | None,
    body: str | bytes | None,
    *,
    parsed: Any = _UNSET,
    strict: bool = False,
) -> SchemaCheck:
    """Check a response against the operation's schema for its status and its actual Content-Type.
    `body` is the raw body; `parsed` may give its already-parsed JSON to save a second parse."""
    response = operation.response_for(status)
    if response is None:
        return SchemaCheck(
            False,
            f"{operation.label} declares no response for status {status} "
            f"(declared: {', '.join(operation.responses) or 'none'})",
        )
    where = f"response {status}"
    empty = body is None or len(body) == 0
    if empty and status in _NO_BODY:
        return SchemaCheck(True, "", status_key=response.status)
    if not response.content:
        if empty:
            return SchemaCheck(True, "", status_key=response.status)
        return SchemaCheck(
            False,
            f"{where}: {operation.label} declares no body for {response.status}, but the response has one",
            status_key=response.status,
        )
    media = select_media(response.content, content_type)
    if media is None:
        actual = media_type_of(content_type) or "no Content-Type"
        return SchemaCheck(
            False,
            f"{where}: Content-Type {actual} is not one {operation.label} declares for "
            f"{response.status} ({', '.join(response.content)})",
            status_key=response.status,
        )
    prefix = f"{where} ({media_type_of(content_type)})"
    if media.schema is None:
        return SchemaCheck(True, "", status_key=response.status, media_type=media.media_type)
    if empty:
        return SchemaCheck(
            False,
            f"{prefix}: empty body, the schema expects a value",
            status_key=response.status,
            media_type=media.media_type,
        )
    if is_json_media(content_type):
        if parsed is _UNSET:
            try:
                parsed = json.loads(body)
            except ValueError as error:
                return SchemaCheck(
                    False,
                    f"{prefix}: the body is not valid JSON: {error}",
                    status_key=response.status,
                    media_type=media.media_type,
                )
        instance = parsed
    else:
        instance = body.decode("utf-8", "replace") if isinstance(body, (bytes, bytearray)) else body
    problems = problems_of(compile_schema(media.schema, strict), instance)
    if not problems:
        return SchemaCheck(True, "", status_key=response.status, media_type=media.media_type)
    message = f"{prefix} does not match the schema of {operation.label}: {summarize(problems)}"
    return SchemaCheck(False, message, tuple(problems), response.status, media.media_type)


def check_status(operation: Operation, status: int) -> str | None:
    """autoAssertions.statusCode: None when the operation declares the status (or a `default`)."""
    if operation.response_for(status) is not None:
        return None
    return f"status {status} is not one {operation.label} declares ({', '.join(operation.responses) or 'none'})"


def check_content_type(
    operation: Operation, status: int, content_type: str | None, has_body: bool = True
) -> str | None:
    """autoAssertions.contentType: None when the response's Content-Type is one the operation
    declares for that status (any, when it declares no content and there is no body)."""
    response: Response | None = operation.response_for(status)
    if response is None:
        return None  # check_status reports it
    if not response.content:
        return (
            None
            if not has_body
            else (
                f"{operation.label} declares no body for {response.status}, got {media_type_of(content_type) or 'one'}"
            )
        )
    if not has_body and (content_type is None or status in _NO_BODY):
        return None
    if select_media(response.content, content_type) is not None:
        return None
    return (
        f"Content-Type {media_type_of(content_type) or '(none)'} is not one {operation.label} declares for "
        f"{response.status} ({', '.join(response.content)})"
    )


def declared_statuses(operation: Operation) -> Iterable[str]:
    return list(operation.responses)
