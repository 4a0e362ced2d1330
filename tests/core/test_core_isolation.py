"""The core runs without the TUI: importing all of it loads neither textual nor rich."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import scenario_core


def test_core_never_imports_textual_or_rich():
    modules = [m.name for m in pkgutil.walk_packages(scenario_core.__path__, "scenario_core.")]
    assert "scenario_core.language.parser" in modules and "scenario_core.run.executor" in modules
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""


def test_headless_commands_never_import_textual(tmp_path):
    path = tmp_path / "t.scenario"
    path.write_text("parameters:\n  timeout: 5\nscenario: s\n  when: GET /a\n")
    code = (
        "import sys\n"
        "from scenario_tui.cli.main import main\n"
        f"main(['check', {str(path)!r}])\n"
        f"main(['params', {str(path)!r}])\n"
        f"main(['params', '--json', {str(path)!r}])\n"
        "print('TEXTUAL' if any(m.split('.')[0] == 'textual' for m in sys.modules) else 'CLEAN')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip().endswith("CLEAN")
