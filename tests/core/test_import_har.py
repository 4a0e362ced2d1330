"""Reading HAR recordings (docs/import-har-openapi.md): which calls are kept, how values one
response produced and a later request reused become extracts, and credentials run variables."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenario_core.editor.render import render_file
from scenario_core.importing.correlation import MIN_VALUE_LENGTH
from scenario_core.importing.har import HarError, read_har
from scenario_core.importing.model import Extract, FilePart, JsonBody, MultipartBody, TextBody
from tests.core.har_builders import entry, write_har

FIXTURES = Path(__file__).parent.parent / "fixtures" / "har"
API = "https://api.test"


def _requests(path: str, **kw):
    return read_har(path, **kw).items[0].requests


def _steps(path: str, **kw) -> list[str]:
    return [f"{r.method} {r.path}" for r in _requests(path, **kw)]


# ---------------------------------------------------------------- the recorded shop session


@pytest.mark.parametrize("shape", ["firefox", "mitmproxy"])
def test_firefox_and_mitmproxy_recordings_import_like_chrome(shape):
    chrome = read_har(str(FIXTURES / "shop-chrome.har"))
    other = read_har(str(FIXTURES / f"shop-{shape}.har"))
    assert other.items[0].requests == chrome.items[0].requests
    assert other.run_variables == chrome.run_variables
    assert other.base_url == chrome.base_url == "https://api.shop.test"


def test_assets_preflights_telemetry_and_failed_calls_are_left_out():
    assert _steps(str(FIXTURES / "shop-chrome.har")) == [
        "POST /login",
        "GET /csrf",
        "POST /pets",
        "GET /pets/{{petId}}",
        "POST /orders",
        "GET /orders/{{orderId}}?expand=pet",
        "POST /uploads",
        "GET {{uploadLocation}}/status",
        "DELETE /pets/{{petId}}",
    ]
    notes = read_har(str(FIXTURES / "shop-chrome.har")).notes
    assert notes == ("also recorded, left out: telemetry.shop.test (1 call); --host picks another host",)


def test_each_value_is_extracted_from_the_response_that_produced_it():
    requests = _requests(str(FIXTURES / "shop-chrome.har"))
    extracts = {f"{r.method} {r.path}": r.extracts for r in requests if r.extracts}
    assert extracts == {
        "POST /login": (Extract("token", "json", "$.token"), Extract("session", "cookie", "session")),
        "GET /csrf": (Extract("csrftoken", "cookie", "csrftoken"),),
        "POST /pets": (Extract("petId", "json", "$.id"),),
        "POST /orders": (Extract("orderId", "json", "$.order.id"),),
        "POST /uploads": (Extract("uploadLocation", "header", "Location"),),
    }
    headers = dict(requests[4].headers)
    assert headers["Authorization"] == "Bearer {{token}}"  # the login's token: correlation, no run variable
    assert headers["X-CSRF-Token"] == "{{csrftoken}}"  # a cookie's value reused in a header


def test_credentials_are_run_variables_and_never_written_in_clear():
    imported = read_har(str(FIXTURES / "shop-chrome.har"))
    assert [v.name for v in imported.run_variables] == ["password", "consent"]
    assert imported.run_variables[0].why == "the password field of POST /login"
    text = render_file(imported)
    for secret in ("s3cret-pw", "yes-all-2026", "tok-REC", "sess-REC", "csrf-REC", "4711", "ord-REC", "up-REC"):
        assert secret not in text


def test_jar_cookies_go_and_a_kept_cookie_header_carries_them_explicitly():
    requests = _requests(str(FIXTURES / "shop-chrome.har"))
    csrf = requests[1]
    assert not any(name == "Cookie" for name, _ in csrf.headers)  # only the jar's session: left to the jar
    # POST /pets also sends a cookie no response set (a credential): a request with its own
    # Cookie header gets nothing from the jar, so the jar's cookies are written too.
    assert dict(requests[2].headers)["Cookie"] == "session={{session}}; csrftoken={{csrftoken}}; consent={{consent}}"


def test_browser_headers_are_left_out_and_the_user_agent_kept_when_asked():
    requests = _requests(str(FIXTURES / "shop-chrome.har"))
    names = {name.lower() for r in requests for name, _ in r.headers}
    assert names == {"accept", "authorization", "cookie", "x-csrf-token", "content-type"}
    kept = _requests(str(FIXTURES / "shop-chrome.har"), keep_user_agent=True)
    assert ("user-agent", "Mozilla/5.0 Chrome/120") in kept[0].headers


def test_a_number_reused_in_a_json_body_keeps_its_type():
    order = _requests(str(FIXTURES / "shop-chrome.har"))[4]
    assert isinstance(order.body, TextBody)
    assert '"petId": {{petId}},' in order.body.text
    assert ("Content-Type", "application/json") in order.headers


# ---------------------------------------------------------------- hosts


def _two_hosts(tmp_path):
    return write_har(
        tmp_path,
        [
            entry("GET", "https://a.test/x"),
            entry("GET", "https://b.test:8443/y"),
            entry("GET", "https://b.test:8443/z"),
        ],
    )


def test_the_host_with_most_calls_is_kept_and_host_picks_another(tmp_path):
    path = _two_hosts(tmp_path)
    assert read_har(path).base_url == "https://b.test:8443"
    assert read_har(path).notes == ("also recorded, left out: a.test (1 call); --host picks another host",)
    assert _steps(path, host="a.test") == ["GET /x"]
    assert read_har(path, host="b.test").base_url == "https://b.test:8443"


def test_an_unknown_host_is_one_line_listing_the_hosts(tmp_path):
    path = _two_hosts(tmp_path)
    with pytest.raises(HarError) as caught:
        read_har(path, host="c.test")
    assert str(caught.value) == f"{path}: no API calls to host 'c.test'; the recording has: b.test:8443 (2), a.test (1)"


# ---------------------------------------------------------------- correlation rules


def test_short_and_common_values_are_not_taken_for_ids(tmp_path):
    produced = {"count": 1, "ok": True, "lang": "en", "code": 200, "empty": "", "none": None, "id": 7}
    path = write_har(
        tmp_path,
        [
            entry("GET", f"{API}/stats", response=produced),
            entry("GET", f"{API}/things/7?page=1&lang=en&flag=true&code=200&limit=7"),
        ],
    )
    # 7 is short but named as an id: a whole path segment takes it; a query value named
    # otherwise (`limit=7`) does not. The rest are under MIN_VALUE_LENGTH or not ids at all.
    assert _steps(path) == ["GET /stats", "GET /things/{{statId}}?page=1&lang=en&flag=true&code=200&limit=7"]
    assert MIN_VALUE_LENGTH == 4


def test_a_value_of_the_minimum_length_is_correlated_anywhere(tmp_path):
    path = write_har(
        tmp_path,
        [
            entry("GET", f"{API}/session", response={"ref": "abcd", "short": "abc"}),
            entry("GET", f"{API}/search?ref=abcd&short=abc"),
        ],
    )
    assert _steps(path)[1] == "GET /search?ref={{ref}}&short=abc"


def test_a_value_the_client_sent_first_is_not_a_produced_value(tmp_path):
    path = write_har(
        tmp_path,
        [
            entry("POST", f"{API}/pets", body={"name": "Rexford"}, response={"id": "p-1234", "name": "Rexford"}),
            entry("PUT", f"{API}/pets/p-1234", body={"name": "Rexford"}),
        ],
    )
    put = _requests(path)[1]
    assert put.path == "/pets/{{petId}}"
    assert put.body == JsonBody({"name": "Rexford"})


def test_a_json_field_wins_over_a_location_header(tmp_path):
    path = write_har(
        tmp_path,
        [
            entry(
                "POST",
                f"{API}/pets",
                status=201,
                response={"id": "abc12345"},
                response_headers=(("Location", "/pets/abc12345"),),
            ),
            entry("GET", f"{API}/pets/abc12345"),
        ],
    )
    create, read = _requests(path)
    assert create.extracts == (Extract("petId", "json", "$.id"),)
    assert read.path == "/pets/{{petId}}"


def test_the_latest_producer_before_a_use_wins_and_names_are_unique(tmp_path):
    path = write_har(
        tmp_path,
        [
            entry("POST", f"{API}/pets", response={"id": "pet-aaaa"}),
            entry("GET", f"{API}/pets/pet-aaaa"),
            entry("POST", f"{API}/pets", response={"id": "pet-bbbb"}),
            entry("GET", f"{API}/lookup", response={"petId": "pet-bbbb"}),
            entry("DELETE", f"{API}/pets/pet-bbbb"),
        ],
    )
    requests = _requests(path)
    assert [r.extracts for r in requests] == [
        (Extract("petId", "json", "$.id"),),
        (),
        (),  # produced pet-bbbb, but the lookup's response came later
        (Extract("petId2", "json", "$.petId"),),
        (),
    ]
    assert requests[4].path == "/pets/{{petId2}}"


def test_an_id_takes_its_owner_or_resource_for_a_name(tmp_path):
    path = write_har(
        tmp_path,
        [
            entry("POST", f"{API}/api/v2/orders", response={"data": {"id": "o-123456", "owner": {"id": "u-654321"}}}),
            entry("GET", f"{API}/users/u-654321/orders/o-123456"),
        ],
    )
    assert _steps(path)[1] == "GET /users/{{ownerId}}/orders/{{orderId}}"


def test_a_redirect_is_its_own_step_followed_through_its_location(tmp_path):
    path = write_har(
        tmp_path,
        [
            entry("POST", f"{API}/jobs", status=303, response_headers=(("Location", f"{API}/jobs/j-998877"),)),
            entry("GET", f"{API}/jobs/j-998877", response={"state": "queued"}),
        ],
    )
    post, get = _requests(path)
    assert post.status == 303 and post.extracts == (Extract("jobLocation", "header", "Location"),)
    assert get.path == "{{jobLocation}}"


# ---------------------------------------------------------------- credentials and bodies


def test_authorization_keeps_its_scheme_and_one_credential_is_one_variable(tmp_path):
    basic = (("Authorization", "Basic YWRhOnB3"), ("X-Api-Key", "k-123456789"))
    path = write_har(
        tmp_path,
        [entry("GET", f"{API}/a?api_key=q-999", headers=basic), entry("GET", f"{API}/b", headers=basic)],
    )
    imported = read_har(path)
    assert [v.name for v in imported.run_variables] == ["api_key", "basicAuth", "apiKey"]
    first, second = imported.items[0].requests
    assert first.path == "/a?api_key={{api_key}}"
    assert first.headers == second.headers == (("Authorization", "Basic {{basicAuth}}"), ("X-Api-Key", "{{apiKey}}"))


def test_form_multipart_and_text_bodies(tmp_path):
    multipart = entry("POST", f"{API}/upload", body="", mime="multipart/form-data; boundary=x")
    multipart["request"]["postData"]["params"] = [
        {"name": "note", "value": "hi"},
        {"name": "photo", "fileName": "cat.png", "contentType": "image/png"},
    ]
    multipart["request"]["headers"] = [{"name": "Content-Type", "value": "multipart/form-data; boundary=x"}]
    path = write_har(
        tmp_path,
        [
            multipart,
            entry("POST", f"{API}/form", body="a=1&secret=s3&b=x+y", mime="application/x-www-form-urlencoded"),
            entry(
                "POST",
                f"{API}/text",
                body="<x/>",
                mime="application/xml",
                headers=(("Content-Type", "application/xml"),),
            ),
        ],
    )
    imported = read_har(path)
    upload, form, text = imported.items[0].requests
    assert upload.body == MultipartBody((("note", "hi"), ("photo", FilePart("cat.png", "image/png"))))
    assert upload.headers == ()  # its boundary would be wrong: the body form sets it
    assert form.body is not None and form.body.fields == (("a", "1"), ("secret", "{{secret}}"), ("b", "x y"))  # type: ignore[union-attr]
    assert text.body == TextBody("<x/>") and text.headers == (("Content-Type", "application/xml"),)
    assert any("cat.png" in note for note in imported.notes)


def test_response_bodies_in_base64_are_read_and_invalid_base64_is_ignored(tmp_path):
    good = entry("POST", f"{API}/pets", response="eyJpZCI6ICJwLTQ0NDQifQ==")  # {"id": "p-4444"}
    good["response"]["content"]["encoding"] = "base64"
    bad = entry("POST", f"{API}/cats", response="not base64 at all!!")
    bad["response"]["content"]["encoding"] = "base64"
    path = write_har(tmp_path, [good, bad, entry("GET", f"{API}/pets/p-4444"), entry("GET", f"{API}/cats/x")])
    assert _steps(path)[2:] == ["GET /pets/{{petId}}", "GET /cats/x"]


# ---------------------------------------------------------------- bad input: one line


def test_not_json_is_one_line_with_line_and_column(tmp_path):
    path = tmp_path / "bad.har"
    path.write_text('{"log": {\n  "entries": [,]}}')
    with pytest.raises(HarError) as caught:
        read_har(str(path))
    assert str(caught.value).startswith(f"{path}:2:15: error: not valid JSON: ")


@pytest.mark.parametrize(
    "content, message",
    [
        ("[" * 200_000 + "]" * 200_000, "JSON nested too deeply to be a HAR recording"),
        ('{"log": {}}', "not a HAR recording (no log.entries list)"),
        ('{"log": {"entries": []}}', "no API calls to import (it has no entries)"),
    ],
)
def test_bad_recordings_are_one_line(tmp_path, content, message):
    path = tmp_path / "x.har"
    path.write_text(content)
    with pytest.raises(HarError) as caught:
        read_har(str(path))
    assert str(caught.value) == f"{path}: {message}"


def test_a_recording_of_assets_alone_says_why_nothing_is_imported(tmp_path):
    path = write_har(
        tmp_path,
        [
            entry("GET", "https://a.test/app.js", response_mime="application/javascript"),
            entry("OPTIONS", "https://a.test/api"),
            entry("GET", "data:image/png;base64,AAAA"),
        ],
    )
    with pytest.raises(HarError) as caught:
        read_har(path)
    assert str(caught.value) == f"{path}: no API calls to import (1 static, 1 preflight, 1 not-http)"


def test_a_file_over_the_size_cap_is_refused_unread(tmp_path, monkeypatch):
    import scenario_core.importing.har as har

    monkeypatch.setattr(har, "MAX_HAR_BYTES", 100)
    path = write_har(tmp_path, [entry("GET", f"{API}/x")])
    with pytest.raises(HarError) as caught:
        read_har(path)
    assert str(caught.value) == f"{path}: is larger than 100 bytes"
    with pytest.raises(HarError, match="is a directory"):
        read_har(str(tmp_path))


def test_values_a_scenario_line_would_cut_are_written_another_way(tmp_path):
    # Found by the fuzz: each of these made the writer refuse the whole file.
    odd_multipart = entry("POST", f"{API}/up", body="--b\r\n...", mime="multipart/form-data; boundary=b")
    odd_multipart["request"]["postData"]["params"] = [{"name": "", "value": "x"}]
    odd_multipart["request"]["headers"] = [{"name": "Content-Type", "value": "multipart/form-data; boundary=b"}]
    path = write_har(
        tmp_path,
        [
            entry("GET", f"{API}/a b", headers=(("X-Note", "one #two"), ("X-Ok", "a#b"))),
            entry("POST", f"{API}/form", body="q=x+%23y", mime="application/x-www-form-urlencoded"),
            odd_multipart,
        ],
    )
    imported = read_har(path)
    get, form, upload = imported.items[0].requests
    assert get.path == "/a%20b" and get.headers == (("X-Ok", "a#b"),)
    assert "GET /a%20b: its X-Note header is left out: its value would be cut by a '#' comment" in imported.notes
    assert form.body == TextBody("q=x+%23y")  # as recorded, form-encoded: a `form:` line would cut at ` #`
    assert (
        upload.body is None
        and "POST /up: its multipart body is left out: a part's name or value cannot be written" in imported.notes
    )
    render_file(imported)


def test_playwright_attached_bodies_are_read_from_beside_the_recording_only(tmp_path):
    created = entry("POST", f"{API}/pets", status=201)
    created["response"]["content"] = {"size": 20, "mimeType": "application/json", "_file": "abc123.json"}
    (tmp_path / "abc123.json").write_text('{"id": "p-attached"}')
    elsewhere = entry("POST", f"{API}/cats", status=201)
    elsewhere["response"]["content"] = {"mimeType": "application/json", "_file": "../outside/x.json"}
    (tmp_path.parent / "outside").mkdir(exist_ok=True)
    (tmp_path.parent / "outside" / "x.json").write_text('{"id": "c-outside"}')
    path = write_har(
        tmp_path, [created, elsewhere, entry("GET", f"{API}/pets/p-attached"), entry("GET", f"{API}/cats/c-outside")]
    )
    assert _steps(path)[2:] == ["GET /pets/{{petId}}", "GET /cats/c-outside"]
