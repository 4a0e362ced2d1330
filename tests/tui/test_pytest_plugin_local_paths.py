"""The pytest plugin runs a file whose one scenario has an invalid JSON path (docs/spec/steps.md#errors-local-to-one-scenario):
that item fails at its line with the path's message, the others run and pass."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

THREE = """\
scenario: first
  when: GET /health
  then: status 200
scenario: middle
  when: GET /health
  extract: x from $.[[bad
scenario: last
  when: GET /pets
  then: status 200
"""


@pytest.fixture(autouse=True)
def _inner_runs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    # As tests/tui/test_pytest_plugin.py: the inner session must not share the snapshot plugin's folder.
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:textual-snapshot -p no:cacheprovider -p no:asyncio")


def test_an_invalid_json_path_fails_only_its_item_in_the_pytest_plugin(pytester, demo):
    pytester.makefile(".scenario", paths=THREE)
    pytester.makeini(f"[pytest]\nscenario_base_url = {demo.url}\n")
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=2, failed=1)
    out = result.stdout.str()
    assert "paths.scenario::middle FAILED" in out
    assert "line 6: invalid JSON path '$.[[bad'" in out
    assert "Traceback" not in out
