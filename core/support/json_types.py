"""JSON values as `json.loads` (and a description's YAML, read as plain data) gives them: the one
place their types are spelt. `JsonValue` is recursive; `JsonObject` and `JsonArray` are its two
containers. Use them for data that really was parsed from JSON or YAML; a value that may be
anything (a user's variable, an event's payload) is an `object`, narrowed with `isinstance`.

Types only: importing this module costs nothing at run time beyond `typing`."""

from __future__ import annotations

from typing import TypeAlias, Union

JsonScalar: TypeAlias = Union[None, bool, int, float, str]
JsonValue: TypeAlias = Union[None, bool, int, float, str, list["JsonValue"], dict[str, "JsonValue"]]
JsonObject: TypeAlias = dict[str, JsonValue]
JsonArray: TypeAlias = list[JsonValue]
