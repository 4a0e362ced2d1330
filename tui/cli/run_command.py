"""`scenario-tui run`: drive the executor's event stream headless, print progress (run_output),
and write the reports (scenario_core.report: json_report, junit, html). Never imports textual.

Exit status: 0 every scenario passed (scenarios skipped by tags do not fail a run), 1 a scenario
failed, 2 invalid input (raised before this module runs, or a report path that cannot be
written), 130 interrupted by Ctrl+C (143 by SIGTERM, e.g. a cancelled CI job, 141 when standard
output was closed, e.g. `run ... | head -1`) -- the shell's 128 + signal convention, so scripts
can tell "stopped" from "failed".

Ctrl+C asks the executor to stop: the request in flight is cancelled, the stream winds down with
RunFinished(interrupted=True), the reports are written with `"interrupted": true`, one line says
so. A second Ctrl+C stops waiting for the wind-down (the reports are still written).
"""

from __future__ import annotations

import os
import signal
import sys
from typing import TYPE_CHECKING, Callable, Union, final

from scenario_core.report.masking import Masker
from scenario_core.report.recorder import RunRecorder
from scenario_core.report.report_paths import check_report_paths, run_inputs
from scenario_core.run import events as ev
from scenario_core.run.consumers import Batched, EventConsumer, feed_all
from scenario_core.run.options import RunOptions
from scenario_core.support.printable import visible
from scenario_core.support.records import replace
from scenario_tui.cli.held_signals import WindDownAbandoned, run_signals
from scenario_tui.output.run_output import ExchangeLog, RunPrinter, make_sink

if TYPE_CHECKING:
    from scenario_core.language.nodes.blocks import FeatureNode, ScenarioFileNode, ScenarioNode
    from scenario_core.report.compare import Comparer
    from scenario_core.report.coverage import Coverage
    from scenario_core.run.executor import Execution
    from scenario_core.run.units import UnitMerge

EXIT_OK, EXIT_FAILED, EXIT_INVALID = 0, 1, 2
EXIT_SIGNAL_BASE = 128
SIGPIPE = getattr(signal, "SIGPIPE", 13)
FAIL_FAST_SKIP = "not run: --fail-fast stopped the run after a failure"


def _tags_of(event: ev.ScenarioFinished) -> frozenset[str]:
    tags: frozenset[str] = event.scenario.tags
    return tags | event.feature.tags if event.feature is not None else tags


class FailFast(EventConsumer):
    """--fail-fast: after the first failed scenario no later one is selected (the executor's
    `include`, not a tag predicate: a scenario left out by --tags still says which expression it
    missed), and each one so skipped says why (`relabel`, on the ordered stream)."""

    __slots__ = ("failed", "selected")

    def __init__(self, selected: Callable[[frozenset[str]], bool] | None) -> None:
        self.failed = False
        self.selected = selected

    def include(self, scenario: ScenarioNode, feature: FeatureNode | None) -> bool:
        return not self.failed

    def _scenario_finished(self, event: ev.ScenarioFinished) -> None:
        if event.status == ev.FAILED:
            self.failed = True

    def relabel(self, event: ev.Event) -> ev.Event:
        if (
            self.failed
            and type(event) is ev.ScenarioFinished
            and event.status == ev.SKIPPED
            and (self.selected is None or self.selected(_tags_of(event)))
        ):
            return replace(event, message=FAIL_FAST_SKIP)
        return event


FailFast.receivers = {ev.ScenarioFinished: FailFast._scenario_finished}


def _report_writers(options: RunOptions, comparer: Comparer | None) -> list[tuple[str, Callable[..., None]]]:
    """(path, writer) of each report asked for; each writer imported only by a run that writes it."""
    reports: list[tuple[str, Callable[..., None]]] = []
    if options.report_json:
        from scenario_core.report.json_report import write_json_report

        if comparer is not None:  # each step's `changes` against the earlier report
            reports.append((options.report_json, lambda path, r, m: write_json_report(path, r, m, comparer)))
        else:
            reports.append((options.report_json, write_json_report))
    if options.report_junit:
        from scenario_core.report.junit import write_junit_report

        reports.append((options.report_junit, write_junit_report))
    if options.report_html:
        from scenario_core.report.html import write_html_report

        reports.append((options.report_html, write_html_report))
    return reports


