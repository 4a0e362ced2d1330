"""`import curl`: commands as browsers, Postman and API documentation write them become one
request in the import model, written by the one writer, credentials as run variables."""

from __future__ import annotations

import pytest

from scenario_core.editor.render import render_file
from scenario_core.importing.curl import CurlError, read_curl
from scenario_core.importing.model import FileBody, FilePart, FormBody, JsonBody, MultipartBody, TextBody
from scenario_core.language.parser import parse_text

CHROME_GET = r"""curl 'https://api.example.com/v1/pets?limit=10&api_key=abc123' \
  -H 'accept: application/json, text/plain, */*' \
  -H 'accept-language: en-US,en;q=0.9' \
  -H 'authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig' \
  -H 'cookie: session=s3cr3t; theme=dark' \
  -H 'priority: u=1, i' \
  -H 'sec-ch-ua: "Chromium";v="124", "Not-A.Brand";v="99"' \
  -H 'sec-fetch-mode: cors' \
  -H 'user-agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36'"""

CHROME_POST = r"""curl 'https://api.example.com/v1/pets' \
  -H 'content-type: application/json' \
  -H 'origin: https://app.example.com' \
  --data-raw $'{"name":"Rex \'the dog\'","note":"caf\u00e9\\nline","age":3}' \
  --compressed"""

CHROME_CMD = r"""curl ^"http://127.0.0.1:8000/pets?tag=dog^&limit=2^" ^
  -H ^"accept: application/json^" ^
  -H ^"content-type: application/json^" ^
  --data-raw ^"^{^\^"name^\^":^\^"Rex^\^"^}^" ^
  --compressed"""

FIREFOX = r"""curl 'https://shop.example.com/api/cart/items' -X PUT -H 'User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0' -H 'Accept: */*' -H 'Accept-Language: en-US,en;q=0.5' -H 'Accept-Encoding: gzip, deflate, br, zstd' -H 'Content-Type: application/json' -H 'X-CSRF-Token: 9f8e7d' -H 'Origin: https://shop.example.com' -H 'Connection: keep-alive' -H 'Sec-Fetch-Dest: empty' --data-raw '{"sku":"A-1","qty":2}'"""

FIREFOX_FORM = r"""curl 'http://127.0.0.1:8000/form/login' -X POST -H 'Content-Type: application/x-www-form-urlencoded' --data-raw 'username=demo&password=demo&next=%2Fhome'"""

POSTMAN = r"""curl --location 'https://api.example.com/v1/users' \
--header 'Content-Type: application/json' \
--header 'Authorization: Bearer pm-token-123' \
--data-raw '{
    "name": "Ada",
    "email": "ada@example.com"
}'"""

POSTMAN_FORM_DATA = r"""curl --location --request POST 'https://api.example.com/upload' \
--form 'file=@"/home/ada/pictures/rex.png"' \
--form 'caption="my dog"'"""

STRIPE_DOCS = r"""curl https://api.stripe.com/v1/charges \
  -u sk_test_4eC39HqLyjWDarjtT1zdp7dc: \
  -d amount=2000 \
  -d currency=usd \
  -d "description=My First Test Charge (created for API docs)" """

GITHUB_DOCS = r"""curl -L \
  -H "Accept: application/vnd.github+json" \
  -H "Authorization: Bearer <YOUR-TOKEN>" \
  -H "X-GitHub-Api-Version: 2022-11-28" \
  https://api.github.com/repos/OWNER/REPO/issues"""

CHROME_MULTIPART = (
    "curl 'http://127.0.0.1:8000/upload' -H 'content-type: multipart/form-data; boundary=----WebKitFormBoundaryAbC' "
    '--data-raw $\'------WebKitFormBoundaryAbC\\r\\nContent-Disposition: form-data; name="note"\\r\\n\\r\\na photo\\r\\n'
    '------WebKitFormBoundaryAbC\\r\\nContent-Disposition: form-data; name="photo"; filename="rex.png"\\r\\n'
    "Content-Type: image/png\\r\\n\\r\\n\\r\\n------WebKitFormBoundaryAbC--\\r\\n'"
)


