"""Hardening of the secret rules (core/masking.py): secrets of any JSON type, URL credentials,
short secrets as whole values only, more secret headers, the `secrets` parameter, a cost that
stays linear in the number of secrets, and JSON nested deeper than Python's recursion limit."""

from __future__ import annotations

import base64
import importlib
import json
import re
import sys
from types import SimpleNamespace

import pytest

from scenario_core.language import parameter_keys as params
from scenario_core.report.masking import MASK, Masker, is_secret_header, mask_header_value
from scenario_core.run.events import FeatureStarted, RequestSent, ResponseReceived, RunStarted, VariableExtracted
from scenario_core.support.json_depth import MAX_DEPTH, cut_marker


def test_secret_of_any_json_type_is_masked_by_value():
    masker = Masker()
    masker.learn_variables({"apiKey": 31415926, "pin_secret": 4.5, "tokens": ["tok-one-1234", {"k": 27182818}]})
    assert masker.text("GET /x?n=31415926 → echoed 31415926") == f"GET /x?n={MASK} → echoed {MASK}"
    assert masker.text('{"a": 4.5, "b": [27182818, "tok-one-1234"]}') == f'{{"a": {MASK}, "b": [{MASK}, "{MASK}"]}}'
    assert masker.value({"copy": 31415926, "other": 3}) == {"copy": MASK, "other": 3}
    assert masker.text("true and 4.55") == "true and 4.55"  # whole values only for short ones


def test_secret_url_userinfo_password_and_the_basic_it_produces():
    masker = Masker()
    basic = base64.b64encode(b"admin:pw").decode()
    masker.learn_url("http://admin:pw@127.0.0.1:9/echo", "http://admin:pw@127.0.0.1:9/echo")
    assert (
        masker.text("POST http://admin:pw@127.0.0.1:9/echo → 200") == f"POST http://admin:{MASK}@127.0.0.1:9/echo → 200"
    )
    assert masker.text(f'{{"authorization": "Basic {basic}"}}') == f'{{"authorization": "Basic {MASK}"}}'
    assert masker.text(f"echoed Basic {basic} back") == f"echoed Basic {MASK} back"
    assert masker.headers([("Authorization", f"Basic {basic}")]) == (("Authorization", f"Basic {MASK}"),)


def test_short_secrets_masked_as_whole_values_only():
    masker = Masker()
    masker.learn_variables({"secret": "ab", "apikey": "echo"})
    assert masker.text("GET http://h/x/ab?q=ab&r=abc") == f"GET http://h/x/{MASK}?q={MASK}&r=abc"
    assert masker.text('{"v": "ab", "w": "abc", "x": "lab"}') == f'{{"v": "{MASK}", "w": "abc", "x": "lab"}}'
    assert masker.headers([("X-Thing", "ab"), ("X-Other", "abba")]) == (("X-Thing", MASK), ("X-Other", "abba"))
    # no over-masking: `echo` inside words, inside a longer string, or the file's own route
    masker.feed(RequestSent(step=_step("/echo"), method="POST", url="http://h/echo", headers=(), body=None))
    assert (
        masker.text('POST http://h/echo → 200; {"path": "/echo", "m": "echoed"}')
        == 'POST http://h/echo → 200; {"path": "/echo", "m": "echoed"}'
    )
    assert masker.text('{"note": "echo"}') == f'{{"note": "{MASK}"}}'


def test_secret_headers_users_expect():
    for name in (
        "X-Api-Key",
        "Api-Key",
        "X-Auth-Token",
        "X-Csrf-Token",
        "x-xsrf-token",
        "X-Access-Token",
        "X-Client-Secret",
    ):
        assert is_secret_header(name), name
        assert mask_header_value(name, "v4lue-of-it") == MASK
    masker = Masker()
    masker.learn_headers([("X-Api-Key", "k3y-value-long"), ("X-Csrf-Token", "cs")])
    assert masker.text('{"echo": "k3y-value-long", "c": "cs"}') == f'{{"echo": "{MASK}", "c": "{MASK}"}}'
    assert not is_secret_header("Keep-Alive") and not is_secret_header("Content-Type")