def run_files(files: list[ScenarioFileNode], options: RunOptions) -> int:
    """Run the files as `options` say (RunOptions: the engine's inputs and what this run prints
    and writes) and return the exit status. `jobs` > 1 runs files (or, with `dist` scope, scope
    units) at once, an Execution each, their lines printed in source order; coverage is printed after the
    summary and added to the reports, and below `coverage_min` the run exits 1. The inputs the
    run reads (files, descriptions, fragments, variables files, plugins) are never a report's
    path."""
    from scenario_core.run.executor import Execution

    comparer = None
    if options.compare is not None:  # read before anything runs: an unreadable report is a usage error
        from scenario_core.language.errors import UsageError
        from scenario_core.report.compare import CompareError, Comparer

        try:
            comparer = Comparer.load(options.compare)
        except CompareError as unreadable:
            raise UsageError(f"--compare {visible(str(unreadable))}") from None
    reports = _report_writers(options, comparer)
    if reports:  # (the inputs are a walk over every step: only a run that writes a report needs them)
        inputs = run_inputs(
            files,
            options.overrides,
            options.resource_roots,
            options.fragments,
            options.variables_files,
            options.plugins,
        )
        check_report_paths(
            (
                ("--report-json", options.report_json),
                ("--report-junit", options.report_junit),
                ("--report-html", options.report_html),
            ),
            inputs,
        )

    masker = Masker(enabled=not options.show_secrets)
    # no report and no comparison: only what the printed results need
    recorder = RunRecorder(every_step=bool(reports) or comparer is not None)
    collector = None
    if options.collects_coverage:  # imported only by a run that collects it
        from scenario_core.report.coverage_collector import CoverageCollector

        collector = CoverageCollector()
        recorder.coverage = collector.coverage
    printer = RunPrinter(make_sink(), masker, recorder, comparer)
    units = []  # what runs at once: only worked out (scope units resolve parameters) when anything may
    if options.jobs > 1:
        from scenario_core.run.units import file_units, scope_units  # (--jobs only)

        units = file_units(files) if options.dist == "file" else scope_units(files, options.overrides)
    parallel = len(units) > 1
    name_files = bool(options.verbose) and len(files) > 1  # --verbose lines name their file when several run
    log = (
        ExchangeLog(printer.sink, masker, connection=options.verbose > 1, name_files=name_files)
        if options.verbose
        else None
    )
    fail_fast = FailFast(options.selected) if options.fail_fast else None

    # As each event happens, whichever file it comes from: the masker first (what is printed for
    # this event may hold its secrets), --fail-fast, --verbose. In file order: the reports, the
    # lines of results, coverage. One file at a time, both are the same moment.
    live = feed_all([c for c in (masker, fail_fast, log) if c is not None])
    deliver = feed_all([c for c in (recorder, printer, collector) if c is not None])
    ordered = deliver if fail_fast is None else lambda event: deliver(fail_fast.relabel(event))
    include = fail_fast.include if fail_fast is not None else None

    def make(
        chunk: list[ScenarioFileNode], only: frozenset[int] | None = None, deliver: Callable[[], None] | None = None
    ) -> Execution:
        return Execution(chunk, options, include=include, only=only, deliver=deliver)

    def drive() -> int | None:
        """Run the files; the signal that interrupted them, or None."""
        if not parallel:  # one stream: live and in order are the same moment, so one feed
            if fail_fast is not None:  # it relabels what the ordered consumers see
                return _drive(make(files), _both(live, ordered))
            feed = feed_all([c for c in (masker, log, recorder, printer, collector) if c is not None])
            if log is not None:  # --verbose: each exchange is printed as it happens
                return _drive(make(files), feed)
            batched = Batched(feed)  # the consumers' work is done while the server answers
            return _drive(make(files, deliver=batched.deliver), batched)
        printer.quiet_running()  # a spinner line means nothing when several units run at once
        executions = [make([unit.file], unit.nodes) for unit in units]
        shown = [visible(unit.file.path) if name_files else None for unit in units]

        def live_from(index: int, event: ev.Event) -> None:
            if log is not None:
                log.tag = shown[index]
            live(event)

        started = ev.RunStarted(files=tuple(files), run_variables=options.run_variables, tags=executions[0].tags)
        from scenario_core.run.units import UnitMerge

        return _drive_units(executions, UnitMerge(units), live_from, ordered, options.jobs, started)

    signum: int | None = None
    error: BaseException | None = None
    try:
        try:
            signum = drive()
        except KeyboardInterrupt:  # platforms without loop signal handlers (Windows)
            signum = signal.SIGINT
        except BrokenPipeError:  # stdout closed (`run ... | head -1`): stop quietly, like cat
            silence_stdout()
            signum = SIGPIPE
        except Exception as exc:  # a bug must not print a traceback over the user's run
            error = exc
        finally:
            printer.close()
    except BrokenPipeError:  # closed while the last lines were flushed
        silence_stdout()
        signum = signum or SIGPIPE
    # SIGINT/SIGTERM are held from here (held_signals): the reports are written whatever comes
    interrupted = signum is not None or error is not None
    recorder.finish(interrupted)
    interrupted = recorder.interrupted

    written, status = [], EXIT_OK
    below_minimum = False
    for path, write in reports:
        try:
            write(path, recorder, masker)
            written.append(path)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            print(f"scenario-tui: error: cannot write report {visible(str(path))}: {visible(reason)}", file=sys.stderr)
            status = EXIT_INVALID
    try:
        printer.print_summary(interrupted, written)
        if collector is not None:
            below_minimum = _print_coverage(collector.coverage, options.coverage_min)
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()
        if signum is None and error is None:
            signum = SIGPIPE
    if error is not None:
        detail = " ".join(str(error).split())
        print(f"scenario-tui: error: internal error: {type(error).__name__}: {visible(detail)}", file=sys.stderr)
        return status or EXIT_FAILED
    if status:
        return status
    if interrupted:
        return EXIT_SIGNAL_BASE + int(signum or signal.SIGINT)
    return EXIT_FAILED if recorder.counts()["failed"] or below_minimum else EXIT_OK


