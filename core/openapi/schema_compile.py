"""OpenAPI schemas compiled to JSON Schema 2020-12 validators: the conversion of every dialect,
the format checker, and the compiled validators (cached on the Description). The checking of
responses and its messages are in `schema_check`.

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
"""

from __future__ import annotations

import calendar
import re
from typing import TYPE_CHECKING

from jsonschema import Draft7Validator, Draft202012Validator, FormatChecker
from jsonschema.validators import extend

from scenario_core.openapi.documents import OpenApiError, locate
from scenario_core.openapi.operations import Schema
from scenario_core.openapi.pattern_clock import pattern_keyword, pattern_properties_keyword
from scenario_core.openapi.schema_patterns import PatternError, compile_pattern, is_regex
from scenario_core.support.json_types import JsonObject, JsonValue

if TYPE_CHECKING:
    from scenario_core.openapi.pattern_clock import SchemaValidator

# ------------------------------------------------------------------------------ format checker

FORMATS = FormatChecker()
_DATE_TIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:[^\s]*")
_HOSTNAME = re.compile(
    r"(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9\-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9\-]{0,61}[A-Za-z0-9])?)*\.?"
)


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


def _uri(value: object) -> bool:
    return not isinstance(value, str) or bool(_SCHEME.fullmatch(value))


def _uri_reference(value: object) -> bool:
    return not isinstance(value, str) or not re.search(r"\s", value)


def _hostname(value: object) -> bool:
    return not isinstance(value, str) or bool(_HOSTNAME.fullmatch(value))


# jsonschema's own would compile the value with `re`: unbounded, and not what patterns use.
FORMATS.checks("regex")(is_regex)


def _int32(value: object) -> bool:
    return not isinstance(value, int) or isinstance(value, bool) or -(2**31) <= value < 2**31


def _int64(value: object) -> bool:
    return not isinstance(value, int) or isinstance(value, bool) or -(2**63) <= value < 2**63


# Registered by call, not as decorators: jsonschema is untyped, and a decorator would untype them.
FORMATS.checks("date-time")(_date_time)
FORMATS.checks("uri")(_uri)
FORMATS.checks("uri-reference")(_uri_reference)
FORMATS.checks("hostname")(_hostname)
FORMATS.checks("int32")(_int32)
FORMATS.checks("int64")(_int64)


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
# Keywords whose schemas apply to a part of the instance (a property, an item), not to the
# instance itself: a schema may refer to itself only below one of these, or it never ends.
_DESCENDING = {
    "properties",
    "patternProperties",
    "additionalProperties",
    "unevaluatedProperties",
    "items",
    "prefixItems",
    "contains",
    "propertyNames",
    "additionalItems",
    "unevaluatedItems",
}

# jsonschema's 2020-12 validator, but every regular expression under one deadline (schema_patterns).
Validator = extend(Draft202012Validator, {"pattern": pattern_keyword, "patternProperties": pattern_properties_keyword})


def description_error(message: str, file: str, pointer: str | None) -> OpenApiError:
    """A located problem of a description: `FILE:LINE:COL: message`, or the JSON pointer when the
    place cannot be found (a schema we synthesised from Swagger parameters has none)."""
    where = locate(file, pointer) if pointer is not None else None
    if where is None:
        return OpenApiError(f"{message} (at {file}#{pointer})" if pointer is not None else f"{message} (in {file})")
    return OpenApiError(message, file, *where)


