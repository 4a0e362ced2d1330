"""What `scenario-tui run` prints and reports for BerryCrush's logRequests / logResponses,
errorContext.* and environment parameters, against the demo API (in process, plain output)."""

from __future__ import annotations

import json

from scenario_core.report.masking import MASK
from scenario_tui.cli.main import main


def run(capsys, *args: str) -> tuple[int, list[str]]:
    status = main(["run", *args])
    out = capsys.readouterr().out
    assert "\x1b[" not in out
    return status, out.splitlines()


LOGGED = """\
parameters:
  logRequests: true
  logResponses: true
feature: Logged
  scenario: create
    when: POST /echo
      body: {"name": "Rex", "password": "hunter2hunter2"}
    then: status 200
feature: Quiet
  parameters:
    logRequests: false
    logResponses: false
  scenario: quiet
    when: GET /health
"""


def test_log_requests_and_responses_print_a_line_each_masked_and_only_where_true(demo, write_scenario, capsys):
    status, lines = run(capsys, str(write_scenario(LOGGED)), "--base-url", demo.url)
    assert status == 0
    at = lines.index("  Logged")
    request, response, scenario = lines[at + 1 : at + 4]
    assert request == f'      → POST {demo.url}/echo  {{"name": "Rex", "password": "{MASK}"}}'
    assert response.startswith("      ← 200 OK (") and ' ms)  {"method": "POST"' in response
    assert "hunter2hunter2" not in "\n".join(lines)
    assert scenario.startswith("    ✓ create")
    at = lines.index("  Quiet")
    assert lines[at + 1].startswith("    ✓ quiet")  # logRequests: false in that feature


def test_log_lines_are_cut(demo, write_scenario, capsys):
    body = '{"text": "' + "x" * 2000 + '"}'
    text = f"parameters:\n  logRequests: true\nscenario: big\n  when: POST /echo\n    body: {body}\n"
    status, lines = run(capsys, str(write_scenario(text)), "--base-url", demo.url)
    (request,) = [line for line in lines if "→ POST" in line]
    assert request.endswith(f"… ({len(body)} bytes in all)") and len(request) < 400


FAILING = """\
parameters:
  environment: staging
scenario: wrong status
  when: POST /echo
    body: {"name": "Rex"}
  then: status 201
"""


def test_error_context_shows_both_bodies_by_default(demo, write_scenario, capsys, tmp_path):
    report, junit = tmp_path / "r.json", tmp_path / "j.xml"
    status, lines = run(
        capsys,
        str(write_scenario(FAILING)),
        "--base-url",
        demo.url,
        "--report-json",
        str(report),
        "--report-junit",
        str(junit),
    )
    assert status == 1
    failure = junit.read_text()
    assert "request body: {&quot;name&quot;: &quot;Rex&quot;}" in failure or 'request body: {"name": "Rex"}' in failure
    assert "response body: {" in failure
    at = lines.index(next(line for line in lines if "✗ wrong status" in line))
    assert lines[at + 1] == "      line 6  then: status 201"
    assert lines[at + 2].startswith("      expected status 201, got 200")
    assert lines[at + 3].startswith(f"      POST {demo.url}/echo → 200 OK (")
    assert lines[at + 4] == '        request body: {"name": "Rex"}'
    assert lines[at + 5].startswith('        response body: {"method": "POST"')
    data = json.loads(report.read_text())
    failed = data["files"][0]["scenarios"][0]["steps"][-1]
    message = failed["message"].split(" · ")
    assert message[0].startswith("expected status 201, got 200") and "\n" not in failed["message"]
    assert message[1] == 'request body: {"name": "Rex"}' and message[2].startswith('response body: {"method": "POST"')


