"""`run --coverage` / `check --coverage`: OpenAPI coverage as plain text lines after the summary.
Headless (no rich, no textual): the lines are the same on a terminal and in a CI log."""

from __future__ import annotations

from scenario_core.report.coverage import Coverage, OperationCoverage
from scenario_core.support.plural import counted


def _ratio(counts: dict[str, int]) -> str:
    return f"{sum(1 for n in counts.values() if n)}/{len(counts)}"


def operation_line(op: OperationCoverage) -> str:
    if not op.called:
        auto = f" (auto: tests only, {counted(op.auto, 'request')})" if op.auto else ""
        return f"    ✗ {op.label}{auto}"
    parts = [f"{op.called} call{'s' if op.called != 1 else ''}"]
    for name, counts in (("responses", op.responses), ("parameters", op.parameters), ("body", op.body)):
        if counts:
            parts.append(f"{name} {_ratio(counts)}")
    if op.auto:
        parts.append(f"auto {op.auto}")
    return f"    ✓ {op.label}  " + " · ".join(parts)


def gap_lines(coverage: Coverage) -> list[str]:
    """Per called operation, what it still lacks; then statuses seen that are not documented."""
    lines = []
    for _, op in coverage.operations():
        if not op.called:
            continue
        gaps = op.gaps()
        said = [f"response {k} never seen" for k in gaps["responses"]]
        said += [f"parameter {k} never sent" for k in gaps["parameters"]]
        said += [f"body property {k} never sent" for k in gaps["body"]]
        if said:
            lines.append(f"    {op.label}: " + "; ".join(said))
    for _, op in coverage.operations():
        if op.undocumented:
            seen = ", ".join(f"{status} ({n}×)" for status, n in sorted(op.undocumented.items()))
            lines.append(f"    {op.label}: undocumented status {seen}")
    return lines


NOTHING_TO_COVER = (
    "no file of this run has an OpenAPI description in force (set the openapi parameter, or --openapi): "
    "there are no operations to cover"
)


def coverage_lines(coverage: Coverage) -> list[str]:
    called, total = coverage.counts()
    lines = ["", f"Coverage: {called} of {total} operations called ({coverage.percent():g}%)"]
    for description in coverage.ordered():
        ops = list(description.operations.values())
        done = sum(1 for op in ops if op.called)
        lines.append(f"  {description.path}  {done}/{len(ops)}")
        lines.extend(operation_line(op) for op in ops)
    gaps = gap_lines(coverage)
    if gaps:
        lines.append("  Gaps:")
        lines.extend(gaps)
    return lines


def minimum_lines(coverage: Coverage, minimum: float) -> list[str]:
    """`--coverage-min`: the shortfall and what is missing, or nothing when it is met."""
    if coverage.percent() >= minimum:
        return []
    lines = [f"Coverage {coverage.percent():g}% of operations is below --coverage-min {minimum:g}%; not called:"]
    lines.extend(f"  {d.path}: {op.label}" for d, op in coverage.missing())
    return lines


def static_lines(coverage: Coverage) -> list[str]:
    """`check --coverage`: how many operations some request step calls, and which none does."""
    called, total = coverage.counts()
    lines = [f"Coverage (static): {called} of {total} operations called by some scenario ({coverage.percent():g}%)"]
    missing = coverage.missing()
    if missing:
        lines.append("  not called:")
        lines.extend(f"    {d.path}: {op.label}" + (" (auto: tests only)" if op.auto else "") for d, op in missing)
    return lines
