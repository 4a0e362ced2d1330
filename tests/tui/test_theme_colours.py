"""The panels take their colours from the Textual theme (scenario_tui/widgets/theme_styles.py):
no string in tui/'s Python names a colour or gives a hex value. The one exception is the console
output's palette (tui/output/palette.py), which names the terminal's ANSI colours for `run` and
`params` (a terminal's own palette recolours those)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

TUI = Path(__file__).resolve().parents[2] / "tui"
PALETTE = TUI / "output" / "palette.py"
COLOUR = re.compile(
    r"\b(?:bright_)?(?:red|green|yellow|blue|cyan|magenta|white|black|grey\d*|gray\d*|orange\d*|purple)\b"
    r"|#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b|\brgb\("
)


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring constants: prose, not styles."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def colour_strings(path: Path) -> list[str]:
    """`line: 'string'` for each string of `path` (docstrings aside) that names a colour."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    prose = _docstrings(tree)
    return [
        f"{node.lineno}: {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in prose
        and COLOUR.search(node.value)
    ]


def test_no_colour_is_named_in_tui_python() -> None:
    found = [
        f"{path.relative_to(TUI.parent)}:{hit}"
        for path in sorted(TUI.rglob("*.py"))
        if path != PALETTE
        for hit in colour_strings(path)
    ]
    assert found == [], "use a style of scenario_tui.widgets.theme_styles (or a $variable in CSS):\n" + "\n".join(found)


def test_the_check_finds_a_colour(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('"""Prose may say red."""\nSTYLE = "bold red"\nCSS = "Widget { color: #ff0000; }"\n')
    hits = [hit.split(": ", 1)[1] for hit in colour_strings(sample)]
    assert hits == ["'bold red'", "'Widget { color: #ff0000; }'"]
