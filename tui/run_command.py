"""`scenario-tui run`: drive the executor's event stream headless, print progress (run_output),
and write the reports (scenario_core.reports). Never imports textual.

Exit status: 0 every scenario passed (scenarios skipped by tags do not fail a run), 1 a scenario
failed, 2 invalid input (raised before this module runs, or a report path that cannot be
written), 130 interrupted by Ctrl+C (143 by SIGTERM, e.g. a cancelled CI job) -- the shell's
128 + signal convention, so scripts can tell "stopped" from "failed".

Ctrl+C asks the executor to stop: the request in flight is cancelled, the stream winds down with
RunFinished(interrupted=True), the reports are written with `"interrupted": true`, one line says
so. A second Ctrl+C stops waiting for the wind-down (the reports are still written).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import Any, Callable

from scenario_core.errors import UsageError
from scenario_core.masking import Masker
from scenario_core.reports import RunRecorder, write_json_report, write_junit_report

from .run_output import RunPrinter, make_sink

EXIT_OK, EXIT_FAILED, EXIT_INVALID = 0, 1, 2
EXIT_SIGNAL_BASE = 128


def run_files(files: list, overrides: Any, run_variables: dict, tags: set | None = None,
              report_json: str | None = None, report_junit: str | None = None,
              show_secrets: bool = False) -> int:
    from scenario_core.executor import Execution

    reports = [(p, w) for p, w in ((report_json, write_json_report), (report_junit, write_junit_report)) if p]
    for path, _ in reports:
        _check_writable(path)

    masker = Masker(enabled=not show_secrets)
    recorder = RunRecorder()
    printer = RunPrinter(make_sink(), masker, recorder)
    execution = Execution(files, overrides, run_variables, tags)

    def feed(event: Any) -> None:
        masker.learn_event(event)  # first: what is printed for this event may hold its secrets
        recorder.feed(event)
        printer.feed(event)

    signum: int | None = None
    error: BaseException | None = None
    try:
        signum = asyncio.run(_drive(execution, feed))
    except KeyboardInterrupt:  # platforms without loop signal handlers (Windows)
        signum = signal.SIGINT
    except Exception as exc:  # a bug must not print a traceback over the user's run
        error = exc
    finally:
        printer.close()
    interrupted = signum is not None or error is not None
    recorder.finish(interrupted)
    interrupted = recorder.interrupted

    written, status = [], EXIT_OK
    for path, write in reports:
        try:
            write(path, recorder, masker)
            written.append(path)
        except OSError as exc:
            print(f"scenario-tui: error: cannot write report {path}: {exc.strerror or exc}", file=sys.stderr)
            status = EXIT_INVALID
    printer.print_summary(interrupted, written)
    if error is not None:
        print(f"scenario-tui: error: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return status or EXIT_FAILED
    if status:
        return status
    if interrupted:
        return EXIT_SIGNAL_BASE + int(signum or signal.SIGINT)
    return EXIT_FAILED if recorder.counts()["failed"] else EXIT_OK


async def _drive(execution: Any, feed: Callable[[Any], None]) -> int | None:
    """Consume the stream; return the signal that interrupted it, or None."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    received: list[int] = []

    def on_signal(signum: int) -> None:
        received.append(signum)
        if len(received) == 1:
            execution.stop()  # cancels the request in flight; the stream winds down
        elif task is not None:
            task.cancel()  # a second signal: stop waiting for the wind-down

    installed = []
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(signum, on_signal, signum)
            installed.append(signum)
        except (NotImplementedError, RuntimeError, ValueError):  # Windows, or not the main thread
            pass
    try:
        async for event in execution.events():
            feed(event)
    except asyncio.CancelledError:
        if not received:
            raise
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)
    return received[0] if received else None


def _check_writable(path: str) -> None:
    """Fail before running rather than after: a report that cannot be written is a usage error."""
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"--report: {path} is a directory")
    parent = target.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent  # atomic_write creates the missing directories
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"--report: cannot write in {parent}")
