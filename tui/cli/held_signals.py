"""Ctrl+C (SIGINT) and SIGTERM held off while `run` winds down and writes its reports: a signal
that comes then is remembered, not obeyed, so the reports a run was asked for always describe
that run (a signal mid-write used to leave the previous run's reports in place) and the exit
status still says the run was stopped (128 + the signal). Writing the reports takes
milliseconds; while the run itself goes on, run_command's own handlers take each signal."""

from __future__ import annotations

import signal
from typing import Any

_HELD = (signal.SIGINT, signal.SIGTERM)
_active: list[HeldSignals] = []


class HeldSignals:
    """`with HeldSignals() as held:` SIGINT and SIGTERM only recorded (in `received`) inside;
    the handlers they had are back after it. Outside the main thread it holds nothing."""

    def __init__(self) -> None:
        self.received: list[int] = []
        self._previous: dict[int, Any] = {}

    def _record(self, signum: int, frame: Any) -> None:
        self.received.append(signum)

    def hold(self) -> None:
        for signum in _HELD:
            try:
                previous = signal.signal(signum, self._record)
            except (ValueError, OSError):  # not the main thread
                continue
            self._previous.setdefault(signum, previous)

    def __enter__(self) -> HeldSignals:
        self.hold()
        _active.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _active.remove(self)
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()

    def exit_status(self, status: int) -> int:
        """`status`, or 128 + the first signal held off when the run passed or failed (a usage
        error, exit 2, or a status that already names a signal stays as it is)."""
        if self.received and status in (0, 1):
            return 128 + int(self.received[0])
        return status


def hold_again() -> None:
    """Hold the signals again after something set its own handlers and left the defaults behind
    (an asyncio loop's signal handlers, once removed)."""
    if _active:
        _active[-1].hold()
