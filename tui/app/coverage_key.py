"""`C`: the OpenAPI coverage of the TUI's run, as `run --coverage` collects it
(docs/spec/cli.md#coverage).

A CoverageTap sits between the stepper and the run controller: every event the stepper hands on
reaches the coverage collector first, so the widgets and the rest of the run are untouched. A
new run (RunStarted: a restart, `o`, a reload) starts a fresh coverage, as a new `run` would.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from scenario_core.run import events as ev

if TYPE_CHECKING:
    from scenario_core.parameters.descriptions import DescriptionSet
    from scenario_core.report.coverage import Coverage
    from scenario_core.report.coverage_collector import CoverageCollector
    from scenario_core.run.stepper import StepRun


class CoverageTap:
    """Feeds a CoverageCollector every event of the run, then hands the event on."""

    def __init__(self, descriptions: DescriptionSet, forward: Callable[[ev.Event, StepRun | None], None]) -> None:
        self._descriptions = descriptions  # the stepper's: read once per session, as the run reads them
        self._forward = forward
        self._collector: CoverageCollector | None = None

    def __call__(self, event: ev.Event, run: StepRun | None) -> None:
        if isinstance(event, ev.RunStarted):
            from scenario_core.report.coverage_collector import CoverageCollector

            self._collector = CoverageCollector(self._descriptions)
        if self._collector is not None:
            self._collector.feed(event)
        self._forward(event, run)

    @property
    def coverage(self) -> Coverage | None:
        """None before the first run starts."""
        return self._collector.coverage if self._collector is not None else None
