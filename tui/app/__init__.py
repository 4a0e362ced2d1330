"""The Textual app: the shell (layout, loading, watching) and its controllers (keys, running,
history, editor). Controllers report to the app by Textual messages, never by importing it.
May import: scenario_tui.widgets, scenario_tui.output, scenario_core."""
