"""The events an execution reports, in order. One stream feeds every consumer (the TUI stepper,
the headless runner, the reports), so each event carries what a consumer needs without
recomputing: nodes, effective parameters, stores, and snapshots of the visible variables.

Order of a run (indentation = nesting; `*` = repeated):

    RunStarted
      FileStarted
        FeatureStarted                  (for a feature item)
          ScopeCreated                  (a store -- the file's or a feature's own -- right before
                                         the first scenario that uses it starts)
          ScenarioStarted
            StepStarted                 (for each step run, includes already expanded)
              RequestSent, ResponseReceived        (when: steps)
              AssertionChecked                     (then: steps)
              VariableExtracted / VariableOverwritten (extract: steps)
            StepFinished                (passed / failed)
            StepFinished*               (status "skipped", NO StepStarted: steps after a failure)
          ScenarioFinished
          ScenarioFinished              (status "skipped", NO ScenarioStarted: not selected by tags)
          ScopeCleared                  (a feature's own store, when it was created)
        FeatureFinished
        ScenarioStarted ... ScenarioFinished       (standalone scenarios, in source order)
        ScopeCleared                    (the file store, when it was created)
      FileFinished
    RunFinished

Decisions:
- Every scenario of every file gets exactly one ScenarioFinished (unless the run is stopped
  before reaching it): counting ScenarioFinished.status gives the report's summary.
- Scenarios not selected by tags: ScenarioFinished(status="skipped", message="not selected by
  tags ...") without ScenarioStarted or step events.
- Steps not run because an earlier step failed: StepFinished(status="skipped") without
  StepStarted, one per remaining step, so reports can list every step run or skipped.
- `include:` steps get no events of their own; the fragment's steps do, with `via` naming the
  include steps they came through (outermost first).
- stop(): a request in flight is cancelled at once and its step finishes
  StepFinished(status="failed", message="interrupted"); the scenario's remaining steps get
  StepFinished(status="skipped", message="interrupted") (when stop() comes between steps, all
  remaining steps do, a step whose StepStarted was already pulled too: it never runs), then
  ScenarioFinished(message="interrupted"): status "failed" when a step was cut, "skipped" when
  stop() came between steps (nothing failed: a stop is not a failure); the open stores are cleared (ScopeCleared, FeatureFinished, FileFinished) and the stream ends with
  RunFinished(interrupted=True). Scenarios not reached get no events and are not counted.
- A file whose parameters cannot be resolved (an unreadable OpenAPI description) still runs its
  structure: each selected scenario starts, all its steps are skipped with the problem as message,
  and it finishes failed with that message.

Dicts inside events and snapshots are never mutated after the event is emitted (the executor
replaces a layer's dict when it writes), so consumers may keep them; treat them as read-only.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Final, Literal, Mapping

from scenario_core.language.nodes.base import Node, SourceLocation
from scenario_core.language.nodes.blocks import FeatureNode, ScenarioFileNode, ScenarioNode
from scenario_core.language.nodes.steps import IncludeStep, Step
from scenario_core.parameters.resolution import EffectiveParameters
from scenario_core.parameters.sharing import StoreRef
from scenario_core.run.phases import BACKGROUND_FEATURE as BACKGROUND_FEATURE  # re-exported, as the rest
from scenario_core.run.phases import BACKGROUND_FILE as BACKGROUND_FILE
from scenario_core.run.phases import SCENARIO as SCENARIO
from scenario_core.run.phases import PlannedStep as PlannedStep
from scenario_core.support.records import dataclass, fields

if TYPE_CHECKING:
    from scenario_core.support.json_types import JsonValue

# How a step or a scenario ended: a Literal, so mypy checks every comparison and assignment.
Status = Literal["passed", "failed", "skipped"]
PASSED: Final = "passed"
FAILED: Final = "failed"
SKIPPED: Final = "skipped"


@dataclass(slots=True)
class Counts:
    """How many scenarios ended each way. A run's and a file's totals count a scenario a stop
    cut short as skipped; the TUI counts it apart (`stopped`: a stop is not a failure)."""

    passed: int = 0
    failed: int = 0
    skipped: int = 0
    stopped: int = 0

    def add(self, status: Status) -> None:
        if status == PASSED:
            self.passed += 1
        elif status == FAILED:
            self.failed += 1
        else:
            self.skipped += 1

    def total(self) -> int:
        return self.passed + self.failed + self.skipped + self.stopped

    def merge(self, other: Counts) -> None:
        self.passed += other.passed
        self.failed += other.failed
        self.skipped += other.skipped
        self.stopped += other.stopped


# The message of a step or scenario that stop() cut or skipped (see stop() above).
INTERRUPTED = "interrupted"

# Step phases (in the order they run within a scenario) and the plan's steps live in run.phases,
# so `check`'s analysis can use them without creating every event class.

# Layer names used in VariableExtracted.layers / VariableOverwritten.layer / ScopeSnapshot.layer_of.
SCENARIO_LAYER, RUN_LAYER = "scenario", "run"


def store_label(store: StoreRef) -> str:
    """The layer name of a store: "file store" or "feature 'Pets'"."""
    return "file store" if store.feature is None else f"feature '{store.feature}'"


# ---------------------------------------------------------------- scopes


@dataclass(frozen=True, slots=True)
class Origin:
    """Which step last wrote a variable."""

    location: SourceLocation  # the extract: step's line
    scenario: str  # the scenario that was running
    feature: str | None
    phase: str  # BACKGROUND_FILE, BACKGROUND_FEATURE or SCENARIO

    def describe(self) -> str:
        where = f"scenario '{self.scenario}'"
        if self.phase != SCENARIO:
            where = f"{'file' if self.phase == BACKGROUND_FILE else 'feature'} background of {where}"
        return f"{where} (line {self.location.line})"


_NO_ORIGINS: Mapping[str, Origin] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class ScopeSnapshot:
    """The variables visible at one moment, by layer (innermost first), with who wrote each."""

    scenario: Mapping[str, object]
    store: StoreRef | None
    store_values: Mapping[str, object]
    run: Mapping[str, object]
    scenario_origins: Mapping[str, Origin] = _NO_ORIGINS  # (one shared, read-only: a snapshot is never changed)
    store_origins: Mapping[str, Origin] = _NO_ORIGINS

    def visible(self) -> dict[str, object]:
        """Every visible name -> value; the innermost layer wins."""
        if not self.store_values and not self.run:
            return dict(self.scenario)
        return {**self.run, **self.store_values, **self.scenario}

    def names(self) -> list[str]:
        """Visible names, sorted."""
        return sorted(set(self.scenario) | set(self.store_values) | set(self.run))

    def lookup(self, name: str) -> tuple[bool, object]:
        """(found, value), innermost first."""
        for layer in (self.scenario, self.store_values, self.run):
            if name in layer:
                return True, layer[name]
        return False, None

    def layer_of(self, name: str) -> str | None:
        """The layer a name's visible value comes from: "scenario", a store label, "run" or None."""
        if name in self.scenario:
            return SCENARIO_LAYER
        if name in self.store_values and self.store is not None:
            return store_label(self.store)
        if name in self.run:
            return RUN_LAYER
        return None

    def origin(self, name: str) -> Origin | None:
        """The step that last wrote the visible value (None for run variables / unknown)."""
        if name in self.scenario:
            return self.scenario_origins.get(name)
        if name in self.store_values:
            return self.store_origins.get(name)
        return None


