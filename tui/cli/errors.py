"""How the console script reports a failure: one line on standard error, whatever it quotes
(arguments, file text: escapes are shown, not obeyed)."""

from __future__ import annotations

import sys

from scenario_core.support.printable import visible


def clip(text: str, width: int = 60) -> str:
    """`text` made visible and cut to `width` characters (an argument quoted in a message)."""
    text = visible(text)
    return text if len(text) <= width else text[: width - 1] + "…"


def print_error(message: str) -> None:
    print(f"scenario-tui: error: {clip(message, 400)}", file=sys.stderr)


def interrupted() -> int:
    """Ctrl+C: one line, and the exit status of a SIGINT."""
    try:
        print("scenario-tui: interrupted", file=sys.stderr)
    except (OSError, ValueError):
        pass
    return 130


def say_folders_left_out(items: list[str]) -> None:
    """One note per sub-folder a folder argument leaves out (`_*`, `.*`): files that silently do
    not run mislead. On standard error, so `check --format json` keeps a clean standard output."""
    from scenario_core.parameters.run_inputs import folders_left_out

    for folder in folders_left_out(items):
        print(
            f"scenario-tui: note: left out {visible(folder)}/: a folder skips sub-folders named _* or .* "
            "(name them to include them)",
            file=sys.stderr,
        )
