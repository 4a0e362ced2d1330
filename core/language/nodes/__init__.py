"""The syntax tree of a `.scenario` file: frozen dataclasses, every node located in its source.

Values that steps send or compare are kept as templates (segments of text and `{{NAME}}`
references) so the executor only substitutes; nothing is re-parsed at run time. One module per
level, each importing only those above it in this list: `base` (where a node is; the templates
values are kept as), `assertions` (what `then:`, `assert` and `if` check), `steps` (every kind of
step), `blocks` (parameters, backgrounds, fragments, scenarios, features and the file) and `walk`
(walking steps, conditions and includes).
May import: nothing outside this package.
"""
