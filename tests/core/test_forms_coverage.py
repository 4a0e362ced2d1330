"""OpenAPI coverage counts the fields of `application/x-www-form-urlencoded` and
`multipart/form-data` request bodies as it counts a JSON body's properties."""

from __future__ import annotations

import json
from pathlib import Path

from scenario_tui.cli.main import main

DEMO = Path(__file__).resolve().parents[2] / "core" / "demo"


def test_coverage_counts_form_and_multipart_body_fields(demo, write_scenario, tmp_path):
    path = write_scenario(
        f"parameters:\n  openapi: {DEMO / 'petstore.yaml'}\n  binding.auth.location: {DEMO / 'auth.yaml'}\n"
        f"  baseUrl: {demo.url}\n  binding.auth.baseUrl: {demo.url}\n"
        "scenario: s\n  when: using auth ^oauthToken\n    form:\n      grant_type: client_credentials\n"
        "      client_id: c\n      client_secret: s\n  then: status 200\n"
        "  when: ^uploadFiles\n    multipart:\n      note: hello\n  then: status 200\n"
    )
    report = tmp_path / "r.json"
    assert main(["run", str(path), "--coverage", "--report-json", str(report)]) == 0
    coverage = json.loads(report.read_text())["coverage"]
    operations = {op["id"]: op for d in coverage["descriptions"] for op in d["operations"]}
    assert operations["oauthToken"]["body"] == {"grant_type": 1, "client_id": 1, "client_secret": 1}
    assert operations["uploadFiles"]["body"] == {"note": 1, "photo": 0}
