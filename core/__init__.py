"""scenario_core: the `.scenario` language and its engine. Never imports textual or rich.

Layers, top to bottom (each may import only those below it; `pyproject.toml`'s import-linter
contracts keep it so):

    importing           curl, HAR and OpenAPI readers into the import model
    editor | report     the language service and the one writer; reports, masking, curl
    analysis            knowing before running (static scope analysis, check's warnings)
    run                 executor, events, scopes, stepper, assertions; run.http, the transport
    parameters          effective parameters, stores, run inputs, descriptions in force
    custom_steps        Python steps and assertions (the plugin API)
    openapi             descriptions, operations, request building, schema checks
    language            lexer, grammar, parser, syntax tree, errors, templates, key table
    support             input files, printable text, JSON depth, secret rules

`demo` (the bundled demo API) stands apart and imports none of them.
"""
