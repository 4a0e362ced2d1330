"""The one owner of SIGINT and SIGTERM while `run` goes on, in three states:

- running: the first signal stops every running execution (Execution.stop: flags set, sockets
  shut down, nothing raised); a second stops waiting for the wind-down (WindDownAbandoned,
  raised in the main thread's wait); any later one is recorded only.
- held (from the end of the run until the reports are written, and after): a signal is
  recorded, not obeyed, so the reports a run was asked for always describe that run (a signal
  mid-write used to leave the previous run's reports in place), and the exit status still says
  the run was stopped (128 + the first signal).
- after the run, when the console script owns the process (`console_owns_the_process()`, so
  `process_ends`), once a signal came, both are ignored for good: the process is ending with a
  status that already says so, and a signal in its last moments (the interpreter resets its
  handlers to the defaults while it shuts down) must not end it by the default action. Called
  in-process (a test, a plugin), `main` restores the handlers it found instead: an ignored
  SIGINT would be inherited by every process started later.

One handler is installed for the whole run, so no signal falls between two owners. Outside the
main thread nothing is installed (signals are the main thread's)."""

from __future__ import annotations

import signal
from contextlib import contextmanager
from types import FrameType
from typing import Callable, Iterator, Protocol, Sequence, Union

_OWNED = (signal.SIGINT, signal.SIGTERM)
# What signal.signal takes and returns: a function, SIG_DFL/SIG_IGN, or None (not set from Python).
Handler = Union[Callable[[int, Union[FrameType, None]], object], int, signal.Handlers, None]
_active: list[RunSignals] = []
_console = False  # the console script runs main() and then the process ends


def console_owns_the_process() -> None:
    """Said by the console script before it runs main(): the process ends when main returns."""
    global _console
    _console = True


def process_ends_after_main() -> bool:
    return _console


class Stoppable(Protocol):
    """What a signal does to a running execution (Execution.stop)."""

    def stop(self) -> None: ...


class WindDownAbandoned(BaseException):
    """A second signal while the run winds down: stop waiting for it (a step that is not a
    request, such as a custom step, may hold it). Only this second signal raises."""


class RunSignals:
    """`with RunSignals() as signals:` the process's SIGINT and SIGTERM handler for one run
    (held to begin with); `with signals.running(executions):` the run itself."""

    def __init__(self, process_ends: bool = False) -> None:
        self.process_ends = process_ends  # the CLI's: ignore both after it once a signal came
        self.received: list[int] = []
        self._executions: Sequence[Stoppable] | None = None  # set while running
        self._previous: dict[int, Handler] = {}

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.received.append(signum)
        executions = self._executions
        if executions is None:
            return  # held: recorded only
        if len(self.received) == 1:
            for execution in executions:
                execution.stop()  # the request in flight ends; each stream winds down
        elif len(self.received) == 2:
            raise WindDownAbandoned()
        # a third one: the wind-down is being abandoned already (an exception now would escape it)

    @contextmanager
    def running(self, executions: Sequence[Stoppable]) -> Iterator[RunSignals]:
        """The run goes on inside; held again after it (a signal that came before it is taken
        now: the run stops at once)."""
        self._executions = executions
        try:
            if self.received:
                for execution in executions:
                    execution.stop()
            yield self
        finally:
            self._executions = None

    @property
    def first(self) -> int | None:
        return self.received[0] if self.received else None

    def __enter__(self) -> RunSignals:
        for signum in _OWNED:
            try:
                self._previous[signum] = signal.signal(signum, self._on_signal)
            except (ValueError, OSError):  # not the main thread
                continue
        _active.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _active.remove(self)
        for signum, handler in self._previous.items():
            signal.signal(signum, signal.SIG_IGN if self.received and self.process_ends else handler)
        self._previous.clear()

    def exit_status(self, status: int) -> int:
        """`status`, or 128 + the first signal held off when the run passed or failed (a usage
        error, exit 2, or a status that already names a signal stays as it is)."""
        if self.received and status in (0, 1):
            return 128 + int(self.received[0])
        return status


@contextmanager
def run_signals(executions: Sequence[Stoppable]) -> Iterator[RunSignals]:
    """The run of `executions`, under the RunSignals in force (the CLI's), or under one of its
    own (a caller that set none, such as a test calling run_files): held after it either way
    until its owner ends."""
    if _active:
        with _active[-1].running(executions) as signals:
            yield signals
        return
    with RunSignals() as own, own.running(executions):
        yield own
