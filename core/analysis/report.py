"""Turning the walk (analysis_walk.py) into scope analysis's answer: one Reference per `{{NAME}}`
of the file, and the warnings, each one located line with a stable code (scope_analysis.py).

A step inside a fragment (or an outline) runs in several places; its findings are merged: a
reference never visible in every place it runs gets one warning, one never visible in only some
of them gets one warning per such place, naming the include that brings it there.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Final, Iterable, Literal

from scenario_core.analysis.auto_test_names import unset_auto_test_names
from scenario_core.analysis.checks import duplicate_scenarios, file_index, unused_fragments, unused_variables
from scenario_core.analysis.model import NEVER_VISIBLE, NO_BASE_URL, NO_RESPONSE, Analysis, Reference
from scenario_core.analysis.walk import ALWAYS, NEVER, SOMETIMES, Seen, Walk, condition_refs, step_refs
from scenario_core.language.errors import WARNING, Diagnostic
from scenario_core.language.nodes.base import SourceLocation, VariableRef
from scenario_core.language.nodes.blocks import FeatureNode, ScenarioFileNode, ScenarioNode
from scenario_core.language.nodes.steps import AssertStep, ConditionalStep, ExtractStep
from scenario_core.language.nodes.walk import walk_steps
from scenario_core.language.parameter_keys import BASE_URL, SHARE
from scenario_core.language.parameter_keys import OPENAPI as OPENAPI_KEY
from scenario_core.parameters.resolution import EffectiveParameters, ParameterError, RunOverrides, resolve_parameters
from scenario_core.parameters.sharing import StoreRef, store_for

if TYPE_CHECKING:  # imported when first needed (explainer())
    from scenario_core.run.explain import Explainer
    from scenario_core.run.phases import PlannedStep


class _Unknown(Enum):
    """_quick_store's answer when a level's value needs resolving."""

    UNKNOWN = 0


_UNKNOWN: Final = _Unknown.UNKNOWN
# ("ref" or "response", file, line, column, name): a reference (or a response need) in the file
_SeenKey = tuple[str, str, int, int, str]


class Report:
    def __init__(self, file: ScenarioFileNode, overrides: RunOverrides, run_variables: Iterable[str]):
        self.file = file
        self.overrides = overrides
        self.run_variables = tuple(run_variables)
        self._params: dict[int, EffectiveParameters | None] = {}
        self._plans: dict[int, tuple[PlannedStep, ...]] = {}
        self._explainer: Explainer | None = None  # once a name is never visible
        self._names: set[str] | None = None
        self._scenarios: list[tuple[ScenarioNode, FeatureNode | None]] | None = None
        self._cell_names: set[str] | None = None
        self._closest: dict[str, str | None] = {}  # did you mean: one answer per name, not per reference
        # ("ref" or "response", where, name) -> every place that reference (or response need) runs
        self.seen: dict[_SeenKey, list[Seen]] = {}
        self.diagnostics: dict[tuple[SourceLocation, str], Diagnostic] = {}  # deduplicated by (location, message)
        self.anchors: dict[Diagnostic, SourceLocation] = {}  # the step (scenario, fragment) each is about

    # ------------------------------------------------------------ what the run would use

    def params(self, feature: FeatureNode | None, scenario: ScenarioNode | None = None) -> EffectiveParameters | None:
        own = scenario if scenario is not None and scenario.parameters is not None else None
        key = id(own) if own is not None else id(feature)
        if key not in self._params:
            found: EffectiveParameters | None
            try:
                found = resolve_parameters(self.file, feature, self.overrides, own)
            except ParameterError as error:  # reported by check as an error; go on with what resolved
                found = error.partial
            except Exception:  # an unreadable OpenAPI description: check reports it; no baseUrl verdict
                found = None
            self._params[key] = found
        return self._params[key]

    def store_of(self, feature: FeatureNode | None) -> StoreRef | None:
        quick = self._quick_store(feature)
        if quick is not _UNKNOWN:
            return quick
        params = self.params(feature)
        if params is None:
            overrides = RunOverrides({**self.overrides.values, OPENAPI_KEY: None})
            try:
                params = resolve_parameters(self.file, feature, overrides)
            except ParameterError as error:
                params = error.partial
        return store_for(params, feature.line if feature is not None else None) if params is not None else None

    def _quick_store(self, feature: FeatureNode | None) -> StoreRef | None | Literal[_Unknown.UNKNOWN]:
        """store_for's answer read straight off the levels when each is a plain true / false (what
        resolving a feature's every key would say, at a fraction of the cost: resolution was a
        third of the analysis of a file of many features); _UNKNOWN when a value needs resolving."""
        if SHARE in self.overrides.values:
            value = self.overrides.values[SHARE]
            return (StoreRef(None) if value else None) if isinstance(value, bool) else _UNKNOWN
        # (a level's parameters, the feature that owns them: None for the file's)
        levels = ((feature.parameters if feature is not None else None, feature), (self.file.parameters, None))
        for block, owner in levels:
            entry = block.get(SHARE) if block is not None else None
            if entry is not None:
                if not isinstance(entry.value, bool):
                    return _UNKNOWN
                if not entry.value:
                    return None
                return StoreRef(owner.name, owner.line) if owner is not None else StoreRef(None)
        return None  # the default: false

    def _base_url_set(self, feature: FeatureNode | None, scenario: ScenarioNode) -> bool:
        """Whether a level sets baseUrl: then it has one (a value is an absolute URL, or an error
        check reports), and nothing needs resolving."""
        blocks = (self.file.parameters, feature.parameters if feature is not None else None, scenario.parameters)
        return BASE_URL in self.overrides.values or any(b is not None and b.get(BASE_URL) is not None for b in blocks)

    def plan(self, feature: FeatureNode | None, scenario: ScenarioNode) -> tuple[PlannedStep, ...]:
        found = self._plans.get(id(scenario))
        if found is None:
            from scenario_core.run.plan import plan_scenario

            found = self._plans[id(scenario)] = plan_scenario(self.file, feature, scenario)
        return found

    def scenarios(self) -> list[tuple[ScenarioNode, FeatureNode | None]]:
        if self._scenarios is None:  # asked once per reference: listed once per file
            self._scenarios = self.file.scenarios_in_order()
        return self._scenarios

    def explainer(self) -> Explainer:
        """The run's explainer (explain.py), over the run's plans: imported only when needed."""
        if self._explainer is None:
            from scenario_core.run.explain import Explainer

            def parameters(feature: FeatureNode | None) -> EffectiveParameters:
                found = self.params(feature)
                if found is None:
                    found = resolve_parameters(
                        self.file, feature, RunOverrides({**self.overrides.values, OPENAPI_KEY: None})
                    )
                return found

            self._explainer = Explainer(self.file, self.scenarios(), self.plan, parameters, {})
        return self._explainer

    # ------------------------------------------------------------ the answer

    def analysis(self) -> Analysis:
        webhooks, reached, includes = file_index(self.file)
        walk = Walk(self.file, self.run_variables, self.store_of, self._note, webhooks)
        walk.run()
        references: list[Reference] = []
        for places in self.seen.values():
            ref = places[0].ref  # a reference's places all have it (_note's key), a response need's none
            if ref is not None:
                references.append(self._reference(ref, places, walk))
            else:
                self._no_response(places)
        references += self._not_run(walk, reached)
        self._base_urls(walk)
        extracts = [step for sites in walk.extracts.values() for _, step, _ in sites]
        for diagnostic in (
            duplicate_scenarios(self.file)
            + unused_fragments(self.file, reached, includes)
            + unused_variables(self.file, walk.names, extracts, reached)
            + unset_auto_test_names(self.file)
        ):
            self._add(diagnostic, diagnostic.location)
        references.sort(key=lambda r: (r.location.file != self.file.path, r.location.line, r.location.column))
        diagnostics = sorted(
            self.diagnostics.values(),
            key=lambda d: (d.location.file != self.file.path, d.location.line, d.location.column),
        )
        return Analysis(references, diagnostics, self.anchors)

    def _note(self, seen: Seen) -> None:
        loc = seen.location
        key = (
            "ref" if seen.ref is not None else "response",
            loc.file,
            loc.line,
            loc.column,
            seen.ref.name if seen.ref is not None else "",
        )
        self.seen.setdefault(key, []).append(seen)

    def _add(self, diagnostic: Diagnostic, anchor: SourceLocation) -> None:
        if self.diagnostics.setdefault((diagnostic.location, diagnostic.message), diagnostic) is diagnostic:
            self.anchors[diagnostic] = anchor

    def _warn(self, places: list[Seen], code: str, message_of: Callable[[Seen], str]) -> None:
        """One warning when every place is bad (or the step is not in a fragment), else one per
        bad place naming its include."""
        bad = [p for p in places if p.visibility == NEVER]
        if not bad:
            return
        everywhere = len(bad) == len(places)
        for place in bad:
            message = message_of(place)
            if place.via and not everywhere:
                include = place.via[0]
                message += f" (when scenario '{place.scenario.name}' includes it at line {include.line})"
            location = _name_span(place.location, place.ref.name) if place.ref is not None else place.location
            anchor = place.step.location
            if location.file != self.file.path and place.via:  # a fragment file: shown at its include here
                message += f" (in fragment '{place.via[-1].fragment}', {Path(location.file).name} line {location.line})"
                location = anchor = place.via[0].location
            self._add(Diagnostic(location, message, WARNING, code), anchor)

    # ------------------------------------------------------------ references

    def _reference(self, ref: VariableRef, places: list[Seen], walk: Walk) -> Reference:
        first = places[0]
        name = ref.name
        statuses = {p.visibility for p in places}
        visibility = next(iter(statuses)) if len(statuses) == 1 else SOMETIMES
        writers: list[SourceLocation] = []
        for place in places:
            writers += [w.location for w in place.writers if w.kind != "run" and w.location not in writers]
        if len(statuses) == 1:
            explanation = self._never(name, first, walk) if visibility == NEVER else self._whence(first)
        else:  # a fragment (or outline) step that runs in places that differ
            shown = next(p for p in places if p.visibility != ALWAYS)
            explanation = self._whence(shown) if shown.visibility == SOMETIMES else self._never(name, shown, walk)
            explanation = f"not the same everywhere it runs: {explanation}"
        self._warn(places, NEVER_VISIBLE, lambda p: f"'{name}' is never visible here: {self._never(name, p, walk)}")
        return Reference(
            name, _name_span(ref.location, name), visibility, tuple(writers), explanation, first.step.location
        )

    def _not_run(self, walk: Walk, reached: set[str]) -> list[Reference]:
        """The references of this file's fragments that nothing includes (warned once, as a fragment)."""
        found = []
        for fragment in self.file.fragments:
            if fragment.name in reached or fragment.location.file != self.file.path:
                continue
            for step in walk_steps(fragment.steps):
                refs = step_refs(step)
                if isinstance(step, ConditionalStep):
                    refs += [r for b in step.branches if b.condition is not None for r in condition_refs(b.condition)]
                found += [
                    Reference(
                        r.name,
                        _name_span(r.location, r.name),
                        NEVER,
                        (),
                        f"fragment '{fragment.name}' is never included: this step never runs",
                        step.location,
                    )
                    for r in refs
                    if walk.is_variable(r.name)
                ]
        return found

    def _whence(self, place: Seen) -> str:
        """Where a visible name comes from, in one line."""
        writers = place.writers
        if place.visibility == ALWAYS:
            return writers[-1].how
        own = [w for w in writers if not w.label]
        if own and own[-1].kind == "custom":
            return own[-1].how
        if own:
            return f"{own[-1].how}, only in some branches of an if before it"
        last = writers[-1]
        if last.kind == "custom":
            return f"{last.how} ({last.label}, {_store_name(place.store)})"
        return (
            f"{last.how} by {last.label}, into {_store_name(place.store)}: visible only if that scenario got that far"
        )

    def _extracted(self, walk: Walk) -> set[str]:
        """Every name an extract of the file's scenarios or fragments writes."""
        if self._names is None:
            self._names = {step.name for sites in walk.extracts.values() for _, step, _ in sites}
            self._names.update(
                s.name for f in self.file.fragments for s in walk_steps(f.steps) if isinstance(s, ExtractStep)
            )
        return self._names

    def _never(self, name: str, place: Seen, walk: Walk) -> str:
        """Why a name is never visible here: the run's own explanation (explain.py), with what
        only a static view knows (a later step of an `if`, another branch)."""
        from scenario_core.run.explain import did_you_mean, later_in_scenario, nowhere

        sites = [
            (sequence, step, via)
            for sequence, step, via in walk.extracts.get(id(place.scenario), ())
            if step.name == name
        ]
        later = [s for s in sites if s[0] >= place.sequence]
        if later:
            reason = later_in_scenario(name, later[0][1].line, later[0][2])
        elif sites:
            reason = f"'{name}' is extracted at line {sites[-1][1].line}, in another branch of an if than this step."
        elif name not in self._extracted(walk):  # the explainer would say so, after planning every scenario
            reason = ""
        else:
            try:
                # the same scenario's sites are told above: the plan index the run passes is moot
                reason = self.explainer().reason(name, place.scenario, place.feature, 0, place.store)
            except Exception:  # an explanation must never turn a warning into a crash
                reason = ""
        if not reason or reason == nowhere(name):
            if name not in self._closest:
                self._closest[name] = did_you_mean(name, [*self._extracted(walk), *self.run_variables, *self._cells()])
            close = self._closest[name]
            lead = f"did you mean '{close}'? " if close else ""
            return f"{lead}no step in this file extracts '{name}'; pass it with --var {name}=..."
        return reason.rstrip(".")

    def _cells(self) -> set[str]:
        """The names of every outline's examples columns."""
        if self._cell_names is None:
            self._cell_names = {
                cell for scenario, _ in self.scenarios() if scenario.outline for cell, _ in scenario.outline.variables
            }
        return self._cell_names

    # ------------------------------------------------------------ steps without a response

    def _no_response(self, places: list[Seen]) -> None:
        step = places[0].step
        if isinstance(step, ConditionalStep):
            what, verb = "if", "check"
        elif isinstance(step, ExtractStep):
            what, verb = ("extract" if step.arrow or step.keyword != "extract" else "extract:"), "read"
        elif isinstance(step, AssertStep):
            what, verb = ("then:" if step.keyword == "then" else step.keyword), "check"
        else:
            what, verb = step.keyword, "check"
        message = (
            f"{what} has no response to {verb}: no request comes before it in this scenario, "
            "its backgrounds or the fragments it includes"
        )
        self._warn(places, NO_RESPONSE, lambda p: message)

    # ------------------------------------------------------------ baseUrl

    def _base_urls(self, walk: Walk) -> None:
        """One warning per file, at its first request with a relative path and no baseUrl,
        counting the others: every one of them has the same fix."""
        found: list[tuple[SourceLocation, SourceLocation, str, EffectiveParameters]] = []
        for step, url, via, scenario, feature in walk.relative:
            if self._base_url_set(feature, scenario):
                continue
            params = self.params(feature, scenario)
            if params is None or params.base_url is not None:
                continue
            location = url.location if step.location.file == self.file.path else via[0].location
            found.append((location, step.location if location is url.location else location, url.text, params))
        if not found:
            return
        places = {(loc.line, loc.column) for loc, *_ in found}
        location, anchor, path, params = min(found, key=lambda f: (f[0].file != self.file.path, f[0].line, f[0].column))
        others = len(places) - 1
        more = f" (nor do {others} more request{'s' if others > 1 else ''} in this file)" if others else ""
        openapi = params.get(OPENAPI_KEY)
        servers = (
            f" (the OpenAPI description {Path(str(openapi.value)).name} has no servers)"
            if openapi is not None and openapi.value
            else ""
        )
        message = (
            f"relative path '{path}' has no baseUrl to join{more}: "
            f"set baseUrl in parameters: or pass --base-url{servers}"
        )
        self._add(Diagnostic(location, message, WARNING, NO_BASE_URL), anchor)


def _store_name(store: StoreRef | None) -> str:
    if store is None:
        return "no store"
    return "the file store" if store.feature is None else f"the store of feature '{store.feature}'"


def _name_span(location: SourceLocation, name: str) -> SourceLocation:
    """NAME's own span inside `{{ NAME }}` (spaces around it split evenly, as written by hand)."""
    if location.line != location.end_line:
        return location
    padding = location.end_column - location.column - 4 - len(name)
    if padding < 0:
        return location
    start = location.column + 2 + padding // 2
    return SourceLocation(location.file, location.line, start, location.line, start + len(name))
