"""The HTTP transport: a lean HTTP/1.1 client over httptools (connection pool, message framing).
May import: scenario_core.language, scenario_core.support (and parameters for timeouts/limits)."""
