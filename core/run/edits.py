"""Edit and continue (docs/spec/scopes.md#editing-while-paused): while a run is paused, the user sets, changes or deletes a
variable in one layer of what the paused scenario sees, and the change is an event of its own
(`VariableEdited`), which the scope log shows as an edit ("edited by you").

Which layers may be edited, by docs/spec/scopes.md#editing-while-paused:
- **this scenario** (`scenario`): always. It is the innermost layer, so a value set here is the
  one the scenario's next steps read, even where a store or `--var` has the name too.
- **the sharing store** (`file store` or `feature 'F'`), when one applies: the value is shared
  as an extract's would be — the scenarios that share the store after this one see it; the
  store is cleared at its feature's (or the file's) end as always. A value of the same name in
  this scenario's layer still wins here: the event says so (`shadowed_by`).
- **run variables** (`--var`): read-only (docs/spec/scopes.md#run-variables). To try another value, set the name in this
  scenario's layer, which overrides it for this scenario only.
- **parameters** (`{{param.KEY}}`, `{{env.NAME}}`) are not variables: they are fixed before a
  scenario starts (docs/spec/parameters.md#references-in-values), so they cannot be edited.

A value is read as `--var` reads one: JSON when it parses as JSON (`7`, `true`, `[1, 2]`,
`"7"`), otherwise the text as typed.
"""

from __future__ import annotations

from scenario_core.language.nodes.steps import Step
from scenario_core.language.templates import NAME
from scenario_core.parameters.run_inputs import NumberTooLong, variable_value
from scenario_core.run.events import RUN_LAYER, SCENARIO_LAYER, Event, Origin, ScopeSnapshot
from scenario_core.run.scopes import DELETED, Scope
from scenario_core.support.records import dataclass

SET, CHANGED, REMOVED = "set", "changed", "deleted"  # VariableEdited.action
EDITED_BY = "you"  # who edits: the scope log says "edited by you"


class EditError(ValueError):
    """An edit that cannot be made, said in one line."""


@dataclass(frozen=True, slots=True)
class EditOrigin(Origin):
    """The origin of a value the user set while paused: the step the run was paused at."""

    edited = True  # (a plain Origin has no such attribute: getattr(origin, "edited", False))

    def describe(self) -> str:
        return f"edited by {EDITED_BY} while paused at line {self.location.line} of scenario '{self.scenario}'"


@dataclass(frozen=True, slots=True, repr=False)
class VariableEdited(Event):
    """The user set, changed or deleted a variable in one layer while the run was paused."""

    step: Step | None  # the step the run was paused at (before it, or after it)
    name: str
    layer: str  # "scenario" or a store's label
    action: str  # SET (new in that layer), CHANGED or REMOVED
    old: object  # the value the layer held (None when SET)
    new: object  # the value set (None when REMOVED)
    shadowed_by: str | None  # an inner layer whose value of the name still wins, or None
    snapshot: ScopeSnapshot  # what the scenario sees after the edit
    by: str = EDITED_BY


@dataclass(frozen=True, slots=True)
class EditableLayer:
    """A layer the paused scenario sees, as the edit dialog lists it."""

    label: str  # "scenario", "file store", "feature 'Pets'", "run"
    editable: bool
    why_not: str | None  # why it cannot be edited
    names: tuple[str, ...]  # the names it holds, sorted


RUN_READ_ONLY = "run variables (--var) are read-only: set the name in this scenario's layer to override it"


def layers_of(scope: Scope) -> list[EditableLayer]:
    """The layers `scope` sees, innermost first."""
    layers = [EditableLayer(SCENARIO_LAYER, True, None, tuple(sorted(scope.values)))]
    if scope.store is not None:
        layers.append(EditableLayer(scope.store.label, True, None, scope.store.names()))
    layers.append(EditableLayer(RUN_LAYER, False, RUN_READ_ONLY, tuple(sorted(scope.run))))
    return layers


def parse_value(raw: str) -> object:
    """A typed value, as `--var` reads it."""
    try:
        return variable_value(raw)
    except NumberTooLong:
        raise EditError("the number has too many digits to be read: quote it to keep it as text") from None


def edit_variable(
    scope: Scope, layer: str, name: str, value: object, origin: Origin, step: Step | None
) -> VariableEdited:
    """Set `name` to `value` in `layer` of `scope` (DELETED: remove it there). EditError when the
    layer is not one the scope may edit, the name is not a variable name, or a deleted name is
    not in that layer."""
    _check_name(name)
    layers = {entry.label: entry for entry in layers_of(scope)}
    entry = layers.get(layer)
    if entry is None:
        raise EditError(f"no layer '{layer}' here; the paused scenario sees: {', '.join(layers)}")
    if not entry.editable:
        raise EditError(entry.why_not or f"the {layer} layer is read-only")
    deleting = value is DELETED
    if deleting and name not in entry.names:
        held = [label for label, other in layers.items() if name in other.names]
        where = f"; it is in: {', '.join(held)}" if held else "; no layer holds it"
        raise EditError(f"'{name}' is not in the {layer} layer{where}")
    had, old = scope.edit(layer, name, value, None if deleting else origin)
    shadowed_by = SCENARIO_LAYER if layer != SCENARIO_LAYER and name in scope.values else None
    action = REMOVED if deleting else (CHANGED if had else SET)
    return VariableEdited(
        step,
        name,
        layer,
        action,
        old if had else None,
        None if deleting else value,
        shadowed_by,
        scope.snapshot(),
    )


def _check_name(name: str) -> None:
    if not name:
        raise EditError("a variable needs a name")
    head = name.split(".", 1)[0]
    if "." in name and head in ("param", "env"):
        raise EditError(f"'{name}' is a parameter, not a variable: parameters are fixed before a scenario starts")
    if NAME.fullmatch(name) is None:
        raise EditError(f"'{name[:60]}' is not a variable name (letters, digits and _, not starting with a digit)")
