"""The layout keeps its promises: no module imports itself back through others (lazy and
type-checking imports count), every source file stays small, and every package says what it holds
and may import. The layer contracts themselves are import-linter's (pyproject.toml, `lint-imports`
in .ci/run)."""

from __future__ import annotations

import ast
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 500


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    graph = grimp.build_graph("scenario_core", "scenario_tui", cache_dir=None)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            targets = edges.get(node, [])
            if i < len(targets):
                work.append((node, i + 1))
                target = targets[i]
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return found


def test_no_module_import_cycles():
    assert _cycles() == []


def _sources() -> list[Path]:
    return sorted(p for folder in ("core", "tui") for p in (ROOT / folder).rglob("*.py"))


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_over_500_lines(path: Path):
    lines = path.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines; split it along a seam"


def test_every_package_says_what_it_holds_and_may_import():
    for init in sorted(p for folder in ("core", "tui") for p in (ROOT / folder).rglob("__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc, f"{init.relative_to(ROOT)} has no docstring"
        top_level = init.parent in (ROOT / "core", ROOT / "tui")
        assert top_level or "import" in doc, f"{init.relative_to(ROOT)} does not say what it may import"


def test_every_package_is_in_the_distribution():
    """pyproject.toml lists the packages a wheel holds: a package left out works in an editable
    install and is missing from `pip install .` or pipx (scenario_core.importing once was)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    listed = text[text.index("packages = [") : text.index("]", text.index("packages = ["))]
    for top, name in (("core", "scenario_core"), ("tui", "scenario_tui")):
        for init in sorted((ROOT / top).rglob("__init__.py")):
            package = ".".join((name, *init.parent.relative_to(ROOT / top).parts))
            assert f'"{package}"' in listed, f"{package} is not in pyproject.toml's packages"


def test_the_bundled_example_is_where_an_installed_demo_looks_for_it():
    """`scenario-tui demo` from a wheel (pip install ., pipx) opens the copy data-files installs
    under the prefix; its place there and the one open_tui.py looks in are the same."""
    import sys

    from scenario_tui.cli import open_tui

    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"share/scenario-tui/examples" = ["examples/pets.scenario"]' in text
    assert open_tui._INSTALLED == Path(sys.prefix, "share", "scenario-tui", "examples", "pets.scenario")
    assert open_tui.EXAMPLE == ROOT / "examples" / "pets.scenario"  # in a clone, the clone's own
