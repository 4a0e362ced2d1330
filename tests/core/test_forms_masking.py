"""Secrets in the new body forms and sources stay out of every report (docs/spec/requests.md#body-forms): a form
field or multipart part named like a secret, and a cookie's value, set or extracted."""

from __future__ import annotations

import json

from scenario_tui.cli.main import main

SECRET = "client-secret-0123456789abcdef"
PASSWORD = "pass-word-0123456789abcdef"


def test_form_fields_multipart_parts_and_cookies_named_secret_are_masked_in_reports(demo, write_scenario, tmp_path):
    path = write_scenario(
        f"parameters:\n  baseUrl: {demo.url}\n"
        "scenario: s\n  when: POST /oauth/token\n    form:\n      grant_type: client_credentials\n"
        f"      client_id: demo\n      client_secret: {SECRET}\n  then: status 200\n"
        f"  when: POST /echo\n    multipart:\n      note: hello\n      password: {PASSWORD}\n"
        "  then: status 200\n"
        "  when: POST /form/login\n    form:\n      username: demo\n      password: demo\n"
        "  extract: sid from cookie session\n  when: GET /echo?s={{sid}}\n  then: status 200\n"
    )
    report = tmp_path / "r.json"
    html = tmp_path / "r.html"
    assert main(["run", str(path), "--report-json", str(report), "--report-html", str(html)]) == 0
    for written in (report.read_text(), html.read_text()):
        assert SECRET not in written and PASSWORD not in written
        assert "hello" in written  # what is not secret stays readable
    text = report.read_text()

    def strings(node):
        if isinstance(node, dict):
            for value in node.values():
                yield from strings(value)
        elif isinstance(node, list):
            for value in node:
                yield from strings(value)
        elif isinstance(node, str):
            yield node

    session = next(s for s in strings(json.loads(text)) if s.startswith("http") and "/echo?s=" in s)
    assert session.endswith("/echo?s=••••••")
