"""The `.scenario` language, both dialects: lexer (`line_lexer`), grammar (`grammar.lark`), parser
(`parser` the front door, `parse_cache` the trees kept between runs, `lark_parser` lark's side,
with `syntax_errors` wording what it could not read and `typo_hints` the did-you-mean
of a line one slip from a step), the builder that makes the syntax
tree inside the parse (`builder/`), the syntax tree itself (`nodes/`), located errors (`errors`),
step syntax, conditions (`conditions`, `condition_operands`), templates, tag expressions, the
parameter key table (`parameter_keys`) and each parameter type's parser (`parameter_values`).
May import: scenario_core.support."""

from scenario_core.language.lark_without_regex import hide_regex_from_lark

hide_regex_from_lark()
