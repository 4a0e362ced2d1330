"""The styles of the console output (`run`, `params`): one place that names colours, and only the
terminal's sixteen ANSI ones, which a light or dark terminal palette recolours. The TUI's panels
take theirs from the Textual theme instead (scenario_tui.widgets.theme_styles)."""

from __future__ import annotations

ERROR, ERROR_BOLD = "red", "bold red"
SUCCESS = "green"
WARNING, WARNING_BOLD = "yellow", "bold yellow"
VALUE, VALUE_BOLD = "cyan", "bold cyan"
KIND = "magenta"  # what a node of the parameters tree is: file, feature, scenario