def _print_coverage(coverage: Coverage, minimum: float | None) -> bool:
    """The coverage table, and with --coverage-min what is missing; True when below it."""
    from scenario_tui.output.coverage_view import NOTHING_TO_COVER, coverage_lines, minimum_lines

    if not coverage.counts()[1]:  # no description in force: no table claiming 100% of nothing
        print(f"scenario-tui: --coverage: {NOTHING_TO_COVER}", file=sys.stderr)
        return minimum is not None
    print("\n".join(coverage_lines(coverage)))
    shortfall = minimum_lines(coverage, minimum) if minimum is not None else []
    if shortfall:
        print("\n".join(shortfall))
    return bool(shortfall)


def _both(live: Callable[[ev.Event], None], ordered: Callable[[ev.Event], None]) -> Callable[[ev.Event], None]:
    def feed(event: ev.Event) -> None:
        live(event)
        ordered(event)

    return feed


def _drive(execution: Execution, feed: Callable[[ev.Event], None] | Batched) -> int | None:
    """Consume the stream in this thread, feeding each event to the consumers (through a Batched
    whose `deliver` is the execution's, or at once); return the signal that interrupted it, or None."""
    batched: Batched | None = None
    if isinstance(feed, Batched):
        batched, take = feed, feed.take
        batched.stop = execution.stop
    else:
        take = feed
    with run_signals([execution]) as signals:
        events = execution.events()
        try:
            for event in events:
                take(event)
        except WindDownAbandoned:  # a signal's, past the point the run could take it in
            if not signals.received:
                raise
        finally:
            events.close()
        if batched is not None:  # what the stream gave since its last delivery
            batched.finish()
    return signals.first


@final  # (so that `type(item) is _Ended` tells the two kinds of item apart)
class _Ended:
    """A file's stream has ended (`error`: what it raised, if anything)."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException | None) -> None:
        self.error = error


def _drive_units(
    executions: list[Execution],
    merge: UnitMerge,
    live: Callable[[int, ev.Event], None],
    ordered: Callable[[ev.Event], None],
    jobs: int,
    started: ev.RunStarted,
) -> int | None:
    """--jobs: one Execution per unit (a file, or with --dist scope a scope unit), at most `jobs`
    at once, each pulled on a worker thread, taken in order. Every event comes back to this thread
    through one queue: `live` sees it as it happens (with the index of its unit); `ordered` gets
    each unit's events once that unit and every unit before it are done, merged into the stream
    one run would give (`merge`), so the lines and the reports keep source order. Return the
    signal that interrupted the run, or None. Ctrl+C stops every unit; a second one stops
    waiting (the workers are daemon threads: an abandoned one does not hold the exit)."""
    import queue
    import threading

    count = len(executions)
    events: queue.SimpleQueue[tuple[int, Union[ev.Event, _Ended]]] = queue.SimpleQueue()
    from scenario_core.run.units import schedule

    indexes = iter(schedule(merge.units))  # next() on it is atomic: each worker takes the next unit
    buffers: list[list[ev.Event]] = [[] for _ in executions]
    ended = [False] * count

    def work() -> None:
        for index in indexes:
            error: BaseException | None = None
            try:
                for event in executions[index].events():
                    events.put((index, event))
            except BaseException as exc:  # handed to the main thread, raised there
                error = exc
            events.put((index, _Ended(error)))

    def flush(index: int) -> None:
        for event in merge.events(index, buffers[index]):  # one run: the recorder sees `started` only
            ordered(event)
        buffers[index] = []

    fed = 0
    with run_signals(executions) as signals:
        try:
            ordered(started)
            for n in range(min(jobs, count)):
                threading.Thread(target=work, name=f"run job {n + 1}", daemon=True).start()
            while fed < count:
                index, item = events.get()
                if type(item) is _Ended:
                    if item.error is not None:
                        raise item.error
                    ended[index] = True
                    while fed < count and ended[fed]:
                        flush(fed)
                        fed += 1
                    continue
                live(index, item)
                buffers[index].append(item)
        except WindDownAbandoned:
            if not signals.received:
                raise
        finally:
            if fed < count:  # interrupted, or a fault: the files still running stop
                for execution in executions:
                    execution.stop()
            for index in range(fed, count):  # what the interrupted files got to
                flush(index)
    return signals.first


def silence_stdout() -> None:
    """Standard output is a closed pipe: send what is still buffered, and anything printed later,
    to the null device, so neither a later print nor the flush at exit raises BrokenPipeError."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass
