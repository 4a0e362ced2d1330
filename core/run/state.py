"""What a run carries while it runs: per file (the effective parameters resolved once per level,
the plans, the file store, each scenario's record, the explainer) and per scenario (its scope, the
last response and operation, the running step and its failure). The executor creates them; the
step modules read and write them. A fault inside a step becomes that step's one-line failure.
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Mapping

from scenario_core.language.nodes.blocks import FeatureNode, ScenarioFileNode, ScenarioNode
from scenario_core.language.nodes.steps import Step
from scenario_core.language.parameter_keys import OPENAPI
from scenario_core.parameters.resolution import EffectiveParameters, ParameterError, RunOverrides, resolve_parameters
from scenario_core.run.events import Counts, PlannedStep, ResponseReceived
from scenario_core.run.explain import Explainer, ScenarioRecord
from scenario_core.run.plan import plan_scenario
from scenario_core.run.scopes import Scope, Store
from scenario_core.support.records import dataclass

if TYPE_CHECKING:  # the OpenAPI layer is imported only by runs that call operations
    from scenario_core.openapi.operations import Operation


def one_line(error: BaseException) -> str:
    """A fault as a step's failure message: its type and its text on one line."""
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def internal_error(error: BaseException) -> str:
    """A fault of ours caught in a step: said as ours, never as the user's step failing."""
    return f"internal error: {one_line(error)} (a bug in scenario-tui)"


class FailureKind(Enum):
    """Why a scenario did not pass, as the engine branches on it."""

    SETUP = "setup"  # it could not start: its parameters, or an error local to it
    STEP = "step"  # a step failed: a check, a request, an extraction, `fail`, a custom step
    INTERRUPTED = "interrupted"  # a stop cut a running step short
    STOPPED = "stopped"  # a stop came between steps: nothing failed
    INTERNAL = "internal"  # a bug of ours, caught in a step


@dataclass(frozen=True, slots=True)
class Failure:
    kind: FailureKind
    message: str
    line: int | None


class FileRun:
    """Per-file state: effective parameters (resolved once per level), plans, stores, records."""

    def __init__(self, file: ScenarioFileNode, overrides: RunOverrides):
        self.file = file
        self.overrides = overrides
        self._params: dict[int, tuple[EffectiveParameters, str | None]] = {}
        self._plans: dict[int, tuple[PlannedStep, ...]] = {}
        self.records: dict[int, ScenarioRecord] = {}
        self.file_store: Store | None = None
        self.counts = Counts()
        self._explainer: Explainer | None = None

    def params(
        self, feature: FeatureNode | None, scenario: ScenarioNode | None = None
    ) -> tuple[EffectiveParameters, str | None]:
        """The effective parameters of a feature's scenarios (None: the file's) -- of `scenario`
        alone when it has its own parameters: block -- and a problem that stops them from running
        (an unreadable OpenAPI description, an unset {{env.NAME}})."""
        own = scenario if scenario is not None and scenario.parameters is not None else None
        key = id(own) if own is not None else id(feature)
        found = self._params.get(key)
        if found is None:
            found = self._params[key] = self._resolve(feature, own)
        return found

    def _resolve(self, feature: FeatureNode | None, own: ScenarioNode | None) -> tuple[EffectiveParameters, str | None]:
        overrides = self.overrides
        try:
            return resolve_parameters(self.file, feature, overrides, own), None
        except ParameterError as error:  # the value falls back to its next level; the scenarios fail
            return _partial(error), error.message
        except Exception as error:  # OpenApiError, or anything odd: the scenarios fail, the run goes on
            fallback = RunOverrides({**overrides.values, OPENAPI: None})
            try:
                return resolve_parameters(self.file, feature, fallback, own), " ".join(str(error).split())
            except ParameterError as also:
                return _partial(also), " ".join(str(error).split())

    def plan(self, feature: FeatureNode | None, scenario: ScenarioNode) -> tuple[PlannedStep, ...]:
        found = self._plans.get(id(scenario))
        if found is None:
            found = self._plans[id(scenario)] = plan_scenario(self.file, feature, scenario)
        return found

    def explainer(self) -> Explainer:
        if self._explainer is None:
            self._explainer = Explainer(
                self.file, self.file.scenarios_in_order(), self.plan, lambda f: self.params(f)[0], self.records
            )
        return self._explainer


def _partial(error: ParameterError) -> EffectiveParameters:
    # resolve_parameters raises ParameterError with what it resolved so far (never None)
    assert error.partial is not None
    return error.partial


class ScenarioState:
    """What one running scenario carries from step to step."""

    __slots__ = (
        "run",
        "scenario",
        "feature",
        "feature_name",
        "params",
        "store",
        "record",
        "scope",
        "response",
        "operation",
        "planned",
        "message",
        "failed_inside",
        "interrupted",
        "internal",
        "webhooks_started",
        "plan",
        "consumed",
        "overlay",
    )

    # The running step: set before each step runs, so every step module may read it.
    planned: PlannedStep

    def __init__(
        self,
        run: FileRun,
        scenario: ScenarioNode,
        feature: FeatureNode | None,
        params: EffectiveParameters,
        store: Store | None,
        record: ScenarioRecord,
        scope: Scope,
        plan: tuple[PlannedStep, ...],
    ):
        self.run, self.scenario, self.feature, self.params = run, scenario, feature, params
        self.feature_name = feature.name if feature is not None else None
        self.store, self.record, self.scope = store, record, scope
        self.response: ResponseReceived | None = None
        self.operation: Operation | None = None  # of the last request: what `then: schema` checks against
        self.message: str | None = None  # the running step's failure
        # The step of an if branch that failed (a `fail "…"`): the failure is told at its line, not the if's.
        self.failed_inside: Step | None = None
        self.interrupted = False  # the running step's request was cut short by a stop
        self.internal = False  # the running step's failure is a bug of ours (internal_error)
        self.webhooks_started = False
        self.plan = plan
        self.consumed: set[int] = set()  # plan indexes an auto-test call already ran for each request
        self.overlay: Mapping[str, object] | None = None  # test.* variables while an auto test's checks run
