"""The secret rules (core/masking.py): which names are secret, how values are masked, and the
Masker scrubbing learnt values out of any text."""

from __future__ import annotations

import pytest

from scenario_core.report.masking import (
    MASK,
    Masker,
    is_secret_header,
    is_secret_variable,
    mask_header_value,
    mask_headers,
    mask_json_fields,
    mask_query_fields,
    mask_variables,
)
from scenario_core.run.events import RequestSent, ResponseReceived, RunStarted, VariableExtracted


@pytest.mark.parametrize("name", ["Authorization", "authorization", "COOKIE", "Set-Cookie", "proxy-authorization"])
def test_secret_headers_case_insensitive(name):
    assert is_secret_header(name)


@pytest.mark.parametrize("name", ["Content-Type", "X-Request-Id", "Location", "WWW-Authenticate"])
def test_ordinary_headers(name):
    assert not is_secret_header(name)


@pytest.mark.parametrize(
    "name", ["token", "TOKEN", "apiKey", "api_key", "clientSecret", "password", "db_PASSWORD", "accessToken"]
)
def test_secret_variable_names(name):
    assert is_secret_variable(name)


@pytest.mark.parametrize("name", ["petId", "user", "name", "count"])
def test_ordinary_variable_names(name):
    assert not is_secret_variable(name)


def test_authorization_keeps_the_scheme_only():
    assert mask_header_value("Authorization", "Bearer abc.def") == f"Bearer {MASK}"
    assert mask_header_value("proxy-authorization", "Basic dXNlcjpwdw==") == f"Basic {MASK}"
    assert mask_header_value("Authorization", "opaque") == MASK
    assert mask_header_value("Content-Type", "application/json") == "application/json"


def test_cookies_keep_names_and_attributes():
    assert mask_header_value("Cookie", "sid=abc; theme=dark") == f"sid={MASK}; theme={MASK}"
    assert mask_header_value("Set-Cookie", "sid=abc; Path=/; HttpOnly") == f"sid={MASK}; Path=/; HttpOnly"


def test_mask_headers_pairs_and_mappings():
    pairs = (("Authorization", "Bearer x"), ("Accept", "*/*"))
    assert mask_headers(pairs) == (("Authorization", f"Bearer {MASK}"), ("Accept", "*/*"))
    assert mask_headers(dict(pairs)) == {"Authorization": f"Bearer {MASK}", "Accept": "*/*"}


def test_mask_variables_by_name_whatever_the_value():
    variables = {"token": "abcdef", "apiKey": 12, "petId": 7, "pin_password": "1"}
    assert mask_variables(variables) == {"token": MASK, "apiKey": MASK, "petId": 7, "pin_password": MASK}
    assert variables["token"] == "abcdef"  # never mutated


def test_json_fields_and_query_parameters_with_secret_names():
    assert mask_json_fields('{"token": "abc", "user": "ann"}') == f'{{"token": "{MASK}", "user": "ann"}}'
    assert mask_json_fields('{"password":"p\\"w"}') == f'{{"password":"{MASK}"}}'
    assert mask_query_fields("http://h/x?api_key=abc&limit=2") == f"http://h/x?api_key={MASK}&limit=2"
    assert mask_query_fields("limit=2&token=") == "limit=2&token="


def test_masker_scrubs_learnt_values_everywhere():
    masker = Masker()
    masker.learn_variables({"token": "s3cr3t-value", "petId": "not-a-secret", "key": "abc"})
    masker.learn_headers([("Authorization", "Bearer header-token"), ("Cookie", "sid=cookie-val")])
    text = "GET /x/s3cr3t-value echoed header-token and cookie-val; petId not-a-secret; abc"
    assert masker.text(text) == f"GET /x/{MASK} echoed {MASK} and {MASK}; petId not-a-secret; abc"
    # "abc" is learnt too, but short: masked only where it stands as a whole value.
    assert masker.secrets == {"s3cr3t-value", "header-token", "cookie-val", "abc"}


def test_masker_masks_longest_secret_first():
    masker = Masker(["abcdefgh", "abcdefghijkl"])
    assert masker.text("x abcdefghijkl y abcdefgh") == f"x {MASK} y {MASK}"


def test_masker_values_nested():
    masker = Masker(["s3cr3t-value"])
    value = {"auth": {"token": "t", "note": "has s3cr3t-value"}, "list": ["s3cr3t-value", 3]}
    assert masker.value(value) == {"auth": {"token": MASK, "note": f"has {MASK}"}, "list": [MASK, 3]}
    assert masker.variables({"apiKey": [1], "x": "s3cr3t-value"}) == {"apiKey": MASK, "x": MASK}


def test_disabled_masker_is_the_identity():
    masker = Masker(["s3cr3t-value"], enabled=False)
    assert masker.text('{"token": "s3cr3t-value"}') == '{"token": "s3cr3t-value"}'
    assert masker.headers([("Authorization", "Bearer x")]) == (("Authorization", "Bearer x"),)
    assert masker.variables({"token": "x"}) == {"token": "x"}


def test_masker_learns_from_events():
    masker = Masker()
    masker.feed(RunStarted(files=(), run_variables={"apiKey": "run-key-1"}, tags=None))
    masker.feed(VariableExtracted(step=None, name="authToken", value="extracted-1", layers=("scenario",)))
    masker.feed(VariableExtracted(step=None, name="petId", value="pet-value", layers=("scenario",)))
    masker.feed(
        RequestSent(step=None, method="GET", url="http://h/", headers=(("Authorization", "Bearer sent-1"),), body=None)
    )
    masker.feed(
        ResponseReceived(
            step=None,
            status=200,
            reason="OK",
            headers=(("Set-Cookie", "sid=recv-1; Path=/"),),
            body="",
            elapsed=0.0,
            json=None,
        )
    )
    assert masker.secrets == {"run-key-1", "extracted-1", "sent-1", "recv-1"}


def test_masker_masks_a_secret_clipped_by_an_ellipsis():
    masker = Masker(["abcdefghijklmnop"])
    assert masker.text('expected "x", got "abcdefgh…') == f'expected "x", got "{MASK}…'
    assert masker.text("ab… and abcdefghijklmnop") == f"ab… and {MASK}"  # a 2-char prefix: not a hint worth masking


def test_exchange_summary_masks_before_cutting_the_body():
    from scenario_core.report.failures import BODY_CHARS, exchange_summary
    from scenario_core.report.records import Exchange

    secret = "s3cr3t-" + "x" * 30
    body = "y" * (BODY_CHARS - 10) + secret
    exchange = Exchange(0, "GET", "http://h/a?token=abc", (), None, 200, "OK", (), body, 0.001)
    lines = exchange_summary(exchange, Masker([secret]))
    assert lines[0] == f"GET http://h/a?token={MASK} → 200 OK (1 ms)"
    assert "s3cr3t" not in "".join(lines) and "•" in lines[1]
