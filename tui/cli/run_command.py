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
from typing import TYPE_CHECKING, Any, Callable, Sequence

from scenario_core.report.masking import Masker
from scenario_core.report.recorder import RunRecorder
from scenario_core.report.report_paths import check_report_paths, run_inputs
from scenario_core.run import events as ev
from scenario_core.support.printable import visible
from scenario_core.support.records import replace
from scenario_tui.cli.held_signals import WindDownAbandoned, run_signals
from scenario_tui.output.run_output import ExchangeLog, RunPrinter, make_sink

if TYPE_CHECKING:
    from scenario_core.run.executor import Execution

EXIT_OK, EXIT_FAILED, EXIT_INVALID = 0, 1, 2
EXIT_SIGNAL_BASE = 128
SIGPIPE = getattr(signal, "SIGPIPE", 13)
FAIL_FAST_SKIP = "not run: --fail-fast stopped the run after a failure"


def _tags_of(event: Any) -> frozenset[str]:
    return event.scenario.tags | event.feature.tags if event.feature is not None else event.scenario.tags


def run_files(
    files: list,
    overrides: Any,
    run_variables: dict,
    tags: set | None = None,
    report_json: str | None = None,
    report_junit: str | None = None,
    show_secrets: bool = False,
    registry: Any = None,
    resource_roots: Sequence[str] = (),
    report_html: str | None = None,
    selected: Callable[[frozenset[str]], bool] | None = None,
    fail_fast: bool = False,
    verbose: int = 0,
    jobs: int = 1,
    coverage: bool = False,
    coverage_min: float | None = None,
    fragments: Sequence[str] = (),
    variables_files: Sequence[str] = (),
    plugins: Sequence[str] = (),
) -> int:
    """`selected`: a --tags expression; `verbose`: 1 --verbose, 2 --very-verbose; `jobs`: files
    run at once (one Execution per file; each file's lines print together, in the order given);
    `coverage` / `coverage_min`: collect OpenAPI coverage (--coverage-min implies it), print it
    after the summary, add it to the reports; below the minimum the run exits 1. `fragments`,
    `variables_files` and `plugins` (as given on the command line) are inputs no report may
    replace, as are the files and what they read."""
    from scenario_core.run.executor import Execution

    reports: list[tuple[str, Callable]] = []
    if report_json:  # each writer imported only by a run that writes its report
        from scenario_core.report.json_report import write_json_report

        reports.append((report_json, write_json_report))
    if report_junit:
        from scenario_core.report.junit import write_junit_report

        reports.append((report_junit, write_junit_report))
    if report_html:
        from scenario_core.report.html import write_html_report

        reports.append((report_html, write_html_report))
    inputs = run_inputs(files, overrides, resource_roots, fragments, variables_files, plugins)
    check_report_paths(
        (("--report-json", report_json), ("--report-junit", report_junit), ("--report-html", report_html)), inputs
    )

    masker = Masker(enabled=not show_secrets)
    recorder = RunRecorder(every_step=bool(reports))  # no report: only what the printed results need
    collector = None
    if coverage or coverage_min is not None:  # imported only by a run that collects it
        from scenario_core.report.coverage_collector import CoverageCollector

        collector = CoverageCollector()
        recorder.coverage = collector.coverage
    printer = RunPrinter(make_sink(), masker, recorder)
    parallel = jobs > 1 and len(files) > 1
    log = ExchangeLog(printer.sink, masker, connection=verbose > 1) if verbose else None
    failed = [False]  # --fail-fast: a scenario failed; later scenarios are not selected

    # --fail-fast is the executor's `include`, not a tag predicate: a scenario left out by --tags
    # still says which expression it missed (`wanted smoke`), not the name of a closure.
    def not_after_a_failure(scenario: Any, feature: Any) -> bool:
        return not failed[0]

    def make(chunk: list) -> Any:
        return Execution(
            chunk,
            overrides,
            run_variables,
            tags,
            registry=registry,
            resource_roots=resource_roots,
            selected=selected,
            include=not_after_a_failure if fail_fast else None,
        )

    def live(event: Any, tag: str | None = None) -> None:
        """As the event happens, whichever file it comes from."""
        masker.learn_event(event)  # first: what is printed for this event may hold its secrets
        if fail_fast and type(event) is ev.ScenarioFinished and event.status == ev.FAILED:
            failed[0] = True
        if log is not None:
            log.feed(event, tag)

    def ordered(event: Any) -> None:
        """In file order: the reports and the lines of results."""
        if (
            fail_fast
            and failed[0]
            and type(event) is ev.ScenarioFinished
            and event.status == ev.SKIPPED
            and (selected is None or selected(_tags_of(event)))
        ):
            event = replace(event, message=FAIL_FAST_SKIP)
        recorder.feed(event)
        printer.feed(event)
        if collector is not None:
            collector.feed(event)

    tagged = bool(verbose) and len(files) > 1  # --verbose lines name their file when several run
    current: list[str | None] = [None]

    if fail_fast or verbose:

        def feed(event: Any) -> None:
            if tagged and type(event) is ev.FileStarted:
                current[0] = visible(event.file.path)
            live(event, current[0])
            ordered(event)
    elif collector is not None:

        def feed(event: Any) -> None:  # --coverage: the usual run, and the collector
            masker.learn_event(event)
            recorder.feed(event)
            printer.feed(event)
            collector.feed(event)
    else:

        def feed(event: Any) -> None:  # the usual run: as few calls per event as before these options
            masker.learn_event(event)  # first: what is printed for this event may hold its secrets
            recorder.feed(event)
            printer.feed(event)

    def drive() -> int | None:
        """Run the files; the signal that interrupted them, or None."""
        if not parallel:
            return _drive(make(files), feed)
        printer.quiet_running()  # a spinner line means nothing when several files run at once
        executions = [make([f]) for f in files]
        shown = [visible(f.path) if tagged else None for f in files]
        started = ev.RunStarted(files=tuple(files), run_variables=run_variables, tags=executions[0].tags)
        return _drive_files(executions, shown, live, ordered, jobs, started)

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
            below_minimum = _print_coverage(collector.coverage, coverage_min)
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


