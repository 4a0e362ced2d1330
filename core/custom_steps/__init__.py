"""Custom steps and assertions written in Python (plugins), and how step text matches them.

The public plugin API — what `examples/plugins/` and users import:

    from scenario_core.custom_steps import step, assertion, StepFailed, StepContext, Response

May import: scenario_core.language, scenario_core.support.
"""

from scenario_core.custom_steps.registry import PluginError, Response, StepContext, StepFailed, assertion, step

__all__ = ["PluginError", "Response", "StepContext", "StepFailed", "assertion", "step"]