class _Converter:
    """Builds one self-contained 2020-12 schema: every $ref target becomes a `$defs` entry."""

    def __init__(self, schema: Schema, strict: bool, collect: bool = False):
        self.d = schema.description
        self.dialect = schema.dialect
        self.strict = strict
        self.defs: JsonObject = {}
        # keyed by $ref target: (file, pointer, whether converted closed for strict mode)
        self.names: dict[tuple[str, str, bool], str] = {}
        self.stack: dict[tuple[str, str, bool], int] = {}  # $ref targets being converted -> `descents` then
        self.descents = 0  # how many descending keywords (_DESCENDING) we are below
        self.inlined: dict[tuple[str, str, bool], JsonValue] = {}
        self.placed = schema.pointer is not None
        self.collect = collect  # gather every problem in `problems` rather than raise the first
        self.problems: list[OpenApiError] = []

    def problem(self, message: str, file: str, pointer: str | None) -> JsonObject:
        """A schema that cannot be used: raised, or noted (collect) and converted as `{}`."""
        # A schema we synthesised (a Swagger parameter's) has no place of its own in the file.
        error = description_error(message, file, pointer if self.placed else None)
        if not self.collect:
            raise error
        self.problems.append(error)
        return {}

    def root(self, schema: Schema) -> JsonValue:
        converted = self.convert(schema.raw, schema.file, schema.pointer or "", True)
        if self.defs:
            if not isinstance(converted, dict):
                converted = {"allOf": [converted]}
            converted = {**converted, "$defs": self.defs}
        return converted

    def convert(self, raw: JsonValue, file: str, pointer: str, closed: bool) -> JsonValue:
        if isinstance(raw, bool):
            return raw
        if not isinstance(raw, dict):  # `schema: "Pet"` would otherwise accept anything
            what = f"a {type(raw).__name__} {_clip(raw)}" if raw is not None else "null"
            return self.problem(f"a schema must be a mapping (or true/false), got {what}", file, pointer)
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

    def reference(self, ref: str, file: str, pointer: str, closed: bool) -> JsonValue:
        """A $ref target, inlined (shared, converted once) unless it is recursive: then it becomes a
        `$defs` entry. Inlining spares jsonschema a registry lookup per $ref per validation."""
        try:
            value, tfile, tpointer = self.d.follow(ref, file, pointer)
        except OpenApiError as error:  # points to nothing, remote, a device: already located
            if not self.collect:
                raise
            self.problems.append(error)
            return {}
        key = (tfile, tpointer, closed and self.strict)
        name = self.names.get(key)
        if key in self.stack and self.stack[key] == self.descents:
            return self.problem(
                f"$ref '{ref}' refers back to itself without going below a property or an item, "
                "so checking it would never end (a $ref cycle)",
                file,
                pointer,
            )
        if name is None and key in self.stack:  # recursion: this target needs a name
            tail = re.sub(r"[^A-Za-z0-9_]", "_", tpointer.rsplit("/", 1)[-1]) or "root"
            name = self.names[key] = f"{tail}_{len(self.names)}"
        if name is not None:
            return {"$ref": f"#/$defs/{name}"}
        if key in self.inlined:
            return self.inlined[key]
        self.stack[key] = self.descents
        converted = self.convert(value, tfile, tpointer, closed)
        del self.stack[key]
        if key in self.names:
            self.defs[self.names[key]] = converted
            return {"$ref": f"#/$defs/{self.names[key]}"}
        self.inlined[key] = converted
        return converted

    def body(self, raw: JsonObject, file: str, pointer: str, closed: bool) -> JsonObject:
        out: JsonObject = {}
        legacy = self.dialect in ("3.0", "2.0")
        for key, value in raw.items():
            sub = f"{pointer}/{_esc(key)}"
            if key in _DROP or key.startswith("x-"):
                continue
            descending = key in _DESCENDING
            self.descents += descending
            try:
                out.update(self.keyword(key, value, raw, sub, file, legacy))
            finally:
                self.descents -= descending
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

    def keyword(self, key: str, value: JsonValue, raw: JsonObject, sub: str, file: str, legacy: bool) -> JsonObject:
        """One keyword of a schema, converted: what it adds to the 2020-12 schema."""
        if key in _MAPS and isinstance(value, dict):
            if key == "patternProperties":
                for name in value:
                    self.check_pattern(name, file, f"{sub}/{_esc(name)}")
            return {key: {name: self.convert(v, file, f"{sub}/{_esc(name)}", _MAPS[key]) for name, v in value.items()}}
        if key == "items" and isinstance(value, list):
            return {"prefixItems": [self.convert(v, file, f"{sub}/{i}", True) for i, v in enumerate(value)]}
        if key in _SINGLE:
            return {key: self.convert(value, file, sub, _SINGLE[key])}
        if key in _LISTS and isinstance(value, list):
            return {key: [self.convert(v, file, f"{sub}/{i}", _LISTS[key]) for i, v in enumerate(value)]}
        if key == "dependencies" and isinstance(value, dict):
            groups: dict[str, JsonObject] = {}  # dependentRequired, dependentSchemas: in order of first use
            for name, dep in value.items():
                if isinstance(dep, list):
                    groups.setdefault("dependentRequired", {})[name] = dep
                else:
                    groups.setdefault("dependentSchemas", {})[name] = self.convert(
                        dep, file, f"{sub}/{_esc(name)}", False
                    )
            return {group: entries for group, entries in groups.items()}
        if key == "type" and value == "file":
            return {}
        if legacy and key in ("exclusiveMinimum", "exclusiveMaximum") and isinstance(value, bool):
            bound = "minimum" if key == "exclusiveMinimum" else "maximum"
            return {key: raw[bound]} if value and bound in raw else {}
        if key == "pattern":
            self.check_pattern(value, file, sub)
        return {key: value}

    def check_pattern(self, pattern: JsonValue, file: str, pointer: str) -> None:
        try:
            compile_pattern(pattern)
        except PatternError as error:
            self.problem(str(error), file, pointer)


