"""The coverage model (scenario_core.report.coverage*): a pure consumer of the event stream plus
the descriptions in force, mergeable by addition, JSON round trip; matching plain requests to
operations by method and path template below the base URL."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from scenario_core.language.parser import load_file
from scenario_core.parameters.descriptions import SHARED
from scenario_core.parameters.resolution import RunOverrides, resolve_parameters
from scenario_core.report.coverage import Coverage
from scenario_core.report.coverage_collector import CoverageCollector, OperationsInForce
from scenario_core.report.coverage_static import static_coverage
from scenario_core.run.executor import run_to_completion

PETSTORE = Path(__file__).resolve().parents[2] / "core" / "demo" / "petstore.yaml"

ROUTES = """\
openapi: 3.0.3
info: {title: routes, version: "1"}
servers: [{url: "http://api.test/v1"}]
paths:
  /pets/{id}:
    get: {operationId: getPet, responses: {"200": {description: ok}}}
  /pets/mine:
    get: {operationId: myPets, responses: {"2XX": {description: ok}, default: {description: other}}}
"""


def in_force(tmp_path: Path, scenario: str = "scenario: s\n  when: GET /pets/1\n") -> OperationsInForce:
    (tmp_path / "routes.yaml").write_text(ROUTES)
    path = tmp_path / "t.scenario"
    path.write_text("parameters:\n  openapi: routes.yaml\n" + scenario)
    file = load_file(str(path))
    return OperationsInForce(Coverage(), resolve_parameters(file), str(path), SHARED)


def test_plain_requests_match_by_method_and_template_below_the_base_url(tmp_path):
    operations = in_force(tmp_path)
    found = operations.requested("GET", "http://api.test/v1/pets/42?x=1")
    assert found is not None and found[0].id == "getPet"
    assert operations.requested("POST", "http://api.test/v1/pets/42") is None
    assert operations.requested("GET", "http://api.test/pets/42") is None  # not below /v1


def test_a_literal_path_wins_over_a_template(tmp_path):
    found = in_force(tmp_path).requested("GET", "http://api.test/v1/pets/mine")
    assert found is not None and found[0].id == "myPets"


def test_static_paths_with_references_match_one_segment(tmp_path):
    scenario = "scenario: s\n  when: GET /pets/{{id}}\n  when: GET /pets/mine\n  when: DELETE /pets/1\n"
    in_force(tmp_path, scenario)  # writes the description and the scenario
    coverage = static_coverage([load_file(str(tmp_path / "t.scenario"))])
    ops = {op.id: op.called for _, op in coverage.operations()}
    assert ops == {"getPet": 1, "myPets": 1}


def test_merge_adds_counts_and_the_json_form_round_trips(demo, tmp_path):
    path = tmp_path / "t.scenario"
    path.write_text(
        textwrap.dedent(f"""\
        parameters:
          openapi: {PETSTORE}
          baseUrl: {demo.url}
        scenario: one
          when: GET /pets?limit=2
          when: GET /health
        """)
    )
    events = run_to_completion([load_file(str(path))], RunOverrides({}))
    first, second = CoverageCollector(), CoverageCollector()
    for event in events:  # a pure consumer: the same stream gives the same coverage
        first.feed(event)
        second.feed(event)
    assert first.coverage.to_json() == second.coverage.to_json()
    merged = Coverage.from_json(json.loads(json.dumps(first.coverage.to_json()))).merge(second.coverage)
    ops = {op.id: op for _, op in merged.operations()}
    assert ops["listPets"].called == 2 and ops["listPets"].responses == {"200": 2, "400": 0}
    assert ops["listPets"].parameters == {"query limit": 2, "query tag": 0}
    assert ops["getHealth"].called == 2
    assert merged.counts() == (2, first.coverage.counts()[1])
    assert Coverage.from_json(merged.to_json()).to_json() == merged.to_json()
