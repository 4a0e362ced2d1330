"""The `.scenario` language, both dialects: lexer, grammar, parser, the syntax tree (nodes), located
errors, step syntax, conditions, templates, tag expressions and the parameter key table.
May import: scenario_core.support."""
