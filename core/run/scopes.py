"""Variable scopes of a running scenario (docs/spec/scopes.md): the scenario layer, the sharing store
that applies (if any) and the read-only run variables, looked up innermost first.

Every layer's dict is replaced, never mutated, when written (copy on write). Writes are rare
(one per extract) and reads and snapshots are frequent (two per step), so a snapshot is just
references to the current dicts: consumers may keep it while the run goes on.
"""

from __future__ import annotations

from typing import Mapping

from scenario_core.language.nodes.steps import Step
from scenario_core.parameters.sharing import StoreRef
from scenario_core.run.events import (
    SCENARIO_LAYER,
    Event,
    Origin,
    ScopeSnapshot,
    VariableExtracted,
    VariableOverwritten,
    store_label,
)

DELETED = object()  # Scope.edit: remove the name from the layer

# What an include's arguments replaced (Scope.bind): name -> (old value, its origin), None when new.
Saved = dict[str, "tuple[object, Origin | None] | None"]


class Store:
    """A sharing store: the file's, or a feature's own. Lives across the scenarios that share it."""

    __slots__ = ("ref", "label", "values", "origins")

    def __init__(self, ref: StoreRef):
        self.ref = ref
        self.label = store_label(ref)
        self.values: dict[str, object] = {}
        self.origins: dict[str, Origin] = {}

    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self.values))


class Scope:
    """What one scenario sees. Created when the scenario starts, dropped when it ends."""

    __slots__ = ("values", "origins", "store", "run", "_visible", "_snapshot")

    def __init__(
        self,
        store: Store | None,
        run: Mapping[str, object],
        values: Mapping[str, object] | None = None,
        origins: Mapping[str, Origin] | None = None,
    ):
        # `values`: what the scenario layer starts with (an outline row's cells).
        self.values: dict[str, object] = dict(values or {})
        self.origins: dict[str, Origin] = dict(origins or {})
        self.store = store
        self.run = run
        self._visible: Mapping[str, object] | None = None
        self._snapshot: ScopeSnapshot | None = None

    def visible(self) -> Mapping[str, object]:
        """Every visible name -> value, innermost winning; cached until the next write."""
        visible = self._visible
        if visible is None:
            store = self.store.values if self.store is not None else None
            if not store and not self.run:
                visible = self.values
            else:
                visible = {**self.run, **(store or {}), **self.values}
            self._visible = visible
        return visible

    def snapshot(self) -> ScopeSnapshot:
        snapshot = self._snapshot
        if snapshot is None:
            store = self.store
            snapshot = ScopeSnapshot(
                self.values,
                store.ref if store is not None else None,
                store.values if store is not None else {},
                self.run,
                self.origins,
                store.origins if store is not None else {},
            )
            self._snapshot = snapshot
        return snapshot

    def carried(self) -> tuple[str, ...]:
        """Names the store brings into this scenario."""
        return self.store.names() if self.store is not None else ()

    def bind(self, step: Step, values: Mapping[str, object], origin: Origin) -> tuple[list[Event], Saved]:
        """Arguments of an include: scenario-layer variables while the fragment runs (never written
        to a store). Returns the events and what to restore: old values, or None for new names."""
        events: list[Event] = []
        saved: Saved = {}
        for name, value in values.items():
            saved[name] = (self.values[name], self.origins.get(name)) if name in self.values else None
            events += self.extract(step, name, value, origin, write_store=False)
        return events, saved

    def restore(self, saved: Saved) -> None:
        """Undo `bind`: names that existed get their old values back; new names stay (BerryCrush's
        rule, docs/spec/scopes.md#fragments-run-in-place)."""
        values, origins = dict(self.values), dict(self.origins)
        for name, old in saved.items():
            if old is not None:
                values[name] = old[0]
                if old[1] is not None:
                    origins[name] = old[1]
        self.values, self.origins = values, origins
        self._visible = None
        self._snapshot = None

    def extract(self, step: Step, name: str, value: object, origin: Origin, write_store: bool) -> list[Event]:
        """Write `name` into the scenario layer and, when `write_store` and a store applies, into the
        store at once (write-through). Returns the VariableOverwritten / VariableExtracted events."""
        events: list[Event] = []
        if name in self.values:
            events.append(
                VariableOverwritten(step=step, name=name, old=self.values[name], new=value, layer=SCENARIO_LAYER)
            )
        self.values = {**self.values, name: value}
        self.origins = {**self.origins, name: origin}
        layers: tuple[str, ...] = (SCENARIO_LAYER,)
        store = self.store
        if write_store and store is not None:
            if name in store.values:
                events.append(
                    VariableOverwritten(step=step, name=name, old=store.values[name], new=value, layer=store.label)
                )
            store.values = {**store.values, name: value}
            store.origins = {**store.origins, name: origin}
            layers = (SCENARIO_LAYER, store.label)
        events.append(VariableExtracted(step=step, name=name, value=value, layers=layers))
        self._visible = None
        self._snapshot = None
        return events

    def edit(self, layer: str, name: str, value: object, origin: Origin | None) -> tuple[bool, object]:
        """Edit and continue: set `name` in one layer only — this scenario's (SCENARIO_LAYER) or
        the store's (its label) — or delete it there when `value` is DELETED; copy on write, as
        `extract`. Returns (whether the layer held the name, its old value). The caller
        (run.edits) has checked the layer and the name."""
        store = self.store
        in_store = store is not None and layer == store.label
        values = store.values if in_store and store is not None else self.values
        origins = store.origins if in_store and store is not None else self.origins
        had, old = name in values, values.get(name)
        values, origins = dict(values), dict(origins)
        if value is DELETED:
            values.pop(name, None)
            origins.pop(name, None)
        else:
            values[name] = value
            if origin is not None:
                origins[name] = origin
        if in_store and store is not None:
            store.values, store.origins = values, origins
        else:
            self.values, self.origins = values, origins
        self._visible = None
        self._snapshot = None
        return had, old