def _request(command: str):
    imported = read_curl(command)
    (scenario,) = imported.items
    (request,) = scenario.requests
    return imported, request


def test_chrome_get_keeps_the_api_headers_and_makes_every_credential_a_variable():
    imported, request = _request(CHROME_GET)
    assert imported.base_url == "https://api.example.com"
    assert (request.method, request.path) == ("GET", "/v1/pets?limit=10&api_key={{api_key}}")
    assert request.headers == (
        ("accept", "application/json, text/plain, */*"),
        ("authorization", "Bearer {{token}}"),
        ("cookie", "session={{session}}; theme={{theme}}"),
    )
    assert [v.name for v in imported.run_variables] == ["api_key", "token", "session", "theme"]
    assert any("accept-language, priority, sec-ch-ua, sec-fetch-mode, user-agent" in note for note in imported.notes)
    text = render_file(imported)
    for secret in ("abc123", "eyJhbGciOiJIUzI1NiJ9", "s3cr3t"):
        assert secret not in text


def test_chrome_post_reads_dollar_quotes_and_gives_a_json_body():
    _, request = _request(CHROME_POST)
    assert request.method == "POST"
    assert request.body == JsonBody({"name": "Rex 'the dog'", "note": "café\nline", "age": 3})
    assert ("content-type", "application/json") not in request.headers  # body: sends it


def test_chrome_cmd_copy_reads_as_the_bash_one():
    imported, request = _request(CHROME_CMD)
    assert imported.base_url == "http://127.0.0.1:8000"
    assert request.path == "/pets?tag=dog&limit=2"
    assert request.body == JsonBody({"name": "Rex"})
    assert request.headers == (("accept", "application/json"),)


def test_firefox_put_keeps_its_method_and_makes_the_csrf_token_a_variable():
    imported, request = _request(FIREFOX)
    assert (request.method, request.path) == ("PUT", "/api/cart/items")
    assert request.headers == (
        ("Accept", "*/*"),
        ("X-CSRF-Token", "{{x_csrf_token}}"),
        ("Origin", "https://shop.example.com"),
    )
    assert request.body == JsonBody({"sku": "A-1", "qty": 2})
    assert "9f8e7d" not in render_file(imported)


def test_firefox_form_post_is_a_form_with_the_password_as_a_variable():
    imported, request = _request(FIREFOX_FORM)
    assert request.body == FormBody((("username", "demo"), ("password", "{{password}}"), ("next", "/home")))
    assert request.headers == ()
    assert [v.name for v in imported.run_variables] == ["password"]


def test_postman_multiline_json_and_bearer_token():
    imported, request = _request(POSTMAN)
    assert request.body == JsonBody({"name": "Ada", "email": "ada@example.com"})
    assert request.headers == (("Authorization", "Bearer {{token}}"),)


def test_postman_form_data_gives_file_and_text_parts():
    _, request = _request(POSTMAN_FORM_DATA)
    assert request.method == "POST"
    assert request.body == MultipartBody((("file", FilePart("/home/ada/pictures/rex.png")), ("caption", "my dog")))


def test_stripe_docs_user_and_repeated_data_give_basic_auth_and_a_form():
    imported, request = _request(STRIPE_DOCS)
    assert request.headers == (("Authorization", "Basic {{basic_auth}}"),)
    assert request.body == FormBody(
        (("amount", "2000"), ("currency", "usd"), ("description", "My First Test Charge (created for API docs)"))
    )
    assert "sk_test" not in render_file(imported)


def test_github_docs_url_after_the_options_and_a_placeholder_token():
    imported, request = _request(GITHUB_DOCS)
    assert imported.base_url == "https://api.github.com"
    assert request.path == "/repos/OWNER/REPO/issues"
    assert ("Authorization", "Bearer {{token}}") in request.headers
    assert ("X-GitHub-Api-Version", "2022-11-28") in request.headers


def test_chrome_multipart_raw_data_is_read_back_into_parts():
    _, request = _request(CHROME_MULTIPART)
    assert request.body == MultipartBody((("note", "a photo"), ("photo", FilePart("rex.png", "image/png"))))
    assert request.headers == ()


