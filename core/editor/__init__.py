"""The language service an editor asks (diagnostics, hover, definition, completion, outline); the
LSP adapter in scenario_tui.integrations serves it.
May import: scenario_core.analysis and every layer below."""
