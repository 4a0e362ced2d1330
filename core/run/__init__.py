"""Running: the executor (a pull-based stream of events), the events, variable scopes, lookup,
explanations, assertions, retry, webhooks, the stepper that drives a run step by step, and
`run.http` (the HTTP/1.1 transport).
May import: scenario_core.parameters, scenario_core.custom_steps, scenario_core.openapi,
scenario_core.language, scenario_core.support."""
