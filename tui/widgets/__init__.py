"""The TUI's widgets, one per file, each with its CSS beside it (DEFAULT_CSS)."""
