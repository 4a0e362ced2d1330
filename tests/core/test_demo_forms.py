"""The demo API's endpoints beyond JSON (core/demo/forms_api.py): the OAuth 2 token endpoint's
answers, the CSRF form post's checks, the upload's part list and the XML list, over real HTTP."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def call(url: str, body: bytes | None = None, headers: dict | None = None) -> tuple[int, dict, str]:
    request = urllib.request.Request(
        url, data=body, headers=headers or {}, method="POST" if body is not None else "GET"
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


def test_oauth_token_client_credentials_answers_a_bearer_token_that_creates_pets(demo):
    status, headers, body = call(
        f"{demo.url}/oauth/token", b"grant_type=client_credentials&client_id=c&client_secret=s", FORM
    )
    assert status == 200 and headers["Cache-Control"] == "no-store"
    token = json.loads(body)["access_token"]
    status, _, _ = call(
        f"{demo.url}/pets", b'{"name": "Rex"}', {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    )
    assert status == 201
    status, headers, body = call(f"{demo.url}/pets.xml")
    assert headers["Content-Type"].startswith("application/xml") and "<name>Rex</name>" in body


def test_oauth_token_refuses_another_grant_and_a_missing_client(demo):
    assert call(f"{demo.url}/oauth/token", b"grant_type=password", FORM)[2] == '{"error": "unsupported_grant_type"}'
    status, _, body = call(f"{demo.url}/oauth/token", b"grant_type=client_credentials&client_id=c", FORM)
    assert (status, json.loads(body)) == (401, {"error": "invalid_client"})
    assert (
        call(f"{demo.url}/oauth/token", b'{"grant_type": "client_credentials"}', {"Content-Type": "application/json"})[
            0
        ]
        == 415
    )


def test_csrf_post_needs_the_session_cookie_and_the_token_of_its_page(demo):
    status, headers, page = call(f"{demo.url}/csrf")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    token = page.split('name="csrf" value="')[1].split('"')[0]
    session = headers["Set-Cookie"].split(";")[0]
    assert call(f"{demo.url}/csrf", f"csrf={token}".encode(), FORM)[0] == 403  # no cookie
    assert call(f"{demo.url}/csrf", b"csrf=wrong", {**FORM, "Cookie": session})[0] == 403
    status, _, body = call(f"{demo.url}/csrf", f"csrf={token}&name=Rex".encode(), {**FORM, "Cookie": session})
    assert (status, json.loads(body)) == (200, {"accepted": "Rex"})


def test_upload_answers_each_part_name_filename_type_and_size(demo):
    body = (
        b'--b\r\nContent-Disposition: form-data; name="note"\r\n\r\nhi\r\n'
        b'--b\r\nContent-Disposition: form-data; name="f"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n'
        b"\x89PNG\r\n--b--\r\n"
    )
    status, _, answer = call(f"{demo.url}/upload", body, {"Content-Type": "multipart/form-data; boundary=b"})
    assert status == 200
    assert json.loads(answer)["parts"] == [
        {"name": "note", "filename": None, "type": None, "size": 2},
        {"name": "f", "filename": "a.png", "type": "image/png", "size": 4},
    ]
