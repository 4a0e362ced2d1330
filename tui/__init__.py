"""scenario_tui: the terminal front ends — the console script (`cli`), rich output shared by the
headless commands (`output`), the Textual app (`app`, `widgets`) and the integrations (`integrations`:
the language server and the pytest plugin). Parsing and running are delegated to scenario_core."""
