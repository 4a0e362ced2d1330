"""OpenAPI descriptions: loading and `$ref`s, the operation model, request building, response schema
checks and generated (`auto:`) tests. Knows nothing of parameters or runs.

`documents` (hardened reading, `$ref`s) → `loader` (the cache, base URLs) → `operations` (the
model, built once per description) → `operation_lookup` (`^op`, aliases); `request_builder`
(children placed and serialised) over `body_defaults` (bodies from schema defaults);
`schema_compile` (schemas as 2020-12 validators; their problems, located) over `schema_patterns`
(patterns compiled safely) and `pattern_clock` (their searches under one deadline), under
`schema_check` (responses checked, messages) and `description_check` (what `check` reports);
`auto_tests` (generated requests for `auto:`).
May import: scenario_core.language, scenario_core.support."""
