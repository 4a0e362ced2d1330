"""The HTML report's coverage section: rendered from the JSON report's `coverage` object, as
plain tables (no script): per description each operation called or not, and per called operation
the responses never seen, parameters and body properties never sent, statuses not documented."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Iterable

from scenario_core.support.printable import visible

if TYPE_CHECKING:
    from scenario_core.report.json_shapes import CoverageJson, OperationCoverageJson


def _text(value: object) -> str:
    return escape(visible(str(value)), quote=True)


def _label(op: OperationCoverageJson) -> str:
    shape = f"{op['method']} {op['path']}"
    return f"{op['id']} ({shape})" if op.get("id") else shape


def _never(counts: dict[str, int]) -> str:
    return ", ".join(_text(k) for k, n in counts.items() if not n)


def coverage_section(coverage: CoverageJson) -> Iterable[str]:
    totals = coverage["operations"]
    yield '<section class="coverage" id="coverage"><h2>OpenAPI coverage</h2>'
    yield (
        f'<p class="counts" id="coverage-total">{totals["called"]} of {totals["total"]} operations called '
        f"({totals['percent']:g}%)</p>"
    )
    for description in coverage["descriptions"]:
        yield f"<h3>{_text(description['path'])}</h3>"
        yield (
            '<table class="coverage-table"><tr><th>operation</th><th>calls</th><th>auto</th>'
            "<th>responses never seen</th><th>parameters never sent</th><th>body properties never sent</th>"
            "<th>undocumented statuses</th></tr>"
        )
        for op in description["operations"]:
            state = "called" if op["called"] else "missing"
            undocumented = ", ".join(f"{_text(k)} ({n}×)" for k, n in sorted(op["undocumented"].items()))
            gaps = (
                (_never(op["responses"]), _never(op["parameters"]), _never(op["body"]))
                if op["called"]
                else ("", "", "")
            )
            yield (
                f'<tr class="{state}" data-operation="{_text(_label(op))}"><td>{_text(_label(op))}</td>'
                f"<td>{op['called'] or 'not called'}</td><td>{op['auto'] or ''}</td>"
                + "".join(f"<td>{g}</td>" for g in gaps)
                + f"<td>{undocumented}</td></tr>"
            )
        yield "</table>"
    yield "</section>"
