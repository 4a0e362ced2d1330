"""The pytest plugin (tui/pytest_plugin.py), run by pytest itself (`pytester`) against the demo API:
collection, markers, options and ini keys, failure reports, deselection, invalid files, JUnit XML,
and real xdist workers giving the same results as one process."""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import httpx  # noqa: F401
import pytest

# In-process runs (pytester.runpytest) drop from sys.modules what they imported; the HTTP client
# keeps a subclass of httpx's stream class made on first use, so httpx must be imported out here:
# a second inner run would otherwise meet a fresh httpx that does not know that class.
pytest_plugins = ["pytester"]

PETS = """\
parameters:
  shareVariablesAcrossScenarios: true

background:
  when: POST /login
    body: {"username": "demo", "password": "demo"}
  then: status 200
  extract: token from $.token

@smoke
scenario: health
  when: GET /health
  then: status 200

@pets
feature: Pets
  scenario: create pet
    when: POST /pets
      headers:
        Authorization: Bearer {{token}}
      body: {"name": "Rex", "tag": "dog"}
    then: status 201
    extract: petId from $.id

  @slow
  scenario: read pet
    when: GET /pets/{{petId}}
    then: status 200
    then: $.name == "Rex"

scenario: echo fails
  when: GET /echo
    headers:
      Authorization: Bearer {{token}}
  then: status 404
"""
# Line numbers the tests name: `create pet` at 17, its extract at 23, the failing check at 35.


@pytest.fixture(autouse=True)
def _inner_runs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    # The snapshot plugin's session end shares one temporary folder per process: an inner
    # session would remove the outer one's. Not needed for .scenario files anyway.
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:textual-snapshot -p no:cacheprovider -p no:asyncio")


@pytest.fixture
def suite(pytester: pytest.Pytester, demo):
    """A folder with pets.scenario and an ini pointing the plugin at the demo API."""
    pytester.makefile(".scenario", pets=PETS)
    pytester.makeini(f"[pytest]\nscenario_base_url = {demo.url}\n")
    return pytester


def outcomes(result: pytest.RunResult) -> dict[str, str]:
    """`-v` lines: node id (without xdist's `@group` suffix) -> PASSED/FAILED/SKIPPED."""
    found = {}
    for line in result.outlines:
        match = re.search(r"(PASSED|FAILED|SKIPPED|ERROR) (\S.*?\.scenario::.*?)\s*(?:\[|$)", line) or re.search(
            r"^(\S.*?\.scenario::.*?) (PASSED|FAILED|SKIPPED|ERROR)", line
        )
        if match is None:
            continue
        status, node = match.groups() if match.group(1).isupper() else match.groups()[::-1]
        found[node.split("@")[0].strip()] = status
    return found


def test_connection_refused_says_which_base_url_it_expects(pytester):
    pytester.makefile(".scenario", down="scenario: health\n  when: GET /health\n  then: status 200\n")
    pytester.makeini("[pytest]\nscenario_base_url = http://127.0.0.1:9\n")
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    hints = [line for line in result.outlines if line.startswith("hint: ")]
    assert hints == [
        "hint: nothing answers at http://127.0.0.1:9, the base URL this scenario sends to: start the API there,"
        " or pass --scenario-base-url URL (or set scenario_base_url in the pytest ini)"
    ]


def test_other_failures_get_no_such_hint(suite):
    result = suite.runpytest()
    result.assert_outcomes(passed=3, failed=1)
    assert not [line for line in result.outlines if line.startswith("hint: ")]


def test_collection_names_follow_the_tree(suite):
    result = suite.runpytest("--collect-only", "-q")
    assert result.outlines[:4] == [
        "pets.scenario::health",
        "pets.scenario::Pets::create pet",
        "pets.scenario::Pets::read pet",
        "pets.scenario::echo fails",
    ]


def test_outline_rows_are_items(pytester, demo):
    pytester.makefile(
        ".scenario",
        rows="""\
outline: echo
  when: GET /echo
    query:
      who: {{who}}
  then: status 200
  examples:
    | who |
    | ada |
    | bob |
""",
    )
    result = pytester.runpytest("--collect-only", "-q", f"--scenario-base-url={demo.url}")
    items = [line for line in result.outlines if line.startswith("rows.scenario::")]
    assert items == ["rows.scenario::echo #1 (who=ada)", "rows.scenario::echo #2 (who=bob)"], result.outlines
    pytester.runpytest(f"--scenario-base-url={demo.url}", "-k", "bob").assert_outcomes(passed=1, deselected=1)


def test_run_reports_each_scenario(suite):
    result = suite.runpytest("-v")
    result.assert_outcomes(passed=3, failed=1)
    assert outcomes(result) == {
        "pets.scenario::health": "PASSED",
        "pets.scenario::Pets::create pet": "PASSED",
        "pets.scenario::Pets::read pet": "PASSED",
        "pets.scenario::echo fails": "FAILED",
    }


