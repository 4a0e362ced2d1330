"""Parameters once resolved: effective values with provenance, which store a scenario shares,
run inputs (--var, variables files), the OpenAPI descriptions in force and the operation calls
they resolve, the file-level diagnostics only resolution can find, and `check`'s one pass over
every stage (`diagnostics.read_all_stages`), with the errors local to one scenario (`local_errors`).
May import: scenario_core.openapi, scenario_core.custom_steps, scenario_core.language, scenario_core.support."""
