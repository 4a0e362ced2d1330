"""The state of the run on view: what the run controller (run_controller.py) drives and the run's
events (run_events.py) show. RunController owns one `RunState` for the app's life (reloads and
restarts start it over, in place) and hands it to its RunEvents; both read and write its fields,
which are declared and given their first values here only."""

from __future__ import annotations

from dataclasses import dataclass, field

from scenario_core.language.nodes.blocks import ScenarioNode
from scenario_core.run import events as ev
from scenario_core.run.stepper import StepRun
from scenario_tui.widgets.tree_items import Key


@dataclass(eq=False)
class RunState:
    """A run as it has gone so far. The dicts are cleared in place: History holds `records`."""

    # What ran: each step's record under its tree key (and the keys of where it is written),
    # each scenario's outcome, the statuses of each feature's scenarios.
    records: dict[Key, StepRun] = field(default_factory=dict)
    scenario_results: dict[Key, ev.ScenarioFinished] = field(default_factory=dict)
    feature_results: dict[Key, list[str]] = field(default_factory=dict)
    # Breakpoints: the nodes the last step run was inside (None: worked out from `bp_last`
    # when needed), and that step's keys with the scenarios started since.
    bp_previous: set[Key] | None = field(default_factory=set)
    bp_last: tuple[list[Key | None], list[Key]] = field(default_factory=lambda: ([], []))
    counts: ev.Counts = field(default_factory=ev.Counts)  # a stop is not a failure: counted apart
    run_seconds: float = 0.0  # time spent pulling events: a pause does not count
    stopped_at: int | None = None  # the line of the step the run was stopped at
    run_to: Key | None = None  # `g`: pause just before this step
    reached: bool = False  # the last pause is where `g` ran to
    only: ScenarioNode | None = None  # `o`: the scenario the current run is limited to
    file_changed: bool = False  # saved on disk while a run was active: R reloads
    # The scopes the Variables panel shows: the scenario running, its latest snapshot, the
    # names the last step changed, and when the store on view was cleared since (and what).
    scenario: ev.ScenarioStarted | None = None
    snapshot: ev.ScopeSnapshot | None = None
    changed: frozenset[str] = frozenset()
    cleared: str = ""

    def start_over(self) -> None:
        """A new run: nothing has run yet (`only` and `reached` are the controller's to set; the
        scopes on view are cleared apart, see RunEvents.reset_views)."""
        self.records.clear()
        self.scenario_results.clear()
        self.feature_results.clear()
        self.bp_previous = set()
        self.counts = ev.Counts()
        self.run_seconds = 0.0
        self.stopped_at = None
        self.run_to = None
        self.file_changed = False

    def clear_scopes(self) -> None:
        """Nothing on view in the Variables panel."""
        self.scenario = None
        self.snapshot = None
        self.cleared = ""
        self.changed = frozenset()
