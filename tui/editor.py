"""`e`: the command that opens $EDITOR (then $VISUAL, then vi) at a file's line.

Editors disagree on how to name a line: most take `+LINE FILE`, Helix, Sublime and Zed take
`FILE:LINE`, VS Code `--goto FILE:LINE`. An editor we do not know gets the file alone rather
than a `+LINE` it might open as a second file."""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Mapping

PLUS_LINE = {"vi", "vim", "nvim", "gvim", "view", "nano", "pico", "emacs", "emacsclient", "micro", "kak", "joe",
             "jed", "ne", "mg", "vis", "ed", "ex", "elvis", "nvi", "mcedit", "jove"}
COLON_LINE = {"hx", "helix", "subl", "sublime_text", "zed", "zeditor", "kate", "gedit"}
GOTO = {"code", "code-insiders", "codium", "vscodium", "cursor"}


def editor_command(path: str, line: int, environ: Mapping[str, str] | None = None) -> list[str]:
    """The argv that opens `path` at `line` in the user's editor."""
    environ = os.environ if environ is None else environ
    configured = environ.get("EDITOR", "").strip() or environ.get("VISUAL", "").strip() or "vi"
    try:
        argv = shlex.split(configured)  # EDITOR="code --wait" is a command with options
    except ValueError:  # an unbalanced quote: take it as one program name
        argv = [configured]
    name = Path(argv[0]).name.lower().removesuffix(".exe")
    line = max(line, 1)
    if name in PLUS_LINE:
        return [*argv, f"+{line}", path]
    if name in COLON_LINE:
        return [*argv, f"{path}:{line}"]
    if name in GOTO:
        return [*argv, "--goto", f"{path}:{line}"]
    return [*argv, path]
