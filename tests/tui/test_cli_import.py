"""`scenario-tui import` as a user runs it (docs/import.md): the scenario on standard output or in
a new file, notes on standard error, the file passes `check` and runs green against the demo API."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request

import pytest

from tests.helpers import cli

CREATE = (
    "curl '{url}/pets' -H 'accept: application/json' -H 'authorization: Bearer recorded-token-123' "
    '-H \'content-type: application/json\' -H \'sec-fetch-mode: cors\' --data-raw \'{{"name":"Biscuit","tag":"cat"}}\''
)


def _token(url: str) -> str:
    request = urllib.request.Request(
        f"{url}/login",
        json.dumps({"username": "demo", "password": "demo"}).encode(),
        {"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())["token"]


def _pets(url: str) -> list[dict]:
    with urllib.request.urlopen(f"{url}/pets", timeout=10) as response:
        data = json.loads(response.read())
    return data if isinstance(data, list) else data.get("pets", data.get("items", []))


def test_import_curl_prints_the_scenario_and_its_notes_go_to_stderr():
    result = cli("import", "curl", CREATE.format(url="http://127.0.0.1:8000"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("# Imported from a curl command by scenario-tui import.\n")
    assert "      authorization: Bearer {{token}}\n" in result.stdout
    assert "recorded-token-123" not in result.stdout + result.stderr
    assert "scenario-tui: note: left out headers a browser sends on its own: sec-fetch-mode" in result.stderr
    assert "run variables token" in result.stderr


def test_the_imported_file_passes_check_and_runs_green_against_the_demo_api(tmp_path, demo):
    out = tmp_path / "create.scenario"
    result = cli("import", "curl", CREATE.format(url=demo.url), "-o", str(out))
    assert result.returncode == 0, result.stderr
    checked = cli("check", str(out))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    ran = cli("run", str(out), "--var", f"token={_token(demo.url)}")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert any(pet.get("name") == "Biscuit" and pet.get("tag") == "cat" for pet in _pets(demo.url))
    assert cli("fmt", "--check", str(out)).returncode == 0  # written in fmt's layout


@pytest.mark.parametrize("dialect", ["ours", "berrycrush"])
def test_a_form_import_runs_green_in_either_dialect(tmp_path, demo, dialect):
    out = tmp_path / "login.scenario"
    command = f"curl '{demo.url}/form/login' -X POST --data-raw 'username=demo&password=demo'"
    assert cli("import", "curl", command, "-o", str(out), "--dialect", dialect).returncode == 0
    text = out.read_text(encoding="utf-8")
    assert "      password: {{password}}\n" in text
    ran = cli("run", str(out), "--var", "password=demo")
    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_o_refuses_an_existing_file_unless_forced(tmp_path):
    out = tmp_path / "a.scenario"
    out.write_text("keep me\n", encoding="utf-8")
    refused = cli("import", "curl", "curl http://h.test/a", "-o", str(out))
    assert refused.returncode == 2
    assert (
        refused.stderr.strip()
        == f"scenario-tui: error: -o {out}: the file exists; choose a new name, or --force to replace it"
    )
    assert out.read_text(encoding="utf-8") == "keep me\n"
    forced = cli("import", "curl", "curl http://h.test/a", "-o", str(out), "--force")
    assert forced.returncode == 0 and "when: GET /a" in out.read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.scenario"]


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
def test_o_never_writes_through_a_symbolic_link(tmp_path):
    target = tmp_path / "target.txt"
    target.write_text("precious\n", encoding="utf-8")
    link = tmp_path / "link.scenario"
    link.symlink_to(target)
    for extra in ((), ("--force",)):
        result = cli("import", "curl", "curl http://h.test/a", "-o", str(link), *extra)
        assert result.returncode == 2 and "symbolic link" in result.stderr
    assert target.read_text(encoding="utf-8") == "precious\n" and link.is_symlink()


def test_the_command_can_come_from_standard_input_and_o_dash_is_standard_output():
    result = cli("import", "curl", "-", "-o", "-", input="curl -X DELETE https://h.test/pets/1\n")
    assert result.returncode == 0
    assert "  when: DELETE /pets/1\n" in result.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (("curl", "curl 'http://h.test"), "scenario-tui: error: import curl: a ' quote is not closed"),
        (("curl", "wget http://h.test"), "scenario-tui: error: import curl: expected a command that starts with curl"),
        (
            ("curl", "curl -H 'X-Note: a #b' http://h.test/"),
            "scenario-tui: error: import curl: cannot write the header",
        ),
        (("curl", "curl http://h.test", "--host", "h"), "scenario-tui: error: import curl: --host is for import har"),
    ],
)
def test_unreadable_input_is_one_line_and_exit_2(args, message, tmp_path):
    result = cli("import", *args, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith(message) and len(result.stderr.splitlines()) == 1
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_import_and_fmt_never_import_textual(tmp_path):
    code = (
        "import sys; from scenario_tui.cli.main import main; "
        "main(['import', 'curl', 'curl -d a=1 http://h.test/x', '-o', 'x.scenario']); main(['fmt', 'x.scenario']); "
        "assert 'textual' not in sys.modules, 'textual imported'"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "x.scenario").exists()
