"""Finding the operation `call [using NAME] ^op` calls, among the loaded descriptions by name.

`Descriptions` is the set of loaded descriptions by name (`default`, `auth`, ...). `find()`
implements `call [using NAME] ^op` (docs/openapi.md): search all descriptions (one match → it,
several → ambiguous), else an alias (`binding.NAME.alias.op`, `binding.alias.op` = default),
whose target is `^realOp` or `METHOD /path` matched by shape (`{…}` segments match any segment,
a trailing `/` is ignored). Every error is an `OperationLookupError` with a difflib suggestion
and the names that exist.
"""

from __future__ import annotations

import difflib
import re
from typing import Iterable, Mapping

from scenario_core.openapi.documents import OpenApiError
from scenario_core.openapi.operations import LoadedDescription, Operation


class OperationLookupError(OpenApiError):
    """`call ^op` cannot be resolved. `kind`: no-descriptions, unknown-description, not-found,
    ambiguous, bad-alias. `suggestion` is difflib's closest name; `known` the names that exist."""

    def __init__(self, message: str, kind: str, name: str, suggestion: str | None = None, known: Iterable[str] = ()):
        super().__init__(message)
        self.kind, self.name, self.suggestion, self.known = kind, name, suggestion, tuple(known)


def _listing(names: Iterable[str], limit: int = 20) -> str:
    names = list(names)
    shown = ", ".join(names[:limit])
    return shown + (f", … ({len(names) - limit} more)" if len(names) > limit else "")


def closest_name(name: str, names: Iterable[str]) -> str | None:
    """difflib's closest of `names` to `name`, else one that differs only in case; None if neither."""
    names = list(names)
    found = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    if not found:
        lowered = {n.lower(): n for n in names}
        found = [lowered[name.lower()]] if name.lower() in lowered else []
    return found[0] if found else None


def _hint(name: str, names: Iterable[str]) -> tuple[str, str | None]:
    suggestion = closest_name(name, names)
    return (f"; did you mean '{suggestion}'?" if suggestion else ""), suggestion


_SHAPE = re.compile(r"\s*([A-Za-z]+)\s+(/\S*)\s*")


def _shape(path: str) -> tuple[str, ...]:
    parts = path.rstrip("/").split("/")
    return tuple("{}" if re.fullmatch(r"\{[^{}]*\}", p) else p for p in parts)


def aliases_from_parameters(parameters: Mapping[str, object]) -> dict[str, dict[str, str]]:
    """`binding.NAME.alias.A` and `binding.alias.A` (= default) keys → {NAME: {A: target}}."""
    result: dict[str, dict[str, str]] = {}
    for key, value in parameters.items():
        value = getattr(value, "value", value)
        parts = key.split(".")
        if len(parts) >= 3 and parts[0] == "binding" and parts[1] == "alias":
            result.setdefault("default", {})[".".join(parts[2:])] = str(value)
        elif len(parts) >= 4 and parts[0] == "binding" and parts[2] == "alias":
            result.setdefault(parts[1], {})[".".join(parts[3:])] = str(value)
    return result