def _print_coverage(coverage: Any, minimum: float | None) -> bool:
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


def _drive(execution: Execution, feed: Callable[[Any], None]) -> int | None:
    """Consume the stream in this thread; return the signal that interrupted it, or None."""
    with run_signals([execution]) as signals:
        events = execution.events()
        try:
            for event in events:
                feed(event)
        except WindDownAbandoned:  # a signal's, past the point the run could take it in
            if not signals.received:
                raise
        finally:
            events.close()
    return signals.first


class _Ended:
    """A file's stream has ended (`error`: what it raised, if anything)."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException | None) -> None:
        self.error = error


def _drive_files(
    executions: list, tags: list, live: Callable[..., None], ordered: Callable[[Any], None], jobs: int, started: Any
) -> int | None:
    """--jobs: one Execution per file, at most `jobs` at once, each pulled on a worker thread.
    Every event comes back to this thread through one queue: `live` sees it as it happens;
    `ordered` gets each file's events once that file and every file before it are done, so the
    lines and the reports keep the order given. Return the signal that interrupted the run, or
    None. Ctrl+C stops every file; a second one stops waiting (the workers are daemon threads:
    an abandoned one does not hold the exit)."""
    import itertools
    import queue
    import threading

    count = len(executions)
    events: queue.SimpleQueue = queue.SimpleQueue()
    indexes = itertools.count()  # next() on it is atomic: each worker takes the next file
    buffers: list[list[Any]] = [[] for _ in executions]
    ended = [False] * count

    def work() -> None:
        for index in iter(indexes.__next__, None):
            if index >= count:
                return
            error: BaseException | None = None
            try:
                for event in executions[index].events():
                    events.put((index, event))
            except BaseException as exc:  # handed to the main thread, raised there
                error = exc
            events.put((index, _Ended(error)))

    def flush(index: int) -> None:
        for event in buffers[index]:
            if type(event) not in (ev.RunStarted, ev.RunFinished):  # one run: the recorder sees `started` only
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
                live(item, tags[index])
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
