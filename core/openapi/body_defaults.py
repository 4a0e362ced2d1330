"""Request bodies from schemas: the body a request schema alone gives (docs/openapi.md), and the
written entries merged deeply over it.

Each property gets its `default`, else `example`, else by type: string "" (date/date-time/time
now, email no-reply@berrycrush.org, uuid random, uri http://localhost), number 0, boolean false,
array [], object its own defaults. Two steps beyond BerryCrush, so that the defaults satisfy the
schema: the first `enum` value is taken before falling back on the type, and numbers and string
lengths are moved inside their bounds (`minimum: 1` gives 1, `minLength: 3` gives "xxx").
A recursive schema stops where it repeats (and at MAX_DEFAULT_DEPTH).
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from typing import Mapping, overload

from scenario_core.openapi.operations import Operation, Schema
from scenario_core.support.json_types import JsonObject, JsonValue

MAX_DEFAULT_DEPTH = 8


def structured_to_json(entries: object) -> object:
    """Structured-body entries to a JSON value: a Mapping, or a sequence of (name, value) tuples,
    is an object (recursively); anything else is kept (the values are a user's: any)."""
    if isinstance(entries, Mapping):
        return {str(k): structured_to_json(v) for k, v in entries.items()}
    if isinstance(entries, (list, tuple)) and entries and all(isinstance(e, tuple) and len(e) == 2 for e in entries):
        return {str(k): structured_to_json(v) for k, v in entries}
    if isinstance(entries, list):
        return [structured_to_json(e) if isinstance(e, Mapping) else e for e in entries]
    return entries


def merge_body(defaults: JsonValue, entries: object) -> object:
    """Written entries over schema defaults; objects merge deeply, anything else replaces."""
    written = {} if isinstance(entries, (list, tuple)) and not entries else structured_to_json(entries)
    return _deep_merge(defaults, written)


# Schema defaults merged give a JSON value; a user's entries over them, a user's value.
@overload
def _deep_merge(base: JsonValue, over: JsonValue) -> JsonValue: ...
@overload
def _deep_merge(base: object, over: object) -> object: ...
def _deep_merge(base: object, over: object) -> object:
    if isinstance(base, dict) and isinstance(over, dict):
        merged = dict(base)
        for key, value in over.items():
            merged[key] = _deep_merge(base[key], value) if key in base else value
        return merged
    return over


def request_defaults(operation: Operation, media_type: str | None = None, now: datetime | None = None) -> JsonValue:
    """The request body the schema alone gives (docs/openapi.md); {} when there is no schema."""
    body = operation.request_body
    if body is None or not body.content:
        return {}
    media = body.content.get(media_type) if media_type else body.preferred()
    if media is None or media.schema is None:
        return {}
    return schema_defaults(media.schema, now=now)


def schema_defaults(schema: Schema, now: datetime | None = None) -> JsonValue:
    """Default value of a schema: `default`, else `example`, else first enum value, else by type."""
    return _Defaults(schema, now or datetime.now(timezone.utc)).value(
        schema.raw, schema.file, schema.pointer or "", 0, ()
    )


def number_within(node: Mapping[str, JsonValue], kind: str, start: int | float = 0) -> int | float:
    """`start`, or the nearest value the bounds allow (a 3.0 boolean or a 3.1 numeric exclusive
    bound). Also the OpenAPI import's example numbers (start 1)."""
    step = 1 if kind == "integer" else 0.5
    value: int | float = start
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
    if (
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

    def value(
        self, raw: JsonValue, file: str, pointer: str, depth: int, seen: tuple[tuple[str, str], ...]
    ) -> JsonValue:
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
        examples, enum, all_of = node.get("examples"), node.get("enum"), node.get("allOf")
        if examples and isinstance(examples, list):
            return examples[0]
        if isinstance(enum, list) and enum:
            return enum[0]
        if "const" in node:
            return node["const"]
        if isinstance(all_of, list):
            merged: JsonValue = {}
            for i, part in enumerate(all_of):
                merged = _deep_merge(merged, self.value(part, file, f"{pointer}/allOf/{i}", depth + 1, seen))
            if isinstance(merged, dict) and isinstance(node.get("properties"), dict):
                merged = _deep_merge(merged, self.object(node, file, pointer, depth, seen))
            return merged
        for key in ("oneOf", "anyOf"):
            options = node.get(key)
            if isinstance(options, list) and options:
                return self.value(options[0], file, f"{pointer}/{key}/0", depth + 1, seen)
        kind = node.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), None)
        if kind == "object" or (kind is None and isinstance(node.get("properties"), dict)):
            return self.object(node, file, pointer, depth, seen)
        if kind == "array":
            return []
        if kind in ("integer", "number"):
            return number_within(node, kind)
        if kind == "boolean":
            return False
        if kind == "string":
            text = self.string(node.get("format"))
            least = node.get("minLength")
            return text + "x" * (least - len(text)) if isinstance(least, int) and len(text) < least else text
        return None

    def object(
        self, node: JsonObject, file: str, pointer: str, depth: int, seen: tuple[tuple[str, str], ...]
    ) -> JsonObject:
        if depth > MAX_DEFAULT_DEPTH:
            return {}
        props = node.get("properties")
        if not isinstance(props, dict):
            props = {}
        return {
            name: self.value(
                sub, file, f"{pointer}/properties/{name.replace('~', '~0').replace('/', '~1')}", depth + 1, seen
            )
            for name, sub in props.items()
        }

    def string(self, fmt: JsonValue) -> str:
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
