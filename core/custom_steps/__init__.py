"""Custom steps and assertions written in Python (plugins), and how step text matches them:
`patterns` (a pattern's placeholders, its regex and check-time automaton), `context` (what a step
is handed: StepContext, Response, StepFailed), `registry` (one run's steps: matching, running,
one-line messages), `plugins` (the decorators; loading --plugins and entry points),
`diagnostics` (check time: no pattern matches, or several).

The public plugin API — what `examples/plugins/` and users import:

    from scenario_core.custom_steps import step, assertion, StepFailed, StepContext, Response

No submodule imports this package (it re-exports from them).
May import: scenario_core.language, scenario_core.support.
"""

from scenario_core.custom_steps.context import Response, StepContext, StepFailed
from scenario_core.custom_steps.plugins import PluginError, assertion, step

__all__ = ["PluginError", "Response", "StepContext", "StepFailed", "assertion", "step"]
