"""Running. The executor is a pull-based stream of events (`executor`: files, features,
scenarios, each plan's steps); each step is run by `steps`, with the modules of its paths:
`sending` (a request built and sent: timeout, size cap, retry, redirects, stop), `operation_calls`
(`^op` calls, `then: schema`, autoAssertions), `auto_tests`, `body_files`, `step_checks`
(`then:` / `assert`, `extract:`) and `custom_step_runs` (custom steps and assertions). Beside them: `plan`
(what a scenario runs), `state` (what a file and a scenario carry), the `events`, variable
`scopes`, `lookup`, explanations (`explain`), `assertions` and `comparison`, `retry`, `webhooks`
(with `webhook_calls`, what a hook received),
the `stepper` that drives a run step by step, its records (`step_runs`) and, while paused, edits
a variable (`edits`), runs a finished step again (`rerun`) and builds the request about to be
sent without sending it (`previews`), and `run.http` (the HTTP/1.1 transport).
May import: scenario_core.parameters, scenario_core.custom_steps, scenario_core.openapi,
scenario_core.language, scenario_core.support."""
