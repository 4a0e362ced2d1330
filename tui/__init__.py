"""scenario_tui: the terminal front ends (console script, rich output, the Textual app)."""
