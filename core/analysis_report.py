"""Turning the walk (analysis_walk.py) into scope analysis's answer: one Reference per `{{NAME}}`
of the file, and the warnings, each one located line with a stable code (scope_analysis.py).

A step inside a fragment (or an outline) runs in several places; its findings are merged: a
reference never visible in every place it runs gets one warning, one never visible in only some
of them gets one warning per such place, naming the include that brings it there.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable

from .errors import WARNING, Diagnostic
from .explain import Explainer, later_in_scenario, nowhere
from .analysis_checks import duplicate_scenarios, unused_fragments, unused_variables
from .analysis_walk import ALWAYS, NEVER, SOMETIMES, Seen, Walk
from .nodes import (
    AssertStep, ConditionalStep, ExtractStep, FeatureNode, RequestStep, ScenarioFileNode, ScenarioNode,
    SourceLocation, walk_steps,
)
from .parameters import OPENAPI as OPENAPI_KEY
from .resolution import EffectiveParameters, ParameterError, RunOverrides, resolve_parameters
from .scope_analysis import NEVER_VISIBLE, NO_BASE_URL, NO_RESPONSE, Analysis, Reference
from .sharing import StoreRef, store_for


class Report:
    def __init__(self, file: ScenarioFileNode, overrides: RunOverrides, run_variables: Iterable[str]):
        self.file = file
        self.overrides = overrides
        self.run_variables = tuple(run_variables)
        self._params: dict[int, EffectiveParameters | None] = {}
        self._plans: dict[int, tuple] = {}
        self._explainer: Explainer | None = None
        self.seen: dict[tuple, list[Seen]] = {}  # (code, location, name) -> every place it runs
        self.diagnostics: dict[tuple, Diagnostic] = {}  # deduplicated by (location, message)

    # ------------------------------------------------------------ what the run would use

    def params(self, feature: FeatureNode | None, scenario: ScenarioNode | None = None) -> EffectiveParameters | None:
        own = scenario if scenario is not None and scenario.parameters is not None else None
        key = id(own) if own is not None else id(feature)
        if key not in self._params:
            try:
                found = resolve_parameters(self.file, feature, self.overrides, own)
            except ParameterError as error:  # reported by check as an error; go on with what resolved
                found = error.partial
            except Exception:  # an unreadable OpenAPI description: check reports it; no baseUrl verdict
                found = None
            self._params[key] = found
        return self._params[key]

    def store_of(self, feature: FeatureNode | None) -> StoreRef | None:
        params = self.params(feature)
        if params is None:
            overrides = RunOverrides({**self.overrides.values, OPENAPI_KEY: None})
            try:
                params = resolve_parameters(self.file, feature, overrides)
            except ParameterError as error:
                params = error.partial
        return store_for(params, feature.line if feature is not None else None) if params is not None else None

    def plan(self, feature: FeatureNode | None, scenario: ScenarioNode) -> tuple:
        found = self._plans.get(id(scenario))
        if found is None:
            from .executor import plan_scenario

            found = self._plans[id(scenario)] = plan_scenario(self.file, feature, scenario)
        return found

    def scenarios(self) -> list[tuple[ScenarioNode, FeatureNode | None]]:
        found: list[tuple[ScenarioNode, FeatureNode | None]] = []
        for item in self.file.items:
            if isinstance(item, FeatureNode):
                found += [(s, item) for s in item.scenarios]
            else:
                found.append((item, None))
        return found

    def explainer(self) -> Explainer:
        if self._explainer is None:
            def parameters(feature: FeatureNode | None) -> EffectiveParameters:
                found = self.params(feature)
                if found is None:
                    found = resolve_parameters(self.file, feature, RunOverrides({**self.overrides.values, OPENAPI_KEY: None}))
                return found

            self._explainer = Explainer(self.file, self.scenarios(), self.plan, parameters, {})
        return self._explainer

    # ------------------------------------------------------------ the answer

    def analysis(self) -> Analysis:
        walk = Walk(self.file, self.run_variables, self.plan, self.store_of, self._note)
        walk.run()
        references: list[Reference] = []
        for key, places in self.seen.items():
            if key[0] == NEVER_VISIBLE:
                references.append(self._reference(places, walk))
            else:
                self._no_response(places)
        self._base_urls()
        for diagnostic in duplicate_scenarios(self.file) + unused_fragments(self.file) + unused_variables(self.file):
            self._add(diagnostic)
        references.sort(key=lambda r: (r.location.file != self.file.path, r.location.line, r.location.column))
        diagnostics = sorted(self.diagnostics.values(), key=lambda d: (
            d.location.file != self.file.path, d.location.line, d.location.column))
        return Analysis(references, diagnostics)

    def _note(self, seen: Seen) -> None:
        loc = seen.location
        key = (NEVER_VISIBLE if seen.ref is not None else NO_RESPONSE, loc.file, loc.line, loc.column,
               seen.ref.name if seen.ref is not None else "")
        self.seen.setdefault(key, []).append(seen)

    def _add(self, diagnostic: Diagnostic) -> None:
        self.diagnostics.setdefault((diagnostic.location, diagnostic.message), diagnostic)

    def _warn(self, places: list[Seen], code: str, message_of) -> None:
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
            if location.file != self.file.path and place.via:  # a fragment file: shown at its include here
                message += f" (in fragment '{place.via[-1].fragment}', {Path(location.file).name} line {location.line})"
                location = place.via[0].location
            self._add(Diagnostic(location, message, WARNING, code))

    # ------------------------------------------------------------ references

    def _reference(self, places: list[Seen], walk: Walk) -> Reference:
        first = places[0]
        name = first.ref.name
        statuses = {p.visibility for p in places}
        visibility = next(iter(statuses)) if len(statuses) == 1 else SOMETIMES
        writers: list[SourceLocation] = []
        for place in places:
            writers += [w.location for w in place.writers if w.kind != "run" and w.location not in writers]
        if len(statuses) == 1:
            explanation = self._never(first, walk) if visibility == NEVER else self._whence(first)
        else:  # a fragment (or outline) step that runs in places that differ
            shown = next(p for p in places if p.visibility != ALWAYS)
            explanation = self._whence(shown) if shown.visibility == SOMETIMES else self._never(shown, walk)
            explanation = f"not the same everywhere it runs: {explanation}"
        self._warn(places, NEVER_VISIBLE, lambda p: f"'{name}' is never visible here: {self._never(p, walk)}")
        return Reference(name, _name_span(first.ref.location, name), visibility, tuple(writers), explanation,
                         first.step.location)

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
        return (f"{last.how} by {last.label}, into {_store_name(place.store)}: "
                "visible only if that scenario got that far")

    def _never(self, place: Seen, walk: Walk) -> str:
        """Why a name is never visible here: the run's own explanation (explain.py), with what
        only a static view knows (a later step of an `if`, another branch)."""
        name = place.ref.name
        sites = [(sequence, step, via) for sequence, step, via in walk.extracts.get(id(place.scenario), ())
                 if step.name == name]
        later = [s for s in sites if s[0] >= place.sequence]
        if later:
            reason = later_in_scenario(name, later[0][1].line, later[0][2])
        elif sites:
            reason = f"'{name}' is extracted at line {sites[-1][1].line}, in another branch of an if than this step."
        else:
            try:
                reason = self.explainer().reason(name, place.scenario, place.feature, place.index, place.store)
            except Exception:  # an explanation must never turn a warning into a crash
                reason = ""
        if not reason or reason == nowhere(name):
            return f"no step in this file extracts '{name}'; pass it with --var {name}=..."
        return reason.rstrip(".")

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
        message = (f"{what} has no response to {verb}: no request comes before it in this scenario, "
                   "its backgrounds or the fragments it includes")
        self._warn(places, NO_RESPONSE, lambda p: message)

    # ------------------------------------------------------------ baseUrl

    def _base_urls(self) -> None:
        for scenario, feature in self.scenarios():
            relative = [p for p in self.plan(feature, scenario) for s in walk_steps((p.step,))
                        if isinstance(s, RequestStep) and s.operation is None and s.url is not None
                        and _relative(s.url.text)]
            if not relative:
                continue
            params = self.params(feature, scenario)
            if params is None or params.base_url is not None:
                continue
            because = self._no_base_url(params, feature, scenario)
            for planned in relative:
                for step in walk_steps((planned.step,)):
                    if isinstance(step, RequestStep) and step.url is not None and _relative(step.url.text):
                        location = step.url.location if step.location.file == self.file.path else planned.via[0].location
                        self._add(Diagnostic(location, f"relative path '{step.url.text}' has no baseUrl to join: {because}",
                                             WARNING, NO_BASE_URL))

    def _no_base_url(self, params: EffectiveParameters, feature: FeatureNode | None, scenario: ScenarioNode) -> str:
        """The resolution that gave none, level by level (semantics.md §2)."""
        levels = ["--base-url"]
        if scenario.parameters is not None:
            levels.append(f"scenario '{scenario.outline.outline if scenario.outline else scenario.name}' "
                          f"parameters (line {scenario.parameters.line})")
        if feature is not None and feature.parameters is not None:
            levels.append(f"feature '{feature.name}' parameters (line {feature.parameters.line})")
        if self.file.parameters is not None:
            levels.append(f"the file's parameters (line {self.file.parameters.line})")
        else:
            levels.append("a file parameters: block")
        openapi = params.get(OPENAPI_KEY)
        if openapi is not None and openapi.value:
            spec = f"the OpenAPI description {Path(str(openapi.value)).name} has no servers"
        else:
            spec = "no OpenAPI description is named"
        sets = "sets" if len(levels) > 1 else "set"
        return (f"none of {', '.join(levels[:-1])} or {levels[-1]} {sets} baseUrl, and {spec}; "
                "set baseUrl in parameters: or pass --base-url")


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")  # as http_client.join_url tells absolute URLs


def _relative(url: str) -> bool:
    text = url.strip()
    # a leading {{x}} may hold a whole URL: not a verdict analysis can give
    return not text.startswith("{{") and _SCHEME.match(text) is None


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