class Descriptions:
    """The descriptions of a run or scenario by name, `default` first."""

    def __init__(self, named: Mapping[str, LoadedDescription]):
        order = sorted(named, key=lambda n: (n != "default",))  # default first, others as given
        self._named = {name: named[name] for name in order}
        self._by_id: dict[str, dict[str, Operation]] = {}
        for name, description in self._named.items():
            ops: dict[str, Operation] = {}
            for op in description.operations:
                if op.id is not None and op.id not in ops:
                    ops[op.id] = op.with_source(name)
            self._by_id[name] = ops

    @property
    def names(self) -> list[str]:
        return list(self._named)

    def __getitem__(self, name: str) -> LoadedDescription:
        return self._named[name]

    def __contains__(self, name: object) -> bool:
        return name in self._named

    def __len__(self) -> int:
        return len(self._named)

    def operations(self, name: str | None = None) -> list[Operation]:
        """Every operation (of one description), each tagged with its description's name."""
        names = [name] if name else self.names
        return [op.with_source(n) for n in names for op in self._named[n].operations]

    def operation_ids(self, name: str | None = None) -> list[str]:
        names = [name] if name else self.names
        return sorted({i for n in names for i in self._by_id[n]})

    def find(
        self, ref: str, using: str | None = None, aliases: Mapping[str, Mapping[str, str]] | None = None
    ) -> Operation:
        """The operation `call [using NAME] ^ref` calls. Raises OperationLookupError."""
        name = ref[1:] if ref.startswith("^") else ref
        aliases = aliases or {}
        if not self._named:
            raise OperationLookupError(
                f"no OpenAPI description is loaded: set the 'openapi' parameter (or --openapi) to call ^{name}",
                "no-descriptions",
                name,
            )
        if using is not None:
            if using not in self._named:
                hint, suggestion = _hint(using, self.names)
                raise OperationLookupError(
                    f"no OpenAPI description named '{using}'{hint} (descriptions: {_listing(self.names)})",
                    "unknown-description",
                    using,
                    suggestion,
                    self.names,
                )
            op = self._by_id[using].get(name)
            if op is not None:
                return op
            target = aliases.get(using, {}).get(name)
            if target is not None:
                return self._alias(name, target, [using], f"binding.{using}.alias.{name}")
            ids = self.operation_ids(using)
            hint, suggestion = _hint(name, ids)
            raise OperationLookupError(
                f"operation '{name}' not found in OpenAPI description '{using}'{hint} "
                f"(operations there: {_listing(ids) or 'none'})",
                "not-found",
                name,
                suggestion,
                ids,
            )
        found = [self._by_id[n][name] for n in self.names if name in self._by_id[n]]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            where = [op.description_name for op in found]
            raise OperationLookupError(
                f"operation '{name}' is in several OpenAPI descriptions: {', '.join(where)}; "
                f"say which with 'using NAME ^{name}' (when: using NAME ^{name}, or call using NAME ^{name})",
                "ambiguous",
                name,
                None,
                where,
            )
        target = aliases.get("default", {}).get(name)
        if target is not None:
            return self._alias(name, target, self.names, f"binding.default.alias.{name}")
        ids = self.operation_ids()
        hint, suggestion = _hint(name, ids)
        raise OperationLookupError(
            f"operation '{name}' not found in the OpenAPI descriptions {', '.join(self.names)}{hint} "
            f"(operations: {_listing(ids) or 'none'})",
            "not-found",
            name,
            suggestion,
            ids,
        )

    def _alias(self, name: str, target: str, within: list[str], key: str) -> Operation:
        target = target.strip()
        if target.startswith("^"):
            real = target[1:]
            found = [self._by_id[n][real] for n in within if real in self._by_id[n]]
            if len(found) > 1:
                raise OperationLookupError(
                    f"alias '{name}' ({key}) names '^{real}', which is in several OpenAPI descriptions: "
                    f"{', '.join(op.description_name for op in found)}",
                    "ambiguous",
                    name,
                )
            if not found:
                ids = self.operation_ids(within[0] if len(within) == 1 else None)
                hint, suggestion = _hint(real, ids)
                raise OperationLookupError(
                    f"alias '{name}' ({key}) names '^{real}', which is not an operation{hint} "
                    f"(operations: {_listing(ids) or 'none'})",
                    "bad-alias",
                    name,
                    suggestion,
                    ids,
                )
            return found[0]
        match = _SHAPE.fullmatch(target)
        if match is None:
            raise OperationLookupError(
                f"alias '{name}' ({key}) has target '{target}'; expected '^operationId' or 'METHOD /path'",
                "bad-alias",
                name,
            )
        method, shape = match.group(1).upper(), _shape(match.group(2))
        found = [op for n in within for op in self.operations(n) if op.method == method and _shape(op.path) == shape]
        if len(found) == 1:
            return found[0]
        shapes = sorted({f"{op.method} {op.path}" for n in within for op in self.operations(n)})
        if not found:
            hint, suggestion = _hint(f"{method} {match.group(2)}", shapes)
            raise OperationLookupError(
                f"alias '{name}' ({key}) points to '{method} {match.group(2)}', which matches no operation{hint}",
                "bad-alias",
                name,
                suggestion,
                shapes,
            )
        raise OperationLookupError(
            f"alias '{name}' ({key}) points to '{method} {match.group(2)}', which matches several operations: "
            f"{', '.join(f'{op.label} in {op.description_name}' for op in found)}",
            "ambiguous",
            name,
        )
