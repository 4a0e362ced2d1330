"""One call a webhook received (run/webhooks.py), and how a reference such as
`{{NAME.h[0].body.items[0].id}}` reads into it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from scenario_core.support.digits import ascii_int
from scenario_core.support.records import dataclass

if TYPE_CHECKING:
    from scenario_core.support.json_types import JsonValue


@dataclass(frozen=True, slots=True)
class Received:
    """One call a hook received."""

    method: str
    path: str
    query: dict[str, str]
    headers: tuple[tuple[str, str], ...]
    body: JsonValue  # parsed JSON when the body is JSON, else its text ("" when empty)

    def header(self, name: str) -> str | None:
        lowered = name.lower()
        values = [v for k, v in self.headers if k.lower() == lowered]
        return ", ".join(values) if values else None

    def as_value(self) -> dict[str, object]:
        """What `{{NAME.h[0]}}` shows: a plain JSON-like value."""
        headers: dict[str, str] = {}
        for name, value in self.headers:
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        return {
            "method": self.method,
            "path": self.path,
            "query": dict(self.query),
            "headers": headers,
            "body": self.body,
        }


def body_value(raw: bytes) -> JsonValue:
    text = raw.decode("utf-8", errors="replace")
    if not text.strip():
        return text
    try:
        value: JsonValue = json.loads(text)
        return value
    except (ValueError, RecursionError):
        return text


def walk(call: Received, path: list[str | int], name: str) -> tuple[bool, object, str | None]:
    if not path:
        return True, call.as_value(), None
    first, rest = path[0], path[1:]
    if first == "headers" and rest:
        if len(rest) > 1 or not isinstance(rest[0], str):
            return False, None, f"'{name}': a header is text, it has no parts"
        header = call.header(rest[0])
        return (True, header, None) if header is not None else (False, None, f"the call has no header {rest[0]}")
    value: object = call.as_value().get(first) if isinstance(first, str) else None
    if value is None and first not in ("body", "query", "headers", "method", "path"):
        return False, None, f"'{name}': a call has method, path, query, headers and body"
    for step in rest:
        if isinstance(value, dict) and str(step) in value:
            value = value[str(step)]
        elif (
            isinstance(value, list)
            and (index := step if isinstance(step, int) else ascii_int(str(step))) is not None
            and index < len(value)
        ):
            value = value[index]
        elif step == "length" and isinstance(value, (list, str, dict)):
            value = len(value)
        else:
            return False, None, f"'{name}': the received {first} has no '{step}'"
    return True, value, None
