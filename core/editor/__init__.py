"""The language service an editor asks (diagnostics, hover, definition, completion, outline); the
LSP adapter in scenario_tui.integrations serves it. `writeback` writes into a scenario file (an
extract after a step) keeping every byte it does not change.
May import: scenario_core.analysis and every layer below."""
