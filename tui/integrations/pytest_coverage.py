"""`pytest --scenario-coverage`: OpenAPI coverage of the .scenario files a session ran, printed in
the terminal summary. Each file's run feeds its own collector (pytest_plugin's _FileRun); at the
session's end they are merged. Under pytest-xdist each worker hands its merged coverage, as JSON,
to the controller through `workeroutput`; the controller merges them as workers go down, so
`-n 2` reports what one process would."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Callable, Iterable

import pytest

from scenario_core.report.coverage import Coverage

if TYPE_CHECKING:
    from scenario_core.report.coverage_collector import CoverageCollector

WORKER_KEY = "scenario_coverage"


class CoverageHooks:
    """Registered by pytest_plugin when the option is given; `runs` yields each file's collector."""

    def __init__(self, collectors: Callable[[], Iterable[CoverageCollector]]):
        self.collectors = collectors  # () -> the collectors of the files this process ran
        self.coverage = Coverage()

    @pytest.hookimpl(trylast=True)  # after pytest_plugin's own sessionfinish let every file finish
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        for collector in self.collectors():
            self.coverage.merge(collector.coverage)
        workeroutput = getattr(session.config, "workeroutput", None)
        if workeroutput is not None:  # an xdist worker: the controller reports
            workeroutput[WORKER_KEY] = json.dumps(self.coverage.to_json())

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: object, error: object) -> None:  # xdist's WorkerController
        sent = getattr(node, "workeroutput", {}).get(WORKER_KEY)
        if sent:
            self.coverage.merge(Coverage.from_json(json.loads(sent)))

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if getattr(terminalreporter.config, "workeroutput", None) is not None:
            return
        from scenario_tui.output.coverage_view import coverage_lines

        terminalreporter.section("scenario coverage")
        for line in coverage_lines(self.coverage)[1:]:
            terminalreporter.write_line(line)
