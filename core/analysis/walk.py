"""The walk behind scope analysis: every scenario of a file in source order, each step it runs in
the order the run plans them (backgrounds, fragments in place, a described step's directives,
the branches of an `if`), tracking what is visible as a run would (docs/spec/scopes.md) -- but for
every run at once: a name is ALWAYS there, SOMETIMES (an earlier scenario may not have got that
far, only one branch of an `if` wrote it) or not at all.

One pass: the scenario layer is a small dict per scenario, a store is one dict shared by the
scenarios that use it, so the work is linear in the size of the expanded file.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Sequence

from scenario_core.language.nodes.assertions import (
    AllOf,
    AnyOf,
    Assertion,
    CustomAssertion,
    NotAssertion,
    VariableAssertion,
)
from scenario_core.language.nodes.base import JsonTemplate, SourceLocation, TextTemplate, VariableRef
from scenario_core.language.nodes.blocks import FeatureNode, FragmentNode, ScenarioFileNode, ScenarioNode
from scenario_core.language.nodes.steps import (
    MAX_INCLUDE_DEPTH,
    AssertStep,
    ConditionalStep,
    DescribedStep,
    ExtractStep,
    FailStep,
    IncludeStep,
    RequestStep,
    Step,
)
from scenario_core.language.nodes.walk import leaf_conditions
from scenario_core.parameters.sharing import StoreRef
from scenario_core.run.explain import via_text
from scenario_core.run.phases import BACKGROUND_FEATURE, BACKGROUND_FILE, SCENARIO
from scenario_core.support.records import dataclass

ALWAYS, SOMETIMES, NEVER = "always", "sometimes", "never"

# Where a step runs (events.BACKGROUND_FILE, ...) decides what an extract writes to. The walk
# expands includes itself rather than through run.plan.plan_scenario: building a plan per
# scenario was a third of check's time on a 50,000-line file.

# Keys of the scenario layer that are not variables: "a response exists", "a custom step ran"
# (its Python code may set any name with ctx.set).
RESPONSE, CUSTOM = "\0response", "\0custom"

# Heads of dotted names that are looked up elsewhere (core/lookup.py, auto tests): never variables.
NOT_VARIABLES = frozenset(("env", "param", "test", "multiTest"))

# How many of a store's writers a reference lists (a store written by thousands of scenarios
# would otherwise make every reference carry them all: quadratic).
MAX_WRITERS = 10


# Not frozen: a frozen dataclass pays a setattr per field, and a 50,000-line file makes ~40,000 of these.
@dataclass(slots=True)
class Write:
    """Something that made a name visible: an extract, an include argument, an outline cell."""

    location: SourceLocation
    how: str  # `extracted at line 14`, as explanations say it
    kind: str = "extract"  # extract, argument, cell, run, custom, request
    scenario: int = 0  # id() of the scenario that wrote it (store entries)
    label: str = ""  # `scenario 'create pet' (line 12)`, for store entries


@dataclass(slots=True)
class Seen:
    """One reference (or response need) in one place it runs."""

    ref: VariableRef | None  # None: a step's need of a response
    location: SourceLocation  # the reference's, or the step's (an if branch's) that needs a response
    step: Step
    scenario: ScenarioNode
    feature: FeatureNode | None
    store: StoreRef | None
    sequence: int  # position in the scenario's walk, for "later in this scenario"
    via: tuple[IncludeStep, ...]
    visibility: str
    writers: tuple[Write, ...]


class _Var:
    __slots__ = ("status", "writers")

    def __init__(self, status: str, writers: tuple[Write, ...]):
        self.status = status
        self.writers = writers


def _refs(template: TextTemplate | JsonTemplate | None) -> tuple[VariableRef, ...]:
    # most values hold no reference: a substring test spares building the tuple
    return template.refs if template is not None and "{{" in template.text else ()


def step_refs(step: Step) -> list[VariableRef]:
    """Every `{{NAME}}` a step reads when it runs (run.plan.step_refs, with locations);
    an `if`'s conditions are read by the walk itself, branch by branch."""
    # `type(step) is`: an exact, cheap test (this runs for every step of a file); mypy narrows on it
    if type(step) is RequestStep:
        found = list(_refs(step.url))
        for parameter in step.parameters:
            found += _refs(parameter.value)
            found += _refs(parameter.name_template)
        found += _refs(step.body_file)
        for entry in step.headers:
            found += _refs(entry.value)
        for query in step.query:
            found += _refs(query.value)
        found += _refs(step.body)
        found += _refs(step.body_raw)
        for field in (step.form or ()) + (step.multipart or ()):
            found += _refs(field.value)
        for template in step.name_templates:  # `call using {{spec}} {{op}}`, `raw {{method}} {{path}}`
            found += template.refs
        return found
    if type(step) is AssertStep:
        return condition_refs(step.assertion)
    if type(step) is FailStep:
        return list(step.message.refs)
    if type(step) is IncludeStep:
        return [r for argument in step.arguments for r in (*argument.value.refs, *_refs(argument.name_template))]
    if type(step) is DescribedStep and step.custom:
        return list(step.description.refs)
    return []