# ---------------------------------------------------------------- events


def _brief(value: object) -> str:
    """A short form for reprs: syntax-tree nodes by kind, name and line, never the whole tree."""
    if isinstance(value, ScenarioFileNode):
        return f"<file {value.path}>"
    if isinstance(value, (FeatureNode, ScenarioNode)):
        return f"<{'feature' if isinstance(value, FeatureNode) else 'scenario'} {value.name!r} line {value.line}>"
    if isinstance(value, Node):
        keyword = getattr(value, "keyword", type(value).__name__)
        text = getattr(value, "text", "")
        return f"<{keyword}: {text} line {value.line}>" if text else f"<{keyword} line {value.line}>"
    if isinstance(value, EffectiveParameters):
        return "{" + ", ".join(f"{k}={v.value!r} ({v.source})" for k, v in value.items()) + "}"
    if isinstance(value, tuple) and value and isinstance(value[0], (Node, PlannedStep)):
        return f"<{len(value)} {'steps' if isinstance(value[0], PlannedStep) else 'nodes'}>"
    text = repr(value)
    return text if len(text) <= 300 else text[:299] + "…"


class Event:
    """Base of every event. Reprs are short (nodes by name and line) so that logs and test
    failure messages stay readable and printing an event never walks a whole syntax tree.

    The events are frozen, slotted, keyword-only records: a run builds ~10 a request, each with
    a named `__init__` (core/support/record_inits.py; 0.67 µs for a StepFinished, 0.93 µs with
    the generic one into an instance dict: docs/performance.md "Round seven")."""

    __slots__ = ()

    def __repr__(self) -> str:
        parts = ", ".join(f"{f.name}={_brief(getattr(self, f.name))}" for f in fields(self))
        return f"{type(self).__name__}({parts})"


@dataclass(frozen=True, slots=True, repr=False, kw_only=True)
class RunStarted(Event):
    files: tuple[ScenarioFileNode, ...]
    run_variables: Mapping[str, object]
    tags: frozenset[str] | None  # None: every scenario is selected


@dataclass(frozen=True, slots=True, repr=False, kw_only=True)
class FileStarted(Event):
    file: ScenarioFileNode
    parameters: EffectiveParameters  # the file node's effective values
    store: StoreRef | None  # the file store when the file-level values share, else None


@dataclass(frozen=True, slots=True, repr=False, kw_only=True)
class FeatureStarted(Event):
    file: ScenarioFileNode
    feature: FeatureNode
    parameters: EffectiveParameters
    store: StoreRef | None  # the store its scenarios use: own, file's, or None (isolated)


@dataclass(frozen=True, slots=True, repr=False, kw_only=True)
class ScopeCreated(Event):
    """A store comes into use (empty): the file store, or a feature's own store."""

    store: StoreRef


@dataclass(frozen=True, slots=True, repr=False, kw_only=True)
class ScopeCleared(Event):
    """A store is dropped: the file store at file end, a feature's own store at feature end."""

    store: StoreRef
    names: tuple[str, ...]  # the names it held, sorted


@dataclass(frozen=True, slots=True, repr=False, kw_only=True)
class ScenarioStarted(Event):
    file: ScenarioFileNode
    scenario: ScenarioNode
    feature: FeatureNode | None
    parameters: EffectiveParameters
    store: StoreRef | None  # None: isolated
    carried: tuple[str, ...]  # names visible from the store at start (sorted); () = starts fresh
    steps: tuple[PlannedStep, ...]  # the whole plan, so skipped steps can be shown up front
    snapshot: ScopeSnapshot

    @property
    def fresh(self) -> bool:
        return not self.carried


@dataclass(frozen=True, slots=True, repr=False, kw_only=True)
class StepStarted(Event):
    step: Step
    phase: str
    via: tuple[IncludeStep, ...]
    index: int
    snapshot: ScopeSnapshot  # what is visible before the step


@dataclass(frozen=True, slots=True, repr=False, kw_only=True)
class RequestSent(Event):
    step: Step
    method: str
    url: str  # final URL, query included
    headers: tuple[tuple[str, str], ...]  # as sent, after interpolation
    body: str | None  # request body text as sent, None when there is none
    operation: str | None = None  # an operation call: `getPetById (GET /pets/{petId})`
    placements: tuple[tuple[str, str, str], ...] = ()  # (child as written, where it went, as sent)
    summary: str = ""  # the operation's summary, as its description gives it


@dataclass(frozen=True, slots=True, repr=False, kw_only=True)
class ResponseReceived(Event):
    step: Step
    status: int
    reason: str
    headers: tuple[tuple[str, str], ...]
    body: str  # decoded text
    elapsed: float  # seconds, request start to body read
    json: JsonValue  # the parsed body; None when not JSON (see json_error) or JSON null
    json_error: str | None = None  # why the body is not JSON; None when it parsed

    @property
    def is_json(self) -> bool:
        return self.json_error is None

    def header(self, name: str) -> str | None:
        """A header's value (case-insensitive; repeated headers joined with ', ')."""
        lowered = name.lower()
        values = [v for k, v in self.headers if k.lower() == lowered]
        return ", ".join(values) if values else None


@dataclass(frozen=True, slots=True, repr=False, kw_only=True)
class AssertionChecked(Event):
    step: Step
    passed: bool
    expected: object
    actual: object
    message: str | None  # why it failed (None when passed)


@dataclass(frozen=True, slots=True, repr=False, kw_only=True)
class BranchTaken(Event):
    """An `if` chain decided: which branch runs (None: none holds and there is no else), and each
    condition tried with why it held or not."""

    step: Step
    branch: int | None
    tried: tuple[tuple[str, bool, str | None], ...]  # (condition as written, held, why not)