def test_tags_are_markers_and_k_selects_by_name(suite):
    result = suite.runpytest("-v", "--strict-markers", "-m", "smoke or slow")
    assert outcomes(result) == {"pets.scenario::health": "PASSED", "pets.scenario::Pets::read pet": "FAILED"}
    result = suite.runpytest("-v", "--strict-markers", "-m", "pets and not slow")  # a feature's tag too
    assert outcomes(result) == {"pets.scenario::Pets::create pet": "PASSED"}
    result = suite.runpytest("-v", "-k", "health or echo")
    assert set(outcomes(result)) == {"pets.scenario::health", "pets.scenario::echo fails"}


def test_a_deselected_extractor_is_named_as_such(suite):
    result = suite.runpytest("-k", "read")
    result.assert_outcomes(failed=1, deselected=3)
    result.stdout.fnmatch_lines(
        [
            "*undefined variable 'petId'*'petId' is extracted by scenario 'create pet' (line 23), which was not selected.*"
        ]
    )


def test_a_failure_is_the_step_and_a_masked_exchange_not_a_traceback(suite):
    result = suite.runpytest("-k", "echo")
    result.assert_outcomes(failed=1, deselected=3)
    text = result.stdout.str()
    assert "Traceback" not in text and "pytest_plugin.py" not in text
    result.stdout.fnmatch_lines(
        [
            "*_ scenario: echo fails _*",
            "line 35  then: status 404",
            "expected status 404, got 200 (body: *",
            "GET http://127.0.0.1:*/echo → 200 OK (* ms)",
            "response body: *",
        ]
    )
    body = next(line for line in result.outlines if line.startswith("response body:"))
    assert '"authorization": "Bearer ••••••"' in body  # the token the server echoed is masked
    shown = suite.runpytest("-k", "echo", "--scenario-show-secrets")
    assert '"authorization": "Bearer ••••••"' not in shown.stdout.str()
    assert re.search(r'"authorization": "Bearer [A-Za-z0-9_-]{20,}"', shown.stdout.str())


def test_options_mirror_the_cli(pytester, demo):
    pytester.makefile(
        ".scenario",
        vars="""\
scenario: variables and parameters reach the request
  when: GET /echo
    query:
      who: {{who}}
      limit: {{param.limit}}
  then: $.query.who == "ada"
  then: $.query.limit == "5"
""",
    )
    result = pytester.runpytest(
        f"--scenario-base-url={demo.url}", "--scenario-var", "who=ada", "--scenario-param", "limit=5"
    )
    result.assert_outcomes(passed=1)
    pytester.makeini(
        f"[pytest]\nscenario_base_url = {demo.url}\nscenario_var =\n    who=ada\nscenario_param =\n    limit=5\n"
    )
    pytester.runpytest().assert_outcomes(passed=1)
    # The command line is added after the ini lines: the later value wins.
    pytester.runpytest("--scenario-var", "who=bob").assert_outcomes(failed=1)


