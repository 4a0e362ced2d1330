"""Output of a run: `recorder` (events → `records`), the reports rendered from it (`json_report`,
its shape typed by `json_shapes`, `junit`, `html`, written atomically by `writing`, where
`report_paths` allows: never over an input of the run), `failures` (a failed scenario in lines,
shared with the headless output and the pytest plugin), `masking` of events, and `curl` commands.
May import: scenario_core.run (its events) and every layer below; never the analysis or the editor."""
