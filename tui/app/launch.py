"""`scenario-tui FILE|DIR...` and `scenario-tui demo`: the app, run until it quits."""

from __future__ import annotations

from typing import Sequence

from scenario_core.language.tag_expressions import TagExpression
from scenario_core.parameters.resolution import RunOverrides
from scenario_tui.app.shell import ScenarioApp


def launch(
    path: str | Sequence[str],
    overrides: RunOverrides,
    run_variables: dict[str, object],
    fragments: Sequence[str] = (),
    plugins: Sequence[str] = (),
    resource_roots: Sequence[str] = (),
    tags: TagExpression | None = None,
    base_url_source: str | None = None,
) -> int:
    """Open the TUI on `path`, or on a suite of files (`scenario-tui FILE|DIR...`, `scenario-tui demo`).
    `base_url_source`: what the screen calls the command line's base URL (`demo`)."""
    app = ScenarioApp(
        path, overrides, run_variables, fragments=fragments, plugins=plugins, resource_roots=resource_roots, tags=tags
    )
    app.display_options.base_url_source = base_url_source
    result = app.run()
    return int(result or 0) if app.return_code in (None, 0) else int(app.return_code or 1)
