"""What a custom step or assertion is handed: its `ctx` (StepContext), the last response as a
step sees it (Response), and StepFailed, which it raises to fail with a message. Part of the
public plugin API (re-exported by `scenario_core.custom_steps`)."""

from __future__ import annotations

import re
from collections import ChainMap
from types import MappingProxyType
from typing import Any, Callable, Iterator, Mapping


class StepFailed(Exception):
    """Raised by a custom step or assertion to fail with this message (like AssertionError)."""


class Response:
    """The last response, as a step sees it: `status`, `headers` (case-insensitive, repeated
    headers joined with ', '), `body` (text) and `json` (the parsed body; None when not JSON)."""

    __slots__ = ("status", "headers", "body", "json")

    def __init__(self, status: int, headers: Mapping[str, str], body: str, json: Any):
        self.status = status
        self.headers = headers
        self.body = body
        self.json = json

    @classmethod
    def of(cls, response: object) -> "Response":
        """From the executor's ResponseReceived (headers as (name, value) pairs) or anything alike."""
        raw = getattr(response, "headers", ()) or ()
        pairs = raw.items() if isinstance(raw, Mapping) else raw
        headers: dict[str, tuple[str, str]] = {}
        for name, value in pairs:
            key = name.lower()
            headers[key] = (headers[key][0], f"{headers[key][1]}, {value}") if key in headers else (name, value)
        data = getattr(response, "json", None)
        if getattr(response, "json_error", None) is not None:
            data = None
        return cls(getattr(response, "status", 0), _Headers(headers), getattr(response, "body", ""), data)

    def header(self, name: str) -> str | None:
        return self.headers.get(name)

    def __repr__(self) -> str:
        return f"Response(status={self.status})"


class _Headers(Mapping[str, str]):
    """Read-only, case-insensitive; iterates over the names as received."""

    __slots__ = ("_items",)

    def __init__(self, items: dict[str, tuple[str, str]]):
        self._items = items

    def __getitem__(self, name: str) -> str:
        return self._items[name.lower()][1]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._items

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self._items.values())

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return repr(dict(self.items()))


_NAME = re.compile(r"[^\W\d]\w*")


class StepContext:
    """What a custom step or assertion receives as `ctx`.

    `variables`: read-only view of what the scenario sees (including what `set` wrote);
    `set(name, value)`: writes a variable as an extract would (`set_variable`, given by the
    executor, does the writing); `response`: the last response or None; `parameters`: effective
    parameter values by key; `text`: the step's interpolated description (or assertion text)."""

    __slots__ = ("_written", "_visible", "_set_variable", "_response", "_raw_response", "_parameters", "text")

    def __init__(
        self,
        variables: Mapping[str, object] | None = None,
        set_variable: Callable[[str, object], None] | None = None,
        response: object = None,
        parameters: Mapping[str, object] | None = None,
        text: str = "",
    ):
        self._written: dict[str, Any] = {}
        # ChainMap only ever writes to its first map (and this one is wrapped read-only): typeshed
        # asks every map to be mutable, which the scenario's variables are not.
        layers = ChainMap(self._written, variables if variables is not None else {})  # type: ignore[arg-type]
        self._visible = MappingProxyType(layers)
        self._set_variable = set_variable
        self._raw_response = response
        self._response: Response | None = None
        self._parameters = parameters
        self.text = text

    @property
    def variables(self) -> Mapping[str, Any]:
        return self._visible

    def set(self, name: str, value: Any) -> None:
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise StepFailed(
                f"ctx.set: {name!r} is not a variable name (letters, digits and _, not starting with a digit)"
            )
        if self._set_variable is not None:
            self._set_variable(name, value)
        self._written[name] = value

    @property
    def response(self) -> Response | None:
        if self._response is None and self._raw_response is not None:
            self._response = (
                self._raw_response if isinstance(self._raw_response, Response) else Response.of(self._raw_response)
            )
        return self._response

    @property
    def parameters(self) -> Mapping[str, Any]:
        source = self._parameters or {}
        # The executor's EffectiveParameters holds EffectiveValue(value, source, line).
        return MappingProxyType({k: getattr(v, "value", v) for k, v in source.items()})

    def fail(self, message: str) -> None:
        """Fail the step with this message (same as raising StepFailed)."""
        raise StepFailed(message)
