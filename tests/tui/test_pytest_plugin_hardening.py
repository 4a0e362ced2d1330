"""The pytest plugin: scenarios of one name are as many results under xdist as in one
process (each node id is unique: `name [2]` for the second), and a run without pytest-xdist
accepts `--strict-markers` (the plugin adds xdist's group marker only where xdist is). Real
pytest runs (`pytester`), real xdist workers, the demo API."""

from __future__ import annotations

import httpx  # noqa: F401  (imported out here: see tests/tui/test_pytest_plugin.py)
import pytest

pytest_plugins = ["pytester"]

# Two scenarios named `read` in one feature, two features named `Pets`, two standalone `health`.
TWINS = """\
scenario: health
  when: GET /health
  then: status 200

scenario: health
  when: GET /health
  then: status 500

feature: Pets
  scenario: read
    when: GET /health
    then: status 200
  scenario: read
    when: GET /health
    then: status 404
  scenario: read [2]
    when: GET /health
    then: status 200

feature: Pets
  scenario: read
    when: GET /health
    then: status 418
"""

NODE_IDS = [
    "twins.scenario::health",
    "twins.scenario::health [2]",
    "twins.scenario::Pets::read",
    "twins.scenario::Pets::read [3]",  # `read [2]` is a scenario's own name below
    "twins.scenario::Pets::read [2]",
    "twins.scenario::Pets [2]::read",
]


@pytest.fixture(autouse=True)
def _inner_runs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    # as in test_pytest_plugin.py: the snapshot plugin must not end the outer session's folder
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:textual-snapshot -p no:cacheprovider -p no:asyncio")


@pytest.fixture
def twins(pytester: pytest.Pytester, demo) -> pytest.Pytester:
    pytester.makefile(".scenario", twins=TWINS)
    pytester.makeini(f"[pytest]\nscenario_base_url = {demo.url}\n")
    return pytester


def test_duplicate_names_get_unique_node_ids(twins):
    result = twins.runpytest("--collect-only", "-q")
    assert result.outlines[: len(NODE_IDS)] == NODE_IDS


def test_duplicate_names_keep_every_result_under_xdist(twins):
    serial = twins.runpytest_subprocess("-rA", "-n", "0")
    parallel = twins.runpytest_subprocess("-rA", "-n", "2")
    serial.assert_outcomes(passed=3, failed=3)
    parallel.assert_outcomes(passed=3, failed=3)  # before: one result per duplicated node id was lost

    def summary(result: pytest.RunResult) -> list[str]:
        return sorted(line.split("@")[0] for line in result.outlines if line.startswith(("PASSED ", "FAILED ")))

    assert summary(parallel) == summary(serial)
    assert {line.split(" ", 1)[1].split(" - ")[0] for line in summary(serial)} == set(NODE_IDS)


def test_duplicate_names_suffix_rule():
    from scenario_tui.integrations.pytest_plugin import unique_names

    assert unique_names(["a", "b", "a", "a"]) == ["a", "b", "a [2]", "a [3]"]
    assert unique_names(["a", "a", "a [2]"]) == ["a", "a [3]", "a [2]"]  # never a name another node has


def test_strict_markers_without_xdist(twins):
    result = twins.runpytest_subprocess("-p", "no:xdist", "--strict-markers", "-rA")
    result.assert_outcomes(passed=3, failed=3)
    assert "xdist_group" not in result.stdout.str()
