"""The console script (`scenario-tui`): argument parsing and the headless commands (check, params,
run). Never imports textual for a headless command; the TUI is imported only to open it.
May import: scenario_tui.app (lazily), scenario_tui.output, scenario_core."""