def test_a_bad_option_is_one_usage_line(pytester):
    result = pytester.runpytest("--scenario-var", "not a name=1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--scenario-var" in result.stderr.str() and "Traceback" not in result.stderr.str()


def test_a_file_with_errors_is_one_collection_error(pytester, demo):
    # A structural error (an unknown parameter near a known key) refuses the file; errors local
    # to one scenario (docs/spec/steps.md#errors-local-to-one-scenario) do not: see test_an_error_local_to_one_scenario_...
    pytester.makefile(
        ".scenario", broken="parameters:\n  timout: 5\nscenario: one\n  when: GET /health\n  then: status 200\n"
    )
    pytester.makefile(".scenario", good="scenario: fine\n  when: GET /health\n  then: status 200\n")
    result = pytester.runpytest(f"--scenario-base-url={demo.url}", "--continue-on-collection-errors")
    result.assert_outcomes(passed=1, errors=1)
    text = result.stdout.str()
    assert "Traceback" not in text and "pytest_plugin.py" not in text
    result.stdout.fnmatch_lines(["broken.scenario:2:*: error: *"])


def test_junitxml(suite):
    result = suite.runpytest("--junitxml=out.xml")
    result.assert_outcomes(passed=3, failed=1)
    root = ET.parse(suite.path / "out.xml").getroot()
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert set(cases) == {"health", "create pet", "read pet", "echo fails"}
    # the path's dots left out, as run's JUnit report writes it; the file stays in file=
    assert cases["create pet"].get("classname") == "pets.Pets"
    assert cases["health"].get("classname") == "pets"
    failure = cases["echo fails"].find("failure")
    assert failure is not None and "line 35  then: status 404" in failure.text
    assert "Traceback" not in failure.text


def test_the_plugin_never_imports_textual_or_rich():
    code = (
        "import sys, scenario_tui.integrations.pytest_plugin; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_xdist_workers_give_the_results_of_one_process(pytester, demo):
    pytester.makeini(f"[pytest]\nscenario_base_url = {demo.url}\n")
    for n in range(4):  # each file creates its own pet and reads it back through its store
        pytester.makefile(".scenario", **{f"file{n}": PETS.replace('"Rex"', f'"Rex{n}"')})
    serial = pytester.runpytest_subprocess("-v", "-n", "0")
    parallel = pytester.runpytest_subprocess("-v", "-n", "2", "--junitxml=out.xml")
    assert len(outcomes(serial)) == 16
    classnames = {case.get("classname") for case in ET.parse(pytester.path / "out.xml").getroot().iter("testcase")}
    assert classnames == {f"file{n}{feature}" for n in range(4) for feature in ("", ".Pets")}  # set in the controller
    assert outcomes(parallel) == outcomes(serial)
    parallel.assert_outcomes(passed=12, failed=4)
    # loadgroup is the default: every file ran on one worker.
    workers: dict[str, set[str]] = {}
    for line in parallel.outlines:
        match = re.match(r"\[(gw\d)\] .*? (file\d\.scenario)::", line)
        if match:
            workers.setdefault(match.group(2), set()).add(match.group(1))
    assert len(workers) == 4 and all(len(w) == 1 for w in workers.values()), workers


def test_an_error_local_to_one_scenario_fails_only_its_item(pytester, demo):
    """docs/spec/steps.md#errors-local-to-one-scenario: an operation no description has ends its scenario; the file is not refused."""
    petstore = Path(__file__).resolve().parents[2] / "core" / "demo" / "petstore.yaml"
    pytester.makefile(
        ".scenario",
        local=f"""\
parameters:
  openapi: {petstore}
scenario: broken
  when I list the inventory
    call ^listInventory
scenario: sound
  when I check health
    call ^getHealth
    assert status 200
""",
    )
    pytester.makeini(f"[pytest]\nscenario_base_url = {demo.url}\n")
    result = pytester.runpytest("-v")
    assert outcomes(result) == {"local.scenario::broken": "FAILED", "local.scenario::sound": "PASSED"}
    assert "operation 'listInventory' not found" in result.stdout.str()


SCOPE_UNITS = """\
scenario: alone one
  when: GET /health
  then: status 200

scenario: alone two
  when: GET /health
  then: status 200

feature: Shared
  parameters:
    shareVariablesAcrossScenarios: true
  scenario: login
    when: POST /login
      body: {"username": "demo", "password": "demo"}
    then: status 200
    extract: token from $.token
  scenario: create
    when: POST /pets
      headers:
        Authorization: Bearer {{token}}
      body: {"name": "Rex", "tag": "dog"}
    then: status 201
    extract: petId from $.id
  scenario: read
    when: GET /pets/{{petId}}
    then: status 200

scenario: alone three
  when: GET /health
  then: status 200
"""


def test_scenario_dist_scope_spreads_units_over_workers_and_keeps_a_sharing_feature_on_one(pytester, demo):
    """docs/spec/scopes.md#scope-parallel-runs under xdist: the same units as `run --dist scope`."""
    pytester.makeini(f"[pytest]\nscenario_base_url = {demo.url}\n")
    pytester.makefile(".scenario", suite=SCOPE_UNITS)
    serial = pytester.runpytest_subprocess("-v", "-n", "0")
    demo.reset()
    parallel = pytester.runpytest_subprocess("-v", "-n", "2", "--scenario-dist", "scope")
    assert outcomes(serial) == outcomes(parallel) and len(outcomes(serial)) == 6
    parallel.assert_outcomes(passed=6)
    workers: dict[str, str] = {}
    for line in parallel.outlines:
        match = re.match(r"\[(gw\d)\] .*? suite\.scenario::(.*?)(?:@| PASSED| FAILED|\s*$)", line)
        if match:
            workers[match.group(2).strip()] = match.group(1)
    shared = {workers[name] for name in workers if name.startswith("Shared::")}
    assert len(shared) == 1, workers  # a sharing feature is never split
    assert set(workers.values()) == {"gw0", "gw1"}, workers  # the file's units were spread


def test_scenario_dist_takes_file_or_scope(pytester):
    pytester.makefile(".scenario", suite=SCOPE_UNITS)
    pytester.makeini("[pytest]\nscenario_dist = rows\nscenario_base_url = http://127.0.0.1:9\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "scenario_dist: expected file or scope, got 'rows'" in result.stderr.str()
