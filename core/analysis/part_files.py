"""`check`'s errors for a `multipart:` file part whose literal path resolves to no file
(docs/spec/requests.md#body-forms): located at the path, as `bodyFile:` names are looked up
(--resource-root, the scenario file's folder, then each parent). A path holding `{{…}}` is only
known when the step runs, which fails it naming the path."""

from __future__ import annotations

from typing import Sequence

from scenario_core.language.errors import Diagnostic
from scenario_core.language.nodes.blocks import ScenarioFileNode
from scenario_core.language.nodes.steps import RequestStep
from scenario_core.language.nodes.walk import step_blocks, walk_steps

MISSING_PART_FILE = "missing-part-file"


def missing_part_files(file: ScenarioFileNode, resource_roots: Sequence[str] = ()) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    seen: set[tuple[int, int]] = set()
    for steps in step_blocks(file):
        for step in walk_steps(steps):
            if type(step) is not RequestStep or not step.multipart:
                continue
            for part in step.multipart:
                where = part.value.location
                if not part.file or part.value.refs or where is None or (where.line, where.column) in seen:
                    continue
                seen.add((where.line, where.column))
                from scenario_core.run.body_files import find_body_file  # only files with a file part pay for it

                source = where.file or file.path
                path = part.value.text
                if find_body_file(path, source, resource_roots) is None:
                    message = f"multipart file '{path}' of part '{part.name}' not found beside {source} or above it"
                    found.append(Diagnostic(where, message, code=MISSING_PART_FILE))
    return found
