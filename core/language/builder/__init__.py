"""Building the syntax tree while lark parses, and checking everything a block's structure can't:
parameter keys and values, placement of blocks, step lines, fragment references. Problems are
collected as located errors, not raised, so one pass reports every error of a file it can parse.

`transformer` holds the Builder (lark's transformer), which binds each grammar rule to the
function of its family that builds it: `blocks` (the file, features, backgrounds, fragments,
scenarios, outlines and examples), `dialects` (a step line read as ours or BerryCrush's),
`requests` and `bodies` (a request and its children), `directives` (BerryCrush's `call`,
`assert`, `extract`, `include`, `if`, `fail`, `webhook`), `parameter_blocks`, and `includes`
(the whole file's include checks). `context` is what they share: one parse's state, locations,
error collection, `name: value` lines.
May import: scenario_core.language's other modules, scenario_core.support.
"""
