"""`e`: the command that opens $EDITOR (then $VISUAL, then vi) at a file's line.

Editors disagree on how to name a line: most take `+LINE FILE`, Helix, Sublime and Zed take
`FILE:LINE`, VS Code `--goto FILE:LINE`. An editor we do not know gets the file alone rather
than a `+LINE` it might open as a second file."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path
from typing import Mapping

from textual.app import App, SuspendNotSupported

from scenario_tui.widgets.tree_items import TreeItem

PLUS_LINE = {
    "vi",
    "vim",
    "nvim",
    "gvim",
    "view",
    "nano",
    "pico",
    "emacs",
    "emacsclient",
    "micro",
    "kak",
    "joe",
    "jed",
    "ne",
    "mg",
    "vis",
    "ed",
    "ex",
    "elvis",
    "nvi",
    "mcedit",
    "jove",
}
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


def source_of(item: TreeItem) -> tuple[str, int]:
    """Where a tree node is written: its file (a fragment's own .fragment file) and line."""
    if item.kind != "file":
        location = item.node.location
        return location.file, location.line
    broken = item.broken
    if broken is not None and broken.diagnostics:  # at its first error
        return broken.diagnostics[0].location.file, broken.diagnostics[0].location.line
    return item.node.path, 1


def open_in_editor(app: App[int], item: TreeItem) -> tuple[str, bool]:
    """Run the editor on `item`'s line with the app's screen handed over to it. Returns what the
    status line should say, and whether the editor ran (then the caller looks for what was saved,
    as the file watcher would)."""
    path, line = source_of(item)
    command = editor_command(path, line)
    try:
        try:
            with app.suspend():
                code = subprocess.run(command).returncode
        except SuspendNotSupported:
            if not app.is_headless:  # an editor would draw over the screen: refuse
                return "cannot suspend the screen here to run an editor", False
            code = subprocess.run(command, stdin=subprocess.DEVNULL).returncode  # tests: no terminal to lend
    except OSError as error:
        return f"cannot start the editor {command[0]!r} ({error.strerror}): set $EDITOR", False
    app.refresh()
    return f"edited {Path(path).name}:{line}" + (f" (editor exit {code})" if code else ""), True
