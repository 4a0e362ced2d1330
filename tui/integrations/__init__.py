"""Integrations with other tools: the language server (pygls, for editors) and the pytest plugin.
May import: scenario_tui.output, scenario_core; never textual."""
