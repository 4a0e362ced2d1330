"""What a `{{NAME}}` reads at run time: the scope's variables, then `env.X` (an environment
variable), `param.KEY` (an effective parameter) and what providers such as webhooks answer
(`hooks.done`, `hooks.done.length`). A plain name never leaves the first dict (the fast path)."""

from __future__ import annotations

import os
from typing import Callable, Iterator, Mapping, Sequence

from scenario_core.language.parameter_values import Duration
from scenario_core.parameters.resolution import parameter_text

Provider = Callable[[str], tuple[bool, object]]  # no string inside: typing would compile it (~2 ms at import)


class Variables(Mapping[str, object]):
    """A read-only view; iterating it gives the scope's own names only (what messages list)."""

    # Underscored: `values` would hide Mapping.values().
    __slots__ = ("_values", "_parameters", "_providers")

    def __init__(
        self,
        values: Mapping[str, object],
        parameters: Mapping[str, object] | None = None,
        providers: Sequence[Provider] = (),
    ):
        self._values = values
        self._parameters = parameters
        self._providers = providers

    def __getitem__(self, name: str) -> object:
        values = self._values
        if name in values:
            return values[name]
        if "." in name:
            head, _, rest = name.partition(".")
            if head == "env" and rest in os.environ:
                return os.environ[rest]
            if head == "param" and self._parameters is not None and rest in self._parameters:
                value = self._parameters[rest]
                value = getattr(value, "value", value)
                # JSON-typed values keep their type; a duration or a list of names reads as
                # parameters read each other (`500ms`, `a, b`)
                return parameter_text(value) if isinstance(value, (Duration, tuple)) else value
            for provider in self._providers:
                found, value = provider(name)
                if found:
                    return value
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):  # names are text
            return False
        try:
            self[name]
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)
