"""`scenario-tui run` as a whole process against the demo API: exit codes, output, reports,
masking, Ctrl+C, and that the headless path never imports textual."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import pytest

from scenario_core.report.masking import MASK
from tests.helpers import ENV, SCRIPT, cli

PASSING = """
feature: Health
  @smoke
  scenario: is up
    when: GET /health
    then: status 200
    then: $.status == "ok"
  @slow
  scenario: not selected
    when: GET /slow?ms=10
"""

FAILING = """
scenario: fine
  when: GET /health
  then: status 200
scenario: broken
  when: GET /pets/42
  then: status 200
  then: $.name == "Rex"
"""

SECRETS = """
scenario: leaky
  when: POST /login
    body: {"username": "ann", "password": "{{password}}"}
  extract: token from $.token
  when: POST /echo
    headers:
      Authorization: Bearer {{token}}
      X-Api-Key: {{apiKey}}
    body: {"note": "{{apiKey}}", "t": "{{token}}"}
  then: $.json.t == "something else"
"""
SECRET_VARS = ["--var", "apiKey=sk-live-1234567890", "--var", "password=hunter2hunter2"]


def run(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return cli("run", *args, timeout=timeout)


def test_exit_0_when_all_selected_pass_and_tag_skips_do_not_fail(demo, write_scenario, tmp_path):
    path = write_scenario(PASSING)
    result = run(str(path), "--base-url", demo.url, "--tags", "smoke", "--report-json", str(tmp_path / "r.json"))
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0] == str(path)
    assert lines[1] == "  Health"
    assert lines[2].startswith("    ✓ is up  ") and lines[2].endswith(" ms")
    assert lines[3].startswith("    – not selected  skipped: not selected by tags")
    summary = lines[-1]
    assert summary.startswith("2 scenarios: 1 passed, 0 failed, 1 skipped in ")
    assert "1 request, " in summary and " req/s" in summary and f"report: {tmp_path / 'r.json'}" in summary
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["summary"]["skipped"] == 1 and report["interrupted"] is False


def test_exit_1_when_a_scenario_fails_with_the_failing_step_and_exchange(demo, write_scenario):
    result = run(str(write_scenario(FAILING)), "--base-url", demo.url)
    assert result.returncode == 1, result.stderr
    out = result.stdout
    assert "  ✓ fine  " in out and "  ✗ broken  " in out
    lines = out.splitlines()
    at = lines.index(next(line for line in lines if "✗ broken" in line))
    assert lines[at + 1] == "      line 6  then: status 200"
    assert lines[at + 2].startswith("      expected status 200, got 404")
    assert lines[at + 3].startswith(f"      GET {demo.url}/pets/42 → 404 Not Found (")
    assert lines[at + 4] == '        response body: {"error": "pet 42 not found"}'  # errorContext.*
    assert lines[-1].startswith("2 scenarios: 1 passed, 1 failed, 0 skipped")
    assert "\x1b[" not in out  # not a terminal: no escape codes, no redraws
    assert "Traceback" not in result.stderr


def test_exit_2_for_invalid_files_and_usage(write_scenario, tmp_path):
    bad = write_scenario("scenario: s\n  when: FETCH /a\n", "bad.scenario")
    result = run(str(bad))
    assert result.returncode == 2
    assert result.stderr.startswith(f"{bad}:2:") and "error:" in result.stderr and "Traceback" not in result.stderr
    assert run(str(tmp_path / "missing.scenario")).returncode == 2
    good = write_scenario("scenario: s\n  when: GET /health\n", "good.scenario")
    result = run(str(good), "--report-json", str(tmp_path))  # a directory: refused before running
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and result.stdout == ""


def test_reports_written_by_the_command(demo, write_scenario, tmp_path):
    (tmp_path / "out").mkdir()
    result = run(
        str(write_scenario(FAILING)),
        "--base-url",
        demo.url,
        "--report-json",
        str(tmp_path / "out" / "r.json"),
        "--report-junit",
        str(tmp_path / "out" / "j.xml"),
    )
    assert result.returncode == 1
    assert sorted(os.listdir(tmp_path / "out")) == ["j.xml", "r.json"]  # no temporary files left
    report = json.loads((tmp_path / "out" / "r.json").read_text())
    assert [s["status"] for s in report["files"][0]["scenarios"]] == ["passed", "failed"]
    root = ET.parse(tmp_path / "out" / "j.xml").getroot()
    assert (root.get("tests"), root.get("failures")) == ("2", "1")


def test_secrets_are_masked_everywhere(demo, write_scenario, tmp_path):
    result = run(
        str(write_scenario(SECRETS)),
        "--base-url",
        demo.url,
        *SECRET_VARS,
        "--report-json",
        str(tmp_path / "r.json"),
        "--report-junit",
        str(tmp_path / "j.xml"),
    )
    assert result.returncode == 1, result.stderr
    (token,) = demo._server.state.tokens
    texts = {
        "stdout": result.stdout,
        "stderr": result.stderr,
        "json": (tmp_path / "r.json").read_text(encoding="utf-8"),
        "junit": (tmp_path / "j.xml").read_text(encoding="utf-8"),
    }
    for where, text in texts.items():
        for secret in (token, "sk-live-1234567890", "hunter2hunter2"):
            assert secret not in text, f"{secret} leaked in {where}"
    assert f'expected $.json.t == "something else", got "{MASK}"' in result.stdout
    assert f'"authorization": "Bearer {MASK}"' in result.stdout  # the echoed body, masked too
    variables = json.loads(texts["json"])["files"][0]["scenarios"][0]["variables"]
    assert variables == {"apiKey": MASK, "password": MASK, "token": MASK}


def test_show_secrets_reveals_them(demo, write_scenario, tmp_path):
    result = run(
        str(write_scenario(SECRETS)),
        "--base-url",
        demo.url,
        *SECRET_VARS,
        "--show-secrets",
        "--report-json",
        str(tmp_path / "r.json"),
    )
    (token,) = demo._server.state.tokens
    assert f'got "{token}"' in result.stdout and MASK not in result.stdout
    variables = json.loads((tmp_path / "r.json").read_text())["files"][0]["scenarios"][0]["variables"]
    assert variables == {"apiKey": "sk-live-1234567890", "password": "hunter2hunter2", "token": token}


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_stops_cleanly_writes_reports_and_exits_130(demo, write_scenario, tmp_path):
    path = write_scenario("""
        scenario: quick
          when: GET /health
        scenario: slow
          when: GET /slow?ms=60000
          then: status 200
        scenario: never reached
          when: GET /health
    """)
    report, junit = tmp_path / "r.json", tmp_path / "j.xml"
    process = subprocess.Popen(
        [
            str(SCRIPT),
            "run",
            str(path),
            "--base-url",
            demo.url,
            "--report-json",
            str(report),
            "--report-junit",
            str(junit),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    first = process.stdout.readline()  # plain output is flushed line by line
    second = process.stdout.readline()
    assert second.startswith("  ✓ quick"), first + second
    time.sleep(2)  # time for a busy machine to send GET /slow?ms=60000, and well inside it
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)  # the request in flight was cancelled: waiting takes 60 s
    assert process.returncode == 130
    assert "Traceback" not in err and err == ""
    assert out.splitlines()[-1].startswith("Interrupted after ")
    data = json.loads(report.read_text())
    assert data["interrupted"] is True
    assert [s["name"] for s in data["files"][0]["scenarios"]] == ["quick", "slow"]
    slow = data["files"][0]["scenarios"][1]
    assert slow["status"] == "failed" and slow["steps"][0]["message"] == "interrupted"
    assert ET.parse(junit).getroot().get("interrupted") == "true"
    assert sorted(os.listdir(tmp_path)) == ["j.xml", "r.json", "test.scenario"]


def test_run_never_imports_textual(demo, write_scenario, tmp_path):
    path = write_scenario(FAILING)
    code = (
        "import sys\n"
        "from scenario_tui.cli.main import main\n"
        f"status = main(['run', {str(path)!r}, '--base-url', {demo.url!r}, "
        f"'--report-json', {str(tmp_path / 'r.json')!r}, '--report-junit', {str(tmp_path / 'j.xml')!r}])\n"
        "loaded = sorted({m.split('.')[0] for m in sys.modules} & {'textual', 'rich'})\n"
        "print('STATUS', status, 'LOADED', ','.join(loaded) or '-')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, timeout=30)
    # Off a terminal not even rich is needed; textual never is.
    assert result.stdout.splitlines()[-1] == "STATUS 1 LOADED -", result.stderr


def test_a_plain_http_run_never_imports_httpx(demo, write_scenario, tmp_path):
    """Plain http:// goes through our own transport: httpx (and, with click installed, rich)
    stays out of a headless run."""
    code = (
        "import sys\n"
        "from scenario_tui.cli.main import main\n"
        f"status = main(['run', {str(write_scenario(FAILING))!r}, '--base-url', {demo.url!r}])\n"
        "print('STATUS', status, 'HTTPX', 'httpx' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, timeout=30)
    assert result.stdout.splitlines()[-1] == "STATUS 1 HTTPX False", result.stderr


def test_forced_colour_uses_rich_without_redraws(demo, write_scenario):
    result = subprocess.run(
        [str(SCRIPT), "run", str(write_scenario(FAILING)), "--base-url", demo.url],
        capture_output=True,
        text=True,
        env={**ENV, "FORCE_COLOR": "1"},
        timeout=30,
    )
    assert result.returncode == 1
    assert "\x1b[" in result.stdout  # colour, as asked
    assert "\r" not in result.stdout and "\x1b[?25l" not in result.stdout  # no spinner redraws in a log


def test_an_executor_fault_is_one_line_and_still_writes_the_report(demo, write_scenario, tmp_path, monkeypatch, capsys):
    import scenario_core.run.executor as executor
    from scenario_core.language.parser import load_file
    from scenario_core.parameters.resolution import RunOverrides
    from scenario_core.run.options import run_options
    from scenario_tui.cli.run_command import run_files

    real = executor.Execution

    class Faulty(real):
        def events(self):
            count = 0
            for event in super().events():
                count += 1
                if count == 4:
                    raise RuntimeError("boom")
                yield event

    monkeypatch.setattr(executor, "Execution", Faulty)
    files = [load_file(str(write_scenario(FAILING)))]
    status = run_files(
        files, run_options(overrides=RunOverrides.from_cli([], demo.url, None), report_json=str(tmp_path / "r.json"))
    )
    captured = capsys.readouterr()
    assert status == 1
    assert captured.err == "scenario-tui: error: internal error: RuntimeError: boom\n"
    assert json.loads((tmp_path / "r.json").read_text())["interrupted"] is True