def test_secrets_parameter_names_more_secrets():
    assert params.parse_value("secrets", "sessionRef, X-Tenant") == ("sessionRef", "X-Tenant")
    assert params.parse_value("secrets", '"a b"') == ("a", "b")
    with pytest.raises(params.ParameterValueError):
        params.parse_value("secrets", "{not a name}")
    masker = Masker()
    masker.feed(RunStarted(files=(), run_variables={"sessionRef": "sess-1234567", "petId": 3}, tags=None))
    assert masker.text("sess-1234567") == "sess-1234567"  # not a secret name, yet
    masker.learn_parameters({"secrets": _Effective(("sessionRef", "X-Tenant"))})
    assert masker.text("id sess-1234567") == f"id {MASK}"  # the run variable, learnt back
    assert masker.variables({"sessionref": "x", "petId": 3}) == {"sessionref": MASK, "petId": 3}
    assert masker.headers([("x-tenant", "acme")]) == (("x-tenant", MASK),)
    assert masker.text('{"X-Tenant": "acme", "sessionRef": "y"}') == f'{{"X-Tenant": "{MASK}", "sessionRef": "{MASK}"}}'
    assert masker.text("/t?sessionRef=zz") == f"/t?sessionRef={MASK}"


def test_secrets_parameter_is_learnt_from_run_events(write_scenario):
    from scenario_core.language.parser import load_file
    from scenario_core.parameters.resolution import resolve_parameters

    path = write_scenario("""
        feature: F
          parameters:
            secrets: tenantId
          scenario: s
            when: GET /x
    """)
    file = load_file(str(path))
    feature = file.features[0]
    masker = Masker()
    masker.feed(FeatureStarted(file=file, feature=feature, parameters=resolve_parameters(file, feature), store=None))
    assert "tenantid" in masker.names


def test_masking_cost_stays_linear(monkeypatch):
    """2,000 secrets learnt one by one, masking after each: the old masker rebuilt its whole
    pattern each time (quadratic: 110 s here). Counted, not timed: the regular expressions
    compiled while learning and masking, in characters (the old masker: every secret again per
    secret learnt, tens of millions). bench/masking_many_secrets.py measures the time."""
    compiler = importlib.import_module("re._compiler" if sys.version_info >= (3, 11) else "sre_compile")
    real = compiler.compile
    compiled: list[int] = []

    def counting(pattern, flags=0):
        compiled.append(len(pattern) if isinstance(pattern, (str, bytes)) else 0)
        return real(pattern, flags)

    text = json.dumps({"message": "expected 200, got 500", "trace": "x" * 400}) * 3
    masker = Masker()
    monkeypatch.setattr(compiler, "compile", counting)
    assert re.compile("the-counter-counts-[0-9]{7}") and compiled == [27]
    compiled.clear()
    for i in range(2000):
        masker.learn_variable("token", f"secret-value-{i:06d}-abcdef")
        masker.text(text)
        masker.text(f'got "secret-value-{i:06d}-ab…')
    monkeypatch.undo()
    assert sum(compiled) < 100_000, (len(compiled), sum(compiled))  # 0 today
    assert masker.text("secret-value-001999-abcdef and secret-value-000000-abcdef") == f"{MASK} and {MASK}"
    assert masker.text('got "secret-value-000123-ab…') == f'got "{MASK}…'


def test_masking_overlapping_secrets_learnt_apart():
    masker = Masker()
    masker.learn("abcdefgh")  # compiled into one batch ...
    masker.text("warm")
    masker.learn("xxabcdefghxx")  # ... the longer one into another: both scanned, matches unioned
    masker.learn("12345678")
    assert masker.text("a xxabcdefghxx b abcdefgh c 12345678") == f"a {MASK} b {MASK} c {MASK}"


@pytest.mark.parametrize("padding", [0, 5000], ids=["short text: windows", "long text: patterns"])
def test_masking_short_and_long_texts_mask_the_same_union_of_overlaps(padding):
    masker = Masker()
    for secret in ("abcdefgh12", "efgh12345678", "zzzzzzzzzz", "zzzzzzzzzzzzzz"):
        masker.learn(secret)
    pad = "." * padding
    text = pad + "<abcdefgh12345678> <zzzzzzzzzzzzzzzzzz> <efgh1234>" + pad
    assert masker.text(text) == pad + f"<{MASK}> <{MASK}> <efgh1234>" + pad