@pytest.mark.parametrize(
    "command, method, path, body, headers",
    [
        (
            "curl -G --data-urlencode 'q=hello world' -d page=2 https://x.test/search",
            "GET",
            "/search?q=hello%20world&page=2",
            None,
            (),
        ),
        ("curl -I https://x.test/health", "HEAD", "/health", None, ()),
        (
            "curl -XPUT -H'Content-Type: text/plain' -d 'hello there' localhost:8000/notes/1",
            "PUT",
            "/notes/1",
            TextBody("hello there"),
            (("Content-Type", "text/plain"),),
        ),
        (
            "curl --json '{\"a\": [1, 2]}' https://x.test/items",
            "POST",
            "/items",
            JsonBody({"a": [1, 2]}),
            (("Accept", "application/json"),),
        ),
        (
            "curl -sS -X POST -H 'Content-Type: application/json' -d @bodies/pet.json http://h.test/pets",
            "POST",
            "/pets",
            FileBody("bodies/pet.json"),
            (("Content-Type", "application/json"),),
        ),
        (
            "$ curl --request DELETE --url 'https://x.test/pets/7' --header 'accept: application/json'",
            "DELETE",
            "/pets/7",
            None,
            (("accept", "application/json"),),
        ),
        ("curl -T report.csv https://x.test/upload", "PUT", "/upload", FileBody("report.csv"), ()),
        (
            "curl -d 'not=form data & more' https://x.test/raw",
            "POST",
            "/raw",
            TextBody("not=form data & more"),
            (("Content-Type", "application/x-www-form-urlencoded"),),
        ),
    ],
)
def test_more_command_shapes(command, method, path, body, headers):
    imported, request = _request(command)
    assert (request.method, request.path, request.body, request.headers) == (method, path, body, headers)
    parse_text(render_file(imported), "x.scenario")


def test_credentials_in_the_url_cookies_and_bearer_options_are_variables():
    imported, request = _request("curl -b 'sid=xyz' --oauth2-bearer tok123 https://ada:pw@x.test/me")
    assert request.headers == (("Authorization", "Bearer {{token}}"), ("Cookie", "sid={{sid}}"))
    text = render_file(imported)
    assert "pw" not in text.replace("password", "") and "tok123" not in text and "xyz" not in text


def test_data_that_is_neither_json_nor_a_form_is_text_sent_as_curl_sends_it():
    _, request = _request("curl -d '<pet><name>Rex</name></pet>' https://x.test/pets.xml")
    assert request.body == TextBody("<pet><name>Rex</name></pet>")
    assert request.headers == (("Content-Type", "application/x-www-form-urlencoded"),)


def test_unknown_options_are_ignored_with_a_note():
    imported, request = _request("curl --frobnicate -Z https://x.test/a")
    assert request.path == "/a"
    assert any("--frobnicate" in note for note in imported.notes)


@pytest.mark.parametrize(
    "command, message",
    [
        ("wget https://x.test", "starts with curl"),
        ("curl 'https://x.test", "quote is not closed"),
        ("curl -H", "-H needs a value"),
        ("curl -s", "names no URL"),
        ("curl ftp://x.test/file", "only http and https"),
        ("curl 'http://[::1'", "cannot be read"),
        ("", "starts with curl"),
    ],
)
def test_bad_commands_are_one_line_starting_import_curl(command, message):
    with pytest.raises(CurlError) as raised:
        read_curl(command)
    text = str(raised.value)
    assert text.startswith("import curl: ") and message in text and "\n" not in text


@pytest.mark.parametrize("depth", [300, 5000])
def test_json_nested_deeper_than_python_reads_is_still_written_and_parses(depth):
    data = "[" * depth + "]" * depth
    imported, request = _request(f"curl -H 'Content-Type: application/json' -d '{data}' https://x.test/deep")
    text = render_file(imported)
    parse_text(text, "deep.scenario")
    if depth == 300:
        assert f"  body: {data.replace('][', '], [')}\n" in text  # on one line, not 600 indented ones
    else:  # json cannot read it: sent as the text it is, with its content type
        assert request.body == TextBody(data) and ("Content-Type", "application/json") in request.headers
