"""Example values from OpenAPI schemas, for an imported request: what the description gives
(`example`, `examples`, `default`, `enum`, `const`) first, else a value built from the schema —
an object's required properties, a string of its format within its length bounds, a number
within its bounds, an array of one item. Deterministic (no clock, no random: an import written
twice is the same file) and bounded: `$ref`s that recur, and depth past MAX_EXAMPLE_DEPTH,
stop with null."""

from __future__ import annotations

from typing import Iterable, Mapping, cast

from scenario_core.openapi.body_defaults import number_within
from scenario_core.openapi.documents import Description, OpenApiError
from scenario_core.openapi.operations import MediaType, Parameter, Schema
from scenario_core.support.json_types import JsonValue

MAX_EXAMPLE_DEPTH = 8
MAX_ARRAY_ITEMS = 3
_FORMATS = {
    "date-time": "2026-01-01T00:00:00Z",
    "date": "2026-01-01",
    "time": "12:00:00",
    "email": "user@example.com",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "uri": "https://example.com",
    "url": "https://example.com",
    "hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "byte": "aGVsbG8=",
    "binary": "",
    "password": "password",
}


def _number(node: Mapping[str, JsonValue], kind: str) -> int | float:
    """1, moved inside the schema's bounds (exclusive ones as 3.0 and 3.1 write them)."""
    return number_within(node, kind, 1)


# The (file, JSON pointer) of each $ref followed down to a value: a schema that recurs stops there.
_Seen = tuple[tuple[str, str], ...]


class Examples:
    """Example values for the schemas of one description: parsed JSON or YAML (what the
    description holds, or what is built from its schemas), so `object`: its readers check."""

    def __init__(self, description: Description) -> None:
        self.d = description

    def of_schema(self, schema: Schema | None, all_properties: bool = False) -> object:
        if schema is None:
            return None
        return self._value(schema.raw, schema.file, schema.pointer or "", 0, (), all_properties)

    def of_parameter(self, parameter: Parameter) -> object:
        if parameter.example is not None:
            return parameter.example
        return self.of_schema(parameter.schema)

    def of_media(self, media: MediaType, all_properties: bool = False) -> object:
        """The media type's `example`, else its first `examples` entry's value, else the schema's."""
        if media.example is not None:
            return media.example
        for entry in media.examples.values():
            try:
                value, _, _ = self.d.resolve(entry, self.d.path, "")
            except OpenApiError:
                continue
            if isinstance(value, dict) and "value" in value:
                return value["value"]
        return self.of_schema(media.schema, all_properties)

    def _value(
        self, raw: JsonValue, file: str, pointer: str, depth: int, seen: _Seen, all_properties: bool = False
    ) -> object:
        if isinstance(raw, dict) and "$ref" in raw:
            try:
                node, file, pointer = self.d.resolve(raw, file, pointer)
            except OpenApiError:
                return None
            if (file, pointer) in seen:
                return None  # a recursive schema stops where it repeats
            seen = seen + ((file, pointer),)
        else:
            node = raw
        if not isinstance(node, dict) or depth > MAX_EXAMPLE_DEPTH:
            return None
        for key in ("example", "default", "const"):
            if key in node:
                return node[key]
        for key in ("examples", "enum"):
            listed = node.get(key)
            if isinstance(listed, list) and listed:
                return listed[0]
        all_of = node.get("allOf")
        if isinstance(all_of, list):
            merged: dict[str, object] = {}
            for i, part in enumerate(all_of):
                value = self._value(part, file, f"{pointer}/allOf/{i}", depth + 1, seen, all_properties)
                if isinstance(value, dict):
                    merged.update(value)
            if isinstance(node.get("properties"), dict):
                merged.update(self._object(node, file, pointer, depth, seen, all_properties))
            return merged
        for key in ("oneOf", "anyOf"):
            options = node.get(key)
            if isinstance(options, list) and options:
                return self._value(options[0], file, f"{pointer}/{key}/0", depth + 1, seen, all_properties)
        kind = node.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), None)
        if kind == "object" or (kind is None and isinstance(node.get("properties"), dict)):
            return self._object(node, file, pointer, depth, seen, all_properties)
        if kind == "array":
            least = node.get("minItems")
            count = min(max(least if isinstance(least, int) else 1, 1), MAX_ARRAY_ITEMS)
            item = self._value(node.get("items"), file, f"{pointer}/items", depth + 1, seen)
            return [] if item is None else [item] * count
        if kind in ("integer", "number"):
            return _number(node, kind)
        if kind == "boolean":
            return True
        if kind == "string":
            text = _FORMATS.get(str(node.get("format")), "string")
            least, most = node.get("minLength"), node.get("maxLength")
            if isinstance(least, int) and len(text) < least:
                text += "x" * (least - len(text))
            if isinstance(most, int) and len(text) > most >= 0:
                text = text[:most]
            return text
        return None

    def _object(
        self, node: Mapping[str, object], file: str, pointer: str, depth: int, seen: _Seen, all_properties: bool
    ) -> dict[str, object]:
        """The required properties; all of them (but binary strings) when `all_properties` and
        none is required — a body of optional fields says more with each one filled."""
        found = node.get("properties")
        properties: Mapping[str, JsonValue] = found if isinstance(found, dict) else {}
        listed = cast(Iterable[object], node.get("required") or ())  # a list of names, as 3.x writes it
        required = [name for name in listed if isinstance(name, str) and name in properties]
        names = required or (list(properties) if all_properties else [])
        out: dict[str, object] = {}
        for name in names:
            sub = properties[name]
            resolved = sub
            if isinstance(sub, dict) and "$ref" in sub:
                try:
                    resolved = self.d.resolve(sub, file, pointer)[0]
                except OpenApiError:
                    continue
            if not required and isinstance(resolved, dict) and resolved.get("format") == "binary":
                continue
            escaped = name.replace("~", "~0").replace("/", "~1")
            out[name] = self._value(sub, file, f"{pointer}/properties/{escaped}", depth + 1, seen)
        return out
