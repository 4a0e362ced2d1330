"""The executor's tests run both ways it is driven: without an event loop (run.blocking: the
headless `run`, the pytest plugin, run_to_completion) and on one (the TUI, `--jobs`, webhooks)."""

from __future__ import annotations

import pytest

from scenario_core.run import executor as executor_module

_EXECUTOR_TESTS = "test_executor_"
_DRIVES = ["without event loop", "on event loop"]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.definition.path.name.startswith(_EXECUTOR_TESTS) and "executor_drive" not in metafunc.fixturenames:
        metafunc.fixturenames.append("executor_drive")
        metafunc.parametrize("executor_drive", _DRIVES, indirect=True)


@pytest.fixture
def executor_drive(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """run_to_completion as it is, or made to take the event loop."""
    if request.param == _DRIVES[1]:
        monkeypatch.setattr(executor_module, "runs_without_event_loop", lambda files: False)
    return request.param
