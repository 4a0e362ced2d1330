"""Feeding `Coverage` from the event stream (see coverage.py for what is counted and why)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from scenario_core.language.parameter_keys import BASE_URL
from scenario_core.openapi.operations import Operation
from scenario_core.parameters.descriptions import (
    SHARED,
    DescriptionSet,
    aliases,
    description_paths,
    operation_base_url,
)
from scenario_core.parameters.resolution import EffectiveParameters
from scenario_core.report.coverage import (
    Coverage,
    DescriptionCoverage,
    OperationCoverage,
    operation_counts,
    record_request,
    record_response,
    shown_path,
    template_pattern,
    url_path,
)
from scenario_core.run import events as ev
from scenario_core.run.consumers import EventConsumer

if TYPE_CHECKING:
    from scenario_core.language.nodes.steps import OperationRef


class OperationsInForce:
    """One set of descriptions in force: its operations, their counts and how to match a path."""

    def __init__(self, coverage: Coverage, params: EffectiveParameters, path: str, descriptions_set: DescriptionSet):
        self.descriptions = descriptions_set.for_parameters(params, path)
        self.aliases = aliases(params)
        self.entries: dict[tuple[str, str, str], tuple[Operation, OperationCoverage]] = {}  # (name, method, path)
        # method, base path, path pattern, the operation and its counts
        self.routes: list[tuple[str, str, re.Pattern[str], Operation, OperationCoverage]] = []
        self.calls: dict[int, tuple[object, tuple[Operation, OperationCoverage] | None]] = {}
        self.matched: dict[tuple[str, str, bool], tuple[Operation, OperationCoverage] | None] = {}
        for name in self.descriptions.names:
            loaded = self.descriptions[name]
            shown = shown_path(loaded.path)
            target = coverage.descriptions.setdefault(shown, DescriptionCoverage(shown, loaded.title))
            base_path: str | None = None
            for operation in loaded.operations:
                key = f"{operation.method} {operation.path}"
                counts = target.operations.get(key)
                if counts is None:
                    counts = target.operations[key] = operation_counts(operation)
                self.entries[(name, operation.method, operation.path)] = (operation, counts)
                if base_path is None:
                    base = operation_base_url(operation.with_source(name), params, self.descriptions)
                    base_path = url_path(base).rstrip("/") if base else ""
                self.routes.append((operation.method, base_path, template_pattern(operation.path), operation, counts))

    def called(self, step: object, ref: OperationRef) -> tuple[Operation, OperationCoverage] | None:
        """The operation an `^op` call step calls, `ref` being its operation (looked up once per step)."""
        key = id(step)
        if key in self.calls:
            return self.calls[key][1]
        try:
            found = self.descriptions.find(ref.operation_id, ref.using, self.aliases)
        except Exception:  # the run reported the lookup failure; nothing was counted
            result = None
        else:
            result = self.entries.get((found.description_name, found.method, found.path))
        self.calls[key] = (step, result)  # the step is kept so its id() is not reused
        return result

    def requested(self, method: str, url: str, relative: bool = False) -> tuple[Operation, OperationCoverage] | None:
        """The operation a plain request reaches: same method, path matching its template below
        the operation's base path (`relative`: a path as written, to be joined to the base URL).
        Literal paths win over templated ones (`/pets/mine` over `/pets/{id}`), as OpenAPI
        routes them."""
        path = url_path(url)
        if not path.startswith("/"):
            path = "/" + path
        key = (method, path, relative)
        if key in self.matched:
            return self.matched[key]
        best: tuple[Operation, OperationCoverage] | None = None
        for route_method, base_path, pattern, operation, counts in self.routes:
            if route_method != method:
                continue
            if not relative:
                if not path.startswith(base_path):
                    continue
                below = path[len(base_path) :] or "/"
            else:
                below = path
            if pattern.fullmatch(below):
                if best is None or best[0].path.count("{") > operation.path.count("{"):
                    best = (operation, counts)
        self.matched[key] = best
        return best


# What decides a context: its descriptions (name, path) and its base URL settings (key, value).
ContextKey = tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]


def context_key(params: EffectiveParameters, scenario_file: str) -> ContextKey:
    """What decides the operations in force and where they live: the description paths and
    every base URL setting. Scenarios that agree share one context."""
    bases = tuple((k, str(params[k].value)) for k in params if k == BASE_URL or k.endswith(".baseUrl"))
    return tuple(sorted(description_paths(params, scenario_file).items())), bases


class CoverageCollector(EventConsumer):
    """Feed it every event of a run (`feed`); read `coverage` at the end."""

    def __init__(self, descriptions: DescriptionSet | None = None) -> None:
        self.coverage = Coverage()
        self._descriptions = descriptions or SHARED
        self._contexts: dict[ContextKey, OperationsInForce | None] = {}
        self._context: OperationsInForce | None = None
        # requests of the running step awaiting their response: (operation, counts, auto)
        self._pending: list[tuple[Operation, OperationCoverage, bool]] = []

    def _response(self, event: ev.ResponseReceived) -> None:
        if self._pending:
            operation, counts, auto = self._pending.pop(0)
            record_response(counts, operation, event.status, auto)

    def _step_boundary(self, event: ev.StepStarted | ev.StepFinished) -> None:
        self._pending.clear()

    def _scenario(self, event: ev.ScenarioStarted) -> None:
        key = context_key(event.parameters, event.file.path)
        if key not in self._contexts:
            try:
                self._contexts[key] = OperationsInForce(
                    self.coverage, event.parameters, event.file.path, self._descriptions
                )
            except Exception:  # no readable description: nothing to cover (the run says why)
                self._contexts[key] = None
        self._context = self._contexts[key]

    def _request(self, event: ev.RequestSent) -> None:
        context = self._context
        if context is None:
            return
        step = event.step
        ref = getattr(step, "operation", None)
        # a call whose names a {{NAME}} chose, like a request by path, is found by what was sent
        if ref is not None and not ref.dynamic:
            found = context.called(step, ref)
        else:
            found = context.requested(event.method, event.url)
        if found is None:
            return
        operation, counts = found
        auto = bool(getattr(step, "auto", ())) and ref is not None
        if auto:
            counts.auto += 1
        else:
            record_request(counts, operation, event)
        self._pending.append((operation, counts, auto))


CoverageCollector.receivers = {
    ev.RequestSent: CoverageCollector._request,
    ev.ResponseReceived: CoverageCollector._response,
    ev.StepStarted: CoverageCollector._step_boundary,
    ev.StepFinished: CoverageCollector._step_boundary,
    ev.ScenarioStarted: CoverageCollector._scenario,
}
