"""Where a run's reports may be written: never over a file the run reads (a scenario, an OpenAPI
description, a `.fragment`, a `bodyFile`, the `--variables-file`, a `--plugins` file), never two
reports to one file, never over a device, FIFO, socket or directory. Checked before anything is
sent, comparing real paths (symlinks followed), so a typo costs a one-line error, not an input."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Sequence

from scenario_core.language.errors import UsageError
from scenario_core.language.nodes.blocks import FeatureNode, ScenarioFileNode
from scenario_core.language.nodes.steps import RequestStep, Step
from scenario_core.language.nodes.walk import walk_steps
from scenario_core.report.writing import ReportPathError, report_target
from scenario_core.support.printable import visible

if TYPE_CHECKING:
    from scenario_core.parameters.resolution import RunOverrides

SCENARIO_OR_OPENAPI = "a scenario or OpenAPI file"


def run_inputs(
    files: Sequence[ScenarioFileNode],
    overrides: RunOverrides | None = None,
    resource_roots: Sequence[str] = (),
    fragments: Sequence[str] = (),
    variables_files: Sequence[str] = (),
    plugins: Sequence[str] = (),
) -> list[tuple[str, str]]:
    """Every file the run reads, as (path, what it is): the scenario files and the OpenAPI
    descriptions they name, their `.fragment` files, the bodyFiles their calls name (those whose
    name holds no `{{…}}`: the others are only known while running), the variables files and the
    plugin files (a plugin given as a module name is no path)."""
    from scenario_core.language.fragment_files import fragment_files
    from scenario_core.language.parameter_keys import OPENAPI
    from scenario_core.run.body_files import find_body_file

    inputs: list[tuple[str, str]] = []
    for file in files:
        inputs.append((file.path, SCENARIO_OR_OPENAPI))
        for block in [file.parameters] + [f.parameters for f in file.features]:
            entry = block.get(OPENAPI) if block else None
            if entry is not None and isinstance(entry.value, str):  # ({{env.X}} paths: resolved per scenario)
                inputs.append((str(Path(file.path).parent / entry.value), SCENARIO_OR_OPENAPI))
        inputs += [(str(path), "a .fragment file") for path in fragment_files(file.path, fragments)]
        for step in _request_steps(file):
            name = step.body_file
            if name is not None and len(name.segments) == 1 and isinstance(name.segments[0], str):
                found = find_body_file(name.segments[0], file.path, resource_roots)
                if found is not None:
                    inputs.append((str(found), "a bodyFile"))
    openapi = getattr(overrides, "values", {}).get(OPENAPI) if overrides is not None else None
    if openapi:
        inputs.append((openapi, SCENARIO_OR_OPENAPI))
    inputs += [(path, "the --variables-file") for path in variables_files]
    inputs += [(path, "a --plugins file") for path in plugins if Path(path).expanduser().is_file()]
    return inputs


def _request_steps(file: ScenarioFileNode) -> Iterator[RequestStep]:
    """Every request step of a file: its backgrounds, scenarios and fragments (its own and those
    of .fragment files)."""
    blocks: list[tuple[Step, ...]] = [f.steps for f in file.fragments]
    blocks += [file.background.steps] if file.background is not None else []
    for item in file.items:
        if isinstance(item, FeatureNode):
            blocks += [item.background.steps] if item.background is not None else []
            blocks += [s.steps for s in item.scenarios]
        else:
            blocks.append(item.steps)
    for steps in blocks:
        yield from (step for step in walk_steps(steps) if isinstance(step, RequestStep))


def check_report_paths(reports: Sequence[tuple[str, str | None]], inputs: Sequence[tuple[str, str]]) -> None:
    """Refuse, before anything is sent, a report path (option, path) that would replace something
    it must not: a device, FIFO, socket or directory (also through a symlink), a file the run
    reads (`inputs`, from run_inputs), the other report; or that cannot be written (missing or
    read-only directory). A UsageError, one line."""
    targets: list[tuple[str, Path]] = []
    for option, path in reports:
        if not path:
            continue
        shown = visible(path)
        try:
            target = report_target(path)
        except ReportPathError as problem:
            raise UsageError(f"{option}: {visible(str(problem))}") from None
        if not os.access(target.parent, os.W_OK | os.X_OK):
            raise UsageError(f"{option}: cannot write in {visible(str(target.parent))}")
        for source, kind in inputs:
            if _same_file(target, source):
                what = shown if visible(source) == shown else f"{shown} is {visible(source)}, which"
                raise UsageError(f"{option}: {what} is an input of this run ({kind}); give the report another name")
        for other_option, other in targets:
            if target == other or _same_file(target, str(other)):
                raise UsageError(f"{option}: {shown} is also the {other_option} path; give each report its own file")
        targets.append((option, target))


def _same_file(target: Path, other: str) -> bool:
    try:
        return os.path.samefile(target, other)
    except (OSError, ValueError):  # one does not exist (yet): compare where they would be
        return Path(os.path.realpath(target)) == Path(os.path.realpath(other))
