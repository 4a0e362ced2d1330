"""`pytest examples/`: every example that passes, as `scenario-tui run examples` runs them.

- `_fails-on-purpose/` is not collected: its files fail on purpose (a file of mistakes for
  `check`, a draft with warnings, a scope puzzle); the report header says so.
- `plugins/custom_steps.scenario` needs its custom steps: `plugins/pet_steps.py` is loaded as
  `--scenario-plugins` would load it (that module is a plugin, not a test module).
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent
LEFT_OUT = "_fails-on-purpose"
PET_STEPS = str(HERE / "plugins" / "pet_steps.py")

collect_ignore = [LEFT_OUT]


@pytest.hookimpl(tryfirst=True)  # before the scenario plugin reads its options
def pytest_configure(config: pytest.Config) -> None:
    plugins = config.option.scenario_plugins
    if PET_STEPS not in plugins:
        plugins.append(PET_STEPS)


def pytest_report_header(config: pytest.Config) -> str:
    return f"examples/{LEFT_OUT}/ is not collected: its files fail on purpose (examples/README.md)"
