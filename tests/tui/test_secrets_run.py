"""Secrets end to end: `scenario-tui run` against the demo API with a numeric key, a short secret,
a URL's userinfo password and a `secrets`-named variable; none of them in stdout, stderr, the JSON
report or the JUnit report -- and the route `/echo` is not masked for a secret `echo`."""

from __future__ import annotations

import base64
import subprocess

from tests.helpers import ENV, SCRIPT

SCENARIO = """\
parameters:
  secrets: tenant
scenario: leaky
  when: GET /pets/{{secret}}
  then: status 404
  when: POST {{userinfoUrl}}/echo?secret={{secret}}&t={{tenant}}
    headers:
      X-Api-Key: {{apiKey}}
      X-Auth-Token: {{secret}}
      X-Other: {{apikey}}
    body: {"k": {{apiKey}}, "s": "{{secret}}", "p": "/x/{{secret}}", "t": "{{tenant}}"}
  then: $.json.k == 0
"""


def test_secrets_never_leak_from_a_run(demo, tmp_path):
    path = tmp_path / "leaky.scenario"
    path.write_text(SCENARIO, encoding="utf-8")
    userinfo_url = demo.url.replace("http://", "http://admin:pw@")
    report, junit = tmp_path / "r.json", tmp_path / "j.xml"
    result = subprocess.run(
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
            "--var",
            "apiKey=31415926",
            "--var",
            "secret=ab",
            "--var",
            "apikey=echo",
            "--var",
            "tenant=acme-corp-7",
            "--var",
            f"userinfoUrl={userinfo_url}",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=ENV,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    basic = base64.b64encode(b"admin:pw").decode()
    outputs = {
        "stdout": result.stdout,
        "stderr": result.stderr,
        "json": report.read_text(encoding="utf-8"),
        "junit": junit.read_text(encoding="utf-8"),
    }
    for where, text in outputs.items():
        for leak in ("31415926", ":pw@", basic, '"ab"', "/ab", "=ab", "acme-corp-7"):
            assert leak not in text, (where, leak, text)
    assert "/echo" in result.stdout  # the route: a secret `echo` does not mask it
    assert "$.json.k == 0" in result.stdout and "••••••" in result.stdout
