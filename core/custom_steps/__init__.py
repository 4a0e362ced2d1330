"""Custom steps and assertions written in Python (plugins), and how step text matches them:
`patterns` (a pattern's placeholders, its regex and check-time automaton), `context` (what a step
is handed: StepContext, Response, StepFailed), `registry` (one run's steps: matching, running,
one-line messages), `plugins` (the decorators; loading --plugins and entry points),
`diagnostics` (check time: no pattern matches, or several).

The public plugin API — what `examples/plugins/` and users import:

    from scenario_core.custom_steps import step, assertion, StepFailed, StepContext, Response

No submodule imports this package (it re-exports from them). The re-exports load on first use, so
importing a submodule (`check` and `run` of files without custom steps import none) costs only it.
May import: scenario_core.language, scenario_core.support.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scenario_core.custom_steps.context import Response, StepContext, StepFailed
    from scenario_core.custom_steps.plugins import PluginError, assertion, step

__all__ = ["PluginError", "Response", "StepContext", "StepFailed", "assertion", "step"]

_HOME = {
    "Response": "context",
    "StepContext": "context",
    "StepFailed": "context",
    "PluginError": "plugins",
    "assertion": "plugins",
    "step": "plugins",
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{_HOME[name]}"), name)
    globals()[name] = value  # found directly from now on
    return value
