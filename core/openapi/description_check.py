"""What `check` reports of the description behind an operation call, before anything runs: each
schema of the operation (parameters, request body, responses) that cannot be used — a `$ref` to
nothing, a refused `$ref` (remote, a device), a `$ref` cycle that never reaches a schema, a
schema that is not a mapping (`schema: "Pet"`), a pattern that does not compile, a keyword of
the wrong shape. Each is located in the description (`FILE:LINE:COL`, or its JSON pointer). At
run time the same problems fail the step that needs the schema (schema_check), never the run.
"""

from __future__ import annotations

from scenario_core.openapi.documents import OpenApiError
from scenario_core.openapi.operations import Operation, Schema
from scenario_core.openapi.schema_compile import schema_problems

MAX_PROBLEMS = 20  # per operation: a broken shared component would otherwise repeat in every one


def operation_schemas(operation: Operation) -> list[Schema]:
    """Every schema an operation declares, each once (a shared one is one Schema object)."""
    found: list[Schema] = [p.schema for p in operation.parameters if p.schema is not None]
    if operation.request_body is not None:
        found += [m.schema for m in operation.request_body.content.values() if m.schema is not None]
    for response in operation.responses.values():
        found += [m.schema for m in response.content.values() if m.schema is not None]
    unique: dict[tuple[str, str | int], Schema] = {}
    for schema in found:
        unique.setdefault((schema.file, schema.pointer if schema.pointer is not None else id(schema)), schema)
    return list(unique.values())


def operation_problems(operation: Operation) -> list[OpenApiError]:
    """Every located problem of the operation's schemas, each once, at most MAX_PROBLEMS."""
    problems: dict[str, OpenApiError] = {}
    for schema in operation_schemas(operation):
        for problem in schema_problems(schema):
            problems.setdefault(str(problem), problem)
        if len(problems) >= MAX_PROBLEMS:
            break
    return list(problems.values())[:MAX_PROBLEMS]