def _clip(value: object, width: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def _esc(name: str) -> str:
    return str(name).replace("~", "~0").replace("/", "~1")


def _nullable(out: JsonObject) -> JsonObject:
    kind = out.get("type")
    if isinstance(kind, str):
        out["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        out["type"] = kind + ["null"]
    elif kind is None and any(k in out for k in ("allOf", "anyOf", "oneOf", "$ref")):
        return {"anyOf": [{"type": "null"}, out]}
    enum = out.get("enum")
    if isinstance(enum, list) and None not in enum:
        out["enum"] = enum + [None]
    return out


def to_json_schema(schema: Schema, strict: bool = False) -> JsonValue:
    """The self-contained JSON Schema 2020-12 form of an OpenAPI schema (for tests and display)."""
    return _Converter(schema, strict).root(schema)


def compile_schema(schema: Schema, strict: bool = False) -> SchemaValidator:
    """A validator for the schema, compiled once per (schema, strict) and cached on its description.
    Raises a located OpenApiError for a schema that cannot be used (schema_problems: all of them)."""
    cache = schema.description._validators
    key = (schema.file, schema.pointer if schema.pointer is not None else id(schema), strict)
    validator = cache.get(key)
    if validator is None:
        converted = to_json_schema(schema, strict)
        _check_keywords(converted, schema)
        validator = Validator(converted, format_checker=FORMATS)
        cache[key] = validator
    return validator


def schema_problems(schema: Schema) -> list[OpenApiError]:
    """Every reason the schema cannot be used, each located: a $ref to nothing, refused or in a
    cycle, a schema that is not a mapping, a pattern that does not compile, a keyword of the
    wrong shape. [] when it can. For `check`: nothing is raised."""
    converter = _Converter(schema, False, collect=True)
    try:
        converted = converter.root(schema)
    except RecursionError:
        return [description_error("the schema is nested too deeply to check", schema.file, schema.pointer)]
    if converter.problems:
        return converter.problems
    try:
        _check_keywords(converted, schema)
    except OpenApiError as error:
        return [error]
    return []


# Draft 7's meta-schema checks the shape of every keyword jsonschema would crash on, at ~1.6 ms
# a schema; 2020-12's (with $dynamicRef) takes ~9 ms. Its `pattern` format is not checked here:
# the converter compiles every pattern itself.
_SHAPES = Draft7Validator(Draft7Validator.META_SCHEMA)


def _check_keywords(converted: JsonValue, schema: Schema) -> None:
    """Keywords of the wrong shape (`required: true`, `properties: "x"`) as one located error,
    rather than a crash of the validator on the first response."""
    try:
        error = next(_SHAPES.iter_errors(converted), None)
    except RecursionError:
        raise description_error("the schema is nested too deeply to check", schema.file, schema.pointer) from None
    if error is not None:
        where = "/".join(_esc(str(p)) for p in error.absolute_path)
        raise description_error(
            f"the schema is not valid JSON Schema: {' '.join(error.message.split())[:200]}"
            + (f" (at {where})" if where else ""),
            schema.file,
            schema.pointer,
        )