def condition_refs(condition: Assertion) -> list[VariableRef]:
    """Every {{NAME}} a condition reads, nested ones included: assertions.assertion_refs's rule,
    kept here so check need not import the assertion engine (and the event types it needs)."""
    if not isinstance(condition, (NotAssertion, AllOf, AnyOf, CustomAssertion, VariableAssertion)):
        return list(_refs(getattr(condition, "expected", None)))  # the usual simple assertion
    found: list[VariableRef] = []
    for node in leaf_conditions(condition):
        if isinstance(node, CustomAssertion):
            found += node.text.refs
            continue
        if isinstance(node, VariableAssertion):
            found.append(node.ref)
        found += _refs(getattr(node, "expected", None))
    return found


def needs_response(condition: Assertion) -> bool:
    """A condition on variables alone (`{{x}} equals 1`) needs no response; anything else does."""
    if not isinstance(condition, (NotAssertion, AllOf, AnyOf)):
        return type(condition) is not VariableAssertion
    return not all(isinstance(node, VariableAssertion) for node in leaf_conditions(condition))


class Walk:
    """Walks one file; `seen` receives every reference and response need, in walk order."""

    def __init__(
        self,
        file: ScenarioFileNode,
        run_variables: Iterable[str],
        store_of: Callable[[FeatureNode | None], StoreRef | None],
        seen: Callable[[Seen], None],
        webhooks: Iterable[str] = (),
    ):
        self.file = file
        self.run_variables = frozenset(run_variables)
        self.store_of = store_of
        self.seen = seen
        self.webhooks = frozenset(webhooks)  # names of the file's webhook: steps (their URLs are no variables)
        self.fragments: dict[str, FragmentNode] = {}  # by name, as file.fragment() finds them, without its scan
        for fragment in file.fragments:
            self.fragments.setdefault(fragment.name, fragment)
        self.stores: dict[StoreRef, dict[str, list[Write]]] = {}
        # id(scenario) -> its extracts in walk order: (sequence, step, via), for "extracted later"
        self.extracts: dict[int, list[tuple[int, ExtractStep, tuple[IncludeStep, ...]]]] = {}
        self._extracts: list[tuple[int, ExtractStep, tuple[IncludeStep, ...]]] = []
        self.names: set[str] = set()  # every name a step of a walked block reads (or describes)
        # requests with a relative path: (step, its URL, via, scenario, feature), for the baseUrl warning
        self.relative: list[
            tuple[RequestStep, TextTemplate, tuple[IncludeStep, ...], ScenarioNode, FeatureNode | None]
        ] = []
        self._sequence = 0
        # visible_at(): the step to look at (and whether after it runs), what was visible there
        self.probe: tuple[SourceLocation, bool] | None = None
        self.captured: list[dict[str, str]] = []

    # ------------------------------------------------------------ the file

    def run(self) -> None:
        for item in self.file.items:
            if isinstance(item, FeatureNode):
                store = self.store_of(item)
                for scenario in item.scenarios:
                    self.scenario(item, scenario, store)
                if store is not None and store.feature is not None:
                    self.stores.pop(store, None)  # cleared when the feature ends
            else:
                self.scenario(None, item, self.store_of(None))

    def scenario(self, feature: FeatureNode | None, scenario: ScenarioNode, store: StoreRef | None) -> None:
        layer: dict[str, _Var] = {}
        row = scenario.outline
        if row is not None:
            write = Write(
                scenario.location,
                f"a column of the examples of outline '{row.outline}' (row {row.row}, line {scenario.location.line})",
                "cell",
            )
            for name, _ in row.variables:
                layer[name] = _Var(ALWAYS, (write,))
        shared = self.stores.setdefault(store, {}) if store is not None else None
        self._extracts = self.extracts[id(scenario)] = []
        self._sequence = 0
        context = _Context(scenario, feature, store, shared)
        # as the run plans it: the file background, the feature's, then the scenario's own steps
        background = self.file.background
        for steps, phase in (
            (background.steps if background is not None else (), BACKGROUND_FILE),
            (
                feature.background.steps if feature is not None and feature.background is not None else (),
                BACKGROUND_FEATURE,
            ),
            (scenario.steps, SCENARIO),
        ):
            context.phase = phase
            for step in steps:
                self.step(step, layer, context, ())

    # ------------------------------------------------------------ steps

    def step(self, step: Step, layer: dict[str, _Var], context: "_Context", via: tuple[IncludeStep, ...]) -> None:
        """One step: its references first (as the executor checks them before running it), then
        what it makes visible; an include's fragment and a described step's directives in place."""
        self._sequence += 1
        probe, after = self.probe, False  # after: visible_at() looks after this step runs, not before
        if probe is not None and step.location == probe[0]:
            after = probe[1]
            if not after:
                self.capture(layer, context)
        for ref in step_refs(step):
            self.reference(ref, step, layer, context, via)
        self._effects(step, layer, context, via)
        if after:
            self.capture(layer, context)

    def capture(self, layer: dict[str, _Var], context: "_Context") -> None:
        """What a `{{` typed here could name: the scenario layer, the store's names that earlier
        scenarios wrote (sometimes), the run variables."""
        found = {
            name: SOMETIMES
            for name, writes in (context.shared or {}).items()
            if name != CUSTOM and _earlier(writes, id(context.scenario), 1)
        }
        found.update((name, ALWAYS) for name in self.run_variables)
        found.update(
            (name, var.status)
            for name, var in layer.items()
            if name[0] != "\0" and (var.status == ALWAYS or name not in found)
        )
        self.captured.append(found)

    def _effects(self, step: Step, layer: dict[str, _Var], context: "_Context", via: tuple[IncludeStep, ...]) -> None:
        """What a step makes visible (or runs in its place)."""
        if isinstance(step, RequestStep):
            if step.url is not None and step.operation is None and relative(step.url.text):
                self.relative.append((step, step.url, via, context.scenario, context.feature))
            layer[RESPONSE] = _Var(ALWAYS, (Write(step.location, f"the request at line {step.line}", "request"),))
        elif isinstance(step, (AssertStep, ExtractStep)):
            if isinstance(step, ExtractStep) or needs_response(step.assertion):
                self.response(step, layer, context, via)
            if isinstance(step, ExtractStep):
                self.extract(step, layer, context, via)
        elif isinstance(step, IncludeStep):
            self.include(step, layer, context, via)
        elif isinstance(step, ConditionalStep):
            self.conditional(step, layer, context, via)
        elif isinstance(step, DescribedStep):
            if step.custom:
                write = Write(step.location, f"the custom step '{step.text}' (line {step.line}) may set it", "custom")
                layer[CUSTOM] = _Var(ALWAYS, (write,))
                if context.shared is not None and context.phase == SCENARIO:
                    self._store_write(context.shared, context.scenario, CUSTOM, write)
            else:
                self.names.update(r.name for r in _refs(step.description))
                for inner in step.steps:
                    self.step(inner, layer, context, via)

    def include(
        self, step: IncludeStep, layer: dict[str, _Var], context: "_Context", via: tuple[IncludeStep, ...]
    ) -> None:
        if step.arguments:  # bound for the fragment; names new to the scenario stay afterwards
            write = Write(step.location, f"an argument of include '{step.fragment}' (line {step.line})", "argument")
            for argument in step.arguments:
                if argument.name_template is None:  # a {{NAME}}-chosen name is known at run time only
                    layer[argument.name] = _Var(ALWAYS, (write,))
        if len(via) >= MAX_INCLUDE_DEPTH:  # check refuses deeper ones; never loop on a cycle
            return
        fragment = self.fragments.get(step.fragment)
        if fragment is not None:
            for inner in fragment.steps:
                self.step(inner, layer, context, via + (step,))

    def conditional(
        self, step: ConditionalStep, layer: dict[str, _Var], context: "_Context", via: tuple[IncludeStep, ...]
    ) -> None:
        outcomes: list[dict[str, _Var]] = []
        for branch in step.branches:
            if branch.condition is not None:
                for ref in condition_refs(branch.condition):
                    self.reference(ref, step, layer, context, via)
                if needs_response(branch.condition):
                    self.response(step, layer, context, via, branch.location)
            inner = dict(layer)
            for child in branch.steps:
                self.step(child, inner, context, via)
            outcomes.append(inner)
        if step.branches[-1].condition is not None:
            outcomes.append(layer)  # no branch taken
        merged: dict[str, _Var] = {}
        for outcome in outcomes:
            for name, var in outcome.items():
                found = merged.get(name)
                if found is None:
                    merged[name] = _Var(var.status, var.writers)
                else:
                    found.writers = found.writers + tuple(w for w in var.writers if w not in found.writers)
        for name, var in merged.items():
            if not all(name in o and o[name].status == ALWAYS for o in outcomes):
                var.status = SOMETIMES
        layer.clear()
        layer.update(merged)

    def extract(
        self, step: ExtractStep, layer: dict[str, _Var], context: "_Context", via: tuple[IncludeStep, ...]
    ) -> None:
        self._extracts.append((self._sequence, step, via))
        if context.phase == BACKGROUND_FILE:
            how = f"extracted by the file background (line {step.line}{via_text(via)})"
        elif context.phase == BACKGROUND_FEATURE and context.feature is not None:
            how = f"extracted by the background of feature '{context.feature.name}' (line {step.line}{via_text(via)})"
        else:
            how = f"extracted at line {step.line}{via_text(via)}"
        write = Write(step.location, how)
        layer[step.name] = _Var(ALWAYS, (write,))
        if context.shared is not None and context.phase == SCENARIO:  # backgrounds never write a store
            self._store_write(context.shared, context.scenario, step.name, write)

    def _store_write(self, shared: dict[str, list[Write]], scenario: ScenarioNode, name: str, write: Write) -> None:
        entry = Write(
            write.location, write.how, write.kind, id(scenario), f"scenario '{scenario.name}' (line {scenario.line})"
        )
        shared.setdefault(name, []).append(entry)

    # ------------------------------------------------------------ what a step reads

    def visibility(self, name: str, layer: dict[str, _Var], context: "_Context") -> tuple[str, tuple[Write, ...]]:
        var = layer.get(name)
        if var is not None and var.status == ALWAYS:
            return ALWAYS, var.writers
        if name in self.run_variables:
            return ALWAYS, (Write(context.scenario.location, "a run variable (--var or --variables-file)", "run"),)
        writers = var.writers if var is not None else ()
        if context.shared:
            writers += _earlier(context.shared.get(name, ()), id(context.scenario), MAX_WRITERS)
        if not writers:
            custom = layer.get(CUSTOM)
            if custom is not None:
                writers = custom.writers
            elif context.shared:
                writers = _earlier(context.shared.get(CUSTOM, ()), id(context.scenario), 1)
        return (SOMETIMES if writers else NEVER), writers

    def is_variable(self, name: str) -> bool:
        """Not env.X, param.KEY, an auto test's test.* or a webhook's URL (core/lookup.py)."""
        head = name.split(".", 1)[0].split("[", 1)[0] if "." in name or "[" in name else name
        return not (head != name and head in NOT_VARIABLES or head in self.webhooks)

    def reference(
        self, ref: VariableRef, step: Step, layer: dict[str, _Var], context: "_Context", via: tuple[IncludeStep, ...]
    ) -> None:
        self.names.add(ref.name)
        if not self.is_variable(ref.name):
            return
        visibility, writers = self.visibility(ref.name, layer, context)
        self.seen(
            Seen(
                ref,
                ref.location,
                step,
                context.scenario,
                context.feature,
                context.store,
                self._sequence,
                via,
                visibility,
                writers,
            )
        )

    def response(
        self,
        step: Step,
        layer: dict[str, _Var],
        context: "_Context",
        via: tuple[IncludeStep, ...],
        where: SourceLocation | None = None,
    ) -> None:
        var = layer.get(RESPONSE)
        visibility = NEVER if var is None else var.status
        if visibility == ALWAYS and not via:
            return  # only a fragment's step needs every place it runs (to tell which one lacks it)
        self.seen(
            Seen(
                None,
                where or step.location,
                step,
                context.scenario,
                context.feature,
                context.store,
                self._sequence,
                via,
                visibility,
                var.writers if var is not None else (),
            )
        )


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")  # as http_client.join_url tells absolute URLs


def relative(url: str) -> bool:
    """A path joined to baseUrl; a leading {{x}} may hold a whole URL: no verdict there."""
    text = url.strip()
    return not text.startswith("{{") and _SCHEME.match(text) is None


class _Context:
    __slots__ = ("scenario", "feature", "store", "shared", "phase")

    def __init__(
        self,
        scenario: ScenarioNode,
        feature: FeatureNode | None,
        store: StoreRef | None,
        shared: dict[str, list[Write]] | None,
    ):
        self.scenario, self.feature, self.store, self.shared = scenario, feature, store, shared
        self.phase = SCENARIO


def _earlier(writes: Sequence[Write], scenario: int, limit: int) -> tuple[Write, ...]:
    """The last `limit` store writes made by scenarios other than this one (its own come last),
    in file order; stops early so a long-lived store costs each reference O(limit)."""
    found: list[Write] = []
    for write in reversed(writes):
        if write.scenario != scenario:
            found.append(write)
            if len(found) == limit:
                break
    return tuple(reversed(found))
