"""OpenAPI descriptions: loading and `$ref`s, the operation model, request building, response schema
checks and generated (`auto:`) tests. Knows nothing of parameters or runs.
May import: scenario_core.language, scenario_core.support."""