def test_error_context_keys_turn_bodies_off_and_cut_them(demo, write_scenario, capsys, tmp_path):
    text = FAILING.replace(
        "parameters:\n", "parameters:\n  errorContext.includeRequestBody: false\n  errorContext.maxBodySize: 20\n"
    )
    report = tmp_path / "r.json"
    status, lines = run(capsys, str(write_scenario(text)), "--base-url", demo.url, "--report-json", str(report))
    assert status == 1
    assert not any("request body:" in line for line in lines)
    (response,) = [line for line in lines if "response body:" in line]
    assert response.startswith('        response body: {"method": "POST", " … (') and response.endswith(
        " bytes in all)"
    )
    text = FAILING.replace(
        "parameters:\n",
        "parameters:\n  errorContext.includeResponseBody: false\n  errorContext.includeRequestBody: false\n",
    )
    status, lines = run(capsys, str(write_scenario(text)), "--base-url", demo.url, "--report-json", str(report))
    assert not any("request body:" in line or "response body:" in line for line in lines)
    assert " · request body" not in json.loads(report.read_text())["files"][0]["scenarios"][0]["steps"][-1]["message"]


def test_environment_in_the_run_header_summary_and_json_report(demo, write_scenario, capsys, tmp_path):
    text = FAILING + "feature: Prod\n  parameters:\n    environment: prod\n  scenario: up\n    when: GET /health\n"
    report = tmp_path / "r.json"
    path = write_scenario(text)
    status, lines = run(capsys, str(path), "--base-url", demo.url, "--report-json", str(report))
    assert lines[0] == f"{path}  environment: staging"
    assert "  Prod  environment: prod" in lines
    assert lines[-1].endswith(" · environment: staging, prod") or "environment: staging, prod" in lines[-1]
    data = json.loads(report.read_text())
    file = data["files"][0]
    assert file["environment"] == "staging"
    assert "environment" not in file["scenarios"][0] and file["scenarios"][1]["environment"] == "prod"


ENV_VALUE = """\
parameters:
  baseUrl: "{{env.SCENARIO_TUI_TEST_URL}}"
scenario: up
  when: GET /health
"""


def test_check_params_and_run_resolve_env_references_or_name_the_unset_variable(
    demo, write_scenario, capsys, monkeypatch
):
    path = str(write_scenario(ENV_VALUE))
    monkeypatch.delenv("SCENARIO_TUI_TEST_URL", raising=False)
    for command in (["check", path], ["params", path], ["run", path]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert err == (
            f"{path}:2:3: error: baseUrl reads {{{{env.SCENARIO_TUI_TEST_URL}}}}, but environment "
            "variable SCENARIO_TUI_TEST_URL is not set\n"
        )
    monkeypatch.setenv("SCENARIO_TUI_TEST_URL", demo.url)
    assert main(["params", path, "--json", "--param", "tenant=acme"]) == 0
    nodes = json.loads(capsys.readouterr().out)["nodes"]
    assert nodes[0]["parameters"]["baseUrl"] == {
        "value": demo.url,
        "source": "file",
        "line": 2,
        "from": "$SCENARIO_TUI_TEST_URL",
    }
    assert nodes[1]["parameters"]["tenant"] == {"value": "acme", "source": "command-line", "line": None, "user": True}
    status, lines = run(capsys, path)
    assert status == 0 and lines[1].startswith("  ✓ up")
    assert main(["params", path]) == 0
    assert "$SCENARIO_TUI_TEST_URL" in capsys.readouterr().out  # (rich may wrap after "from")


def test_params_masks_secret_header_parameters(write_scenario, capsys, monkeypatch):
    monkeypatch.setenv("SCENARIO_TUI_TEST_TOKEN", "tok-1234567890")
    path = str(
        write_scenario(
            'parameters:\n  header.Authorization: "Bearer {{env.SCENARIO_TUI_TEST_TOKEN}}"\n'
            "  header.X-Api-Key: k-1234567890\n  header.X-Tenant: acme\n"
            "scenario: s\n  when: GET /health\n"
        )
    )
    assert main(["params", path, "--json"]) == 0
    values = json.loads(capsys.readouterr().out)["nodes"][0]["parameters"]
    assert values["header.Authorization"]["value"] == f"Bearer {MASK}"
    assert values["header.X-Api-Key"]["value"] == MASK and values["header.X-Tenant"]["value"] == "acme"
    assert main(["params", path]) == 0
    out = capsys.readouterr().out
    assert "tok-1234567890" not in out and "k-1234567890" not in out and "acme" in out
