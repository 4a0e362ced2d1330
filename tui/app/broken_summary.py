"""What the inspector says about a suite's file that cannot run: every error, one line each."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text

from scenario_core.support.printable import visible
from scenario_tui.widgets.theme_styles import ERROR, ERROR_BOLD
from scenario_tui.widgets.tree_items import BrokenFile


def broken_file_summary(broken: BrokenFile) -> tuple[str, list[Text]]:
    count = len(broken.diagnostics)
    lines = [
        Text(Path(broken.path).name, style="bold"),
        Text(
            f"{count} error{'s' if count != 1 else ''} — this file cannot run; the others still do"
            if count
            else "cannot open this file",
            style=ERROR_BOLD,
        ),
    ]
    if broken.message:
        lines.append(Text(visible(broken.message), style=ERROR))
    for diagnostic in broken.diagnostics:
        lines.append(Text(visible(str(diagnostic))))
    lines.append(
        Text("Fix the file and save it: it reloads by itself (R reloads now) · e opens it in $EDITOR", style="dim")
    )
    return "Inspector · file errors", lines