@dataclass(frozen=True, slots=True, repr=False, kw_only=True)
class AutoTestRan(Event):
    """One generated request of a call's `auto:` tests (docs/spec/berrycrush.md#auto-tests) and whether the unit's
    checks held for it; its RequestSent / ResponseReceived events come just before."""

    step: Step
    number: int  # 1-based, in generation order
    total: int
    kind: str  # invalid, security, multi
    test_type: str  # required, enum, SQL_INJECTION, SEQUENTIAL, …
    description: str
    passed: bool
    message: str | None


@dataclass(frozen=True, slots=True, repr=False, kw_only=True)
class VariableExtracted(Event):
    step: Step
    name: str
    value: object
    layers: tuple[str, ...]  # e.g. ("scenario",) or ("scenario", "feature 'Pets'") or ("scenario", "file store")


@dataclass(frozen=True, slots=True, repr=False, kw_only=True)
class VariableOverwritten(Event):
    """Emitted, before VariableExtracted, for each layer where the name already had a value."""

    step: Step
    name: str
    old: object
    new: object
    layer: str


@dataclass(frozen=True, slots=True, repr=False, kw_only=True)
class StepFinished(Event):
    step: Step
    phase: str
    via: tuple[IncludeStep, ...]
    index: int
    status: Status
    message: str | None  # why it failed or was skipped
    elapsed: float  # seconds (0 for skipped)
    snapshot: ScopeSnapshot  # what is visible after the step
    # An if chain's step that failed inside the branch taken (a `fail "…"`): where the failure is.
    failed_inside: Step | None = None
    interrupted: bool = False  # cut short by a stop, or skipped because of one (not a failure of the API's)


@dataclass(frozen=True, slots=True, repr=False, kw_only=True)
class ScenarioFinished(Event):
    file: ScenarioFileNode
    scenario: ScenarioNode
    feature: FeatureNode | None
    status: Status  # SKIPPED: not selected by tags, or stopped before it began
    message: str | None  # the failing step's message, prefixed with its line
    elapsed: float
    snapshot: ScopeSnapshot  # visible at the end: scenario layer, the store, run variables
    interrupted: bool = False  # a stop ended it (its message is INTERRUPTED): not the API's failure


@dataclass(frozen=True, slots=True, repr=False, kw_only=True)
class FeatureFinished(Event):
    file: ScenarioFileNode
    feature: FeatureNode
    store: StoreRef | None
    cleared: tuple[str, ...]  # names dropped with the feature's own store (sorted); () otherwise


@dataclass(frozen=True, slots=True, repr=False, kw_only=True)
class FileFinished(Event):
    file: ScenarioFileNode
    passed: int
    failed: int
    skipped: int
    cleared: tuple[str, ...]  # names dropped with the file store


@dataclass(frozen=True, slots=True, repr=False, kw_only=True)
class RunFinished(Event):
    passed: int
    failed: int
    skipped: int
    duration: float  # seconds
    interrupted: bool

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.skipped

    @property
    def ok(self) -> bool:
        return self.failed == 0 and not self.interrupted


@dataclass(frozen=True, slots=True, repr=False, kw_only=True)
class RequestRetried(Event):
    """A request is tried again (retry.maxAttempts): after its RequestSent, one per retry, before
    the step's ResponseReceived or failure. The executor emits them once the attempts are over."""

    step: Step
    attempt: int  # 1: the first retry
    reason: str  # `503 Service Unavailable`, `cannot connect to h: connection refused`
    delay_s: float  # the wait before this attempt


@dataclass(frozen=True, slots=True, repr=False, kw_only=True)
class WebhookCallsDropped(Event):
    """A webhook's scope (its scenario or feature) ended after one of its hooks dropped calls past
    the webhook's cap (run.webhooks: its newest MAX_CALLS_KEPT calls and MAX_BYTES_KEPT bytes are
    kept): one per such hook, before ScenarioFinished / FeatureFinished, so the output says once
    that calls were dropped instead of nothing."""

    name: str  # the webhook's NAME
    hook: str
    dropped: int  # its oldest calls, no longer kept
    received: int  # every call the hook received
    message: str  # `webhook srv: srv.h dropped its oldest 50 of 1050 calls (...)`
