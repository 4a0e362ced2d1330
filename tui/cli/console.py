"""The `scenario-tui` console script: main(), and what must hold around it for the process to
end cleanly. A Ctrl+C while main's own modules are still importing (before main() can catch
it) ends in one line and status 130. Standard output is flushed here, not at exit: when the
reader has gone (`scenario-tui params --json | head -1`), what is left is sent to the null
device, so the interpreter's own flush at exit neither complains nor changes the status."""

from __future__ import annotations

import sys
from typing import TextIO


def console() -> int:
    try:
        from scenario_tui.cli.held_signals import console_owns_the_process
        from scenario_tui.cli.main import main
    except KeyboardInterrupt:  # nothing has started: nothing to wind down, nothing buffered to keep
        sys.stderr.write("scenario-tui: interrupted\n")
        return 130
    console_owns_the_process()
    status = main()
    _flush_standard_streams()
    return status


def _flush_standard_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more can be said there
            _to_null_device(stream)


def _to_null_device(stream: TextIO) -> None:
    """The descriptor behind `stream` pointed at the null device (the Python documentation's
    advice for a closed pipe, see signal's "Note on SIGPIPE"): a later flush writes nowhere."""
    import os

    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, stream.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass
