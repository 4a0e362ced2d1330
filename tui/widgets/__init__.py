"""The TUI's widgets, one per file, each with its CSS beside it (DEFAULT_CSS). A widget tells the app
what happened by posting a Textual message; it never imports the app.
May import: scenario_tui.output, scenario_core."""