def test_deeply_nested_json_masking():
    depth = 5000
    value: object = "secret-value-abcdef"
    for i in range(depth):
        value = {"a": value} if i % 2 else [value]
    masker = Masker(["secret-value-abcdef"])
    masker.learn_variable("token", value)  # walked iteratively
    masked = masker.value(value)
    level = 0
    while isinstance(masked, (dict, list)):
        masked = masked["a"] if isinstance(masked, dict) else masked[0]
        level += 1
    assert level == MAX_DEPTH and masked == cut_marker(MAX_DEPTH)
    json.dumps(masker.value(value), indent=2)  # what reports do next: no RecursionError
    assert masker.variables({"v": value})["v"] is not None
    assert Masker(enabled=False).value(value) is not None


class _Effective:
    def __init__(self, value):
        self.value = value


def _step(url: str):
    return SimpleNamespace(url=SimpleNamespace(text=url))  # what the Masker reads of a RequestStep


def test_a_secret_fields_value_is_masked_where_it_is_copied():
    """`"password": "..."` was masked in that field only; the echo of the body, a
    variable extracted under another name and the report's variables showed it."""
    masker = Masker()
    body = '{"username": "demo", "password": "hunter2-pass", "sortKey": "name"}'
    masker.feed(
        RequestSent(step=None, method="POST", url="http://h/echo?api_key=query-secret-1", headers=(), body=body)
    )
    masker.feed(_response('{"token": "resp-token-123", "user": "demo"}'))
    assert masker.secrets == {"hunter2-pass", "query-secret-1", "resp-token-123"}  # short `name`: not learnt
    echoed = json.dumps({"body": body, "query": "api_key=query-secret-1", "note": "resp-token-123"})
    assert "hunter2" not in masker.text(echoed) and "query-secret" not in masker.text(echoed)
    assert masker.variables({"pw": "hunter2-pass", "t": "resp-token-123"}) == {"pw": MASK, "t": MASK}
    assert masker.text('{"x": "name", "y": "demo"}') == '{"x": "name", "y": "demo"}'


def test_an_extraction_from_a_secret_field_or_header_learns_the_value_whatever_its_length():
    masker = Masker()
    for path, source, value in (
        ("$.json.password", "body", "pw1"),
        ("$['api-key']", "body", "k2"),
        ("$..tokens[0]", "body", "t3"),
        ("X-Api-Key", "header", "h4"),
        ("$.json.user", "body", "demo"),  # not a secret
        ("Content-Type", "header", "text/plain"),
    ):
        step = SimpleNamespace(path=path, source=source)
        masker.feed(VariableExtracted(step=step, name="v", value=value, layers=("scenario",)))
    assert masker.secrets == {"pw1", "k2", "t3", "h4"}
    assert masker.variables({"a": "pw1", "b": "demo"}) == {"a": MASK, "b": "demo"}


def test_json_in_a_json_string_is_masked_like_json():
    """An echoed request body: `{"body": "{\\"password\\": \\"pw\\"}"}`."""
    masker = Masker()
    masker.learn_variable("secret", 'a"b')
    inner = json.dumps({"password": "pw", "authorization": "Bearer xyz", "s": 'a"b', "t": "a", "u": "ok"})
    shown = json.loads(json.loads(masker.text(json.dumps({"body": inner})))["body"])
    assert shown == {"password": MASK, "authorization": f"Bearer {MASK}", "s": MASK, "t": "a", "u": "ok"}


def _response(body: str) -> ResponseReceived:
    return ResponseReceived(step=None, status=200, reason="OK", headers=(), body=body, elapsed=0.0, json=None)


def test_a_url_password_in_a_parameter_is_masked_by_params_text_and_json(tmp_path):
    """`baseUrl: http://u:secret@host` showed its password in `params` (text and JSON)."""
    import json
    import subprocess
    import sys

    path = tmp_path / "p.scenario"
    path.write_text("parameters:\n  baseUrl: http://admin:s3cret-pw@127.0.0.1:1\nscenario: s\n  when: GET /a\n")
    code = "from scenario_tui.cli.main import main; import sys; sys.exit(main(sys.argv[1:]))"
    for args in (["params", str(path)], ["params", "--json", str(path)]):
        result = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        assert "s3cret-pw" not in result.stdout and "admin:" in result.stdout
    shown = json.loads(result.stdout)
    assert "s3cret-pw" not in json.dumps(shown)
