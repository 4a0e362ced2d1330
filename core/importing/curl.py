"""`import curl`: a curl command, as a browser's "Copy as cURL" (bash or cmd), Postman or an API's
documentation writes it, as one imported request (docs/import.md).

- The URL's scheme, host and port are the file's `baseUrl`; its path and query the step's path.
  User and password in the URL, or `-u`, are a `Basic` `Authorization` run variable.
- `-X` sets the method; otherwise `-I` is HEAD, data or a form POST, `-T` PUT, else GET.
- `-H` headers in order, credentials as run variables (credentials.py); headers only a browser
  sends (`sec-*`, `user-agent`, `accept-language`…) are left out and named in a note.
- `-d`/`--data*` (joined with `&`), `--data-urlencode` and `--json` are the body: JSON when the
  content type says so or the data reads as a JSON object or array (`body:`); `a=1&b=2` form data
  (`form:`); `@file` a body file (`bodyFile:`); any other text a `\"\"\"` body with its content type.
  With `-G` the data goes to the query instead. `-F` parts are `multipart:` (`@path;type=…` a file
  part); a multipart body copied as raw data is read back into its parts.
- Options that change nothing a scenario says (`-s`, `-v`, `--compressed`, `-L`, `-k`…) are
  ignored; unknown options are ignored with a note.
Errors are one line starting `import curl:` (CurlError)."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from scenario_core.importing.credentials import Credentials
from scenario_core.importing.curl_options import FLAGS, VALUE_OPTIONS, CurlOptions, multipart_from_raw
from scenario_core.importing.model import (
    Body,
    FileBody,
    FilePart,
    FormBody,
    ImportedFile,
    JsonBody,
    MultipartBody,
    Request,
    Scenario,
    TextBody,
)
from scenario_core.importing.shell_words import ShellWordsError, shell_words

# A command is pasted text: past this size it is a mistake, refused before it is read.
MAX_COMMAND_CHARS = 1024 * 1024
# Headers only a browser sends on its own: they say nothing about the API call.
_BROWSER_HEADERS = re.compile(
    r"sec-.*|user-agent|accept-language|accept-encoding|priority|dnt|upgrade-insecure-requests|pragma|"
    r"cache-control|connection|content-length|host|te|referer|if-none-match|if-modified-since",
    re.IGNORECASE,
)
_FORM_DATA = re.compile(r"[^=&\s]+=[^&\r\n]*(?:&[^=&\s]+=[^&\r\n]*)*")


class CurlError(ValueError):
    """Why the command cannot be imported, in one line starting `import curl:`."""

    def __init__(self, message: str) -> None:
        super().__init__(f"import curl: {message}")


def read_curl(command: str) -> ImportedFile:
    """The request a curl command sends, as an imported file of one scenario."""
    if len(command) > MAX_COMMAND_CHARS:
        raise CurlError(f"the command is {len(command)} characters long; the limit is {MAX_COMMAND_CHARS}")
    if "\x00" in command:
        raise CurlError("the command holds a NUL character")
    try:
        words = shell_words(command.strip())
    except ShellWordsError as error:
        raise CurlError(str(error)) from None
    if words and words[0] == "$":  # `$ curl …` copied from a documentation page with its prompt
        words = words[1:]
    if not words or not re.fullmatch(r"(?:.*[/\\])?curl(?:\.exe)?", words[0], re.IGNORECASE):
        raise CurlError("expected a command that starts with curl (as Copy as cURL gives it)")
    try:
        options = CurlOptions.parse(words[1:])
    except ValueError as error:
        raise CurlError(str(error)) from None
    return _imported(options)


def _split_url(url: str, credentials: Credentials) -> tuple[str, str, str | None]:
    """(base URL, path and query, an `Authorization` header value from the URL's user)."""
    if "://" not in url:
        url = "http://" + url  # curl's default
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise CurlError(f"the URL {url[:80]!r} cannot be read: {error}") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise CurlError(f"only http and https URLs can be imported, not {parts.scheme}:")
    if not parts.hostname:
        raise CurlError(f"the URL {url[:80]!r} has no host")
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    base = f"{parts.scheme.lower()}://{host}" + (f":{port}" if port is not None else "")
    path = quote(parts.path or "/", safe="/%:@!$&'()*+,;=~{}-._")
    query = quote(parts.query, safe="=&%:@!$'()*+,;/?~{}-._")
    authorization = None
    if parts.username is not None:
        user = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
        authorization = "Basic " + credentials.variable("basic_auth", user, "base64 of USER:PASSWORD for Basic auth")
    return base, path + (f"?{query}" if query else ""), authorization


def _with_query(path: str, fields: list[tuple[str, str]], credentials: Credentials, where: str) -> str:
    if not fields:
        return path
    pieces = [
        quote(name, safe="") + "=" + _quote_value(credentials.field(name, value, where)) for name, value in fields
    ]
    return path + ("&" if "?" in path else "?") + "&".join(pieces)


def _quote_value(value: str) -> str:
    return quote(value, safe="{}") if "{{" in value else quote(value, safe="")


def _query_credentials(path: str, credentials: Credentials, where: str) -> str:
    """`?api_key=abc&page=2` → `?api_key={{api_key}}&page=2`."""
    base, question, query = path.partition("?")
    if not question:
        return path
    pieces = []
    for piece in query.split("&"):
        name, equals, value = piece.partition("=")
        if equals and value:
            secret = credentials.field(unquote(name), unquote(value), where)
            if secret != unquote(value):
                value = secret
        pieces.append(f"{name}{equals}{value}")
    return base + "?" + "&".join(pieces)


def _content_type(headers: list[tuple[str, str]]) -> str | None:
    for name, value in headers:
        if name.lower() == "content-type":
            return value
    return None


def _drop_header(headers: list[tuple[str, str]], lower: str) -> list[tuple[str, str]]:
    return [(n, v) for n, v in headers if n.lower() != lower]


def _data_body(
    data: str, headers: list[tuple[str, str]], credentials: Credentials, where: str
) -> tuple[Body, list[tuple[str, str]]]:
    """A `-d` body: JSON, form data or text, and the headers left to write."""
    content_type = _content_type(headers) or ""
    media = content_type.split(";")[0].strip().lower()
    looks_json = data.lstrip()[:1] in ("{", "[")
    if media.endswith("json") or (not media and looks_json):
        try:
            value = json.loads(data)
        except (ValueError, RecursionError):  # not JSON, or nested past what Python reads
            value = None
        else:
            if media in ("application/json", ""):
                headers = _drop_header(headers, "content-type")
            return JsonBody(credentials.json(value, where)), headers
    if media.startswith("multipart/form-data"):
        parts = multipart_from_raw(data, content_type)
        if parts is not None:
            return _multipart(parts, credentials, where), _drop_header(headers, "content-type")
    if media in ("application/x-www-form-urlencoded", "") and _FORM_DATA.fullmatch(data):
        fields = parse_qsl(data, keep_blank_values=True)
        form = tuple((name, credentials.field(name, value, where)) for name, value in fields)
        return FormBody(form), _drop_header(headers, "content-type")
    if not media:  # curl sends -d data as a form whatever it holds: say so, as curl does
        headers = headers + [("Content-Type", "application/x-www-form-urlencoded")]
    return TextBody(data), headers


def _multipart(parts: list[tuple[str, str | FilePart]], credentials: Credentials, where: str) -> MultipartBody:
    written: list[tuple[str, str | FilePart]] = []
    for name, part in parts:
        written.append((name, credentials.field(name, part, where) if isinstance(part, str) else part))
    return MultipartBody(tuple(written))


def _imported(options: CurlOptions) -> ImportedFile:
    notes = list(options.notes)
    credentials = Credentials()
    if options.url is None:
        raise CurlError("the command names no URL")
    base, path, url_authorization = _split_url(options.url, credentials)
    method = options.method()
    where = f"{method} {path.split('?')[0]}"
    path = _query_credentials(path, credentials, where)
    headers: list[tuple[str, str]] = []
    left_out: list[str] = []
    for name, value in options.headers:
        if _BROWSER_HEADERS.fullmatch(name):
            left_out.append(name)
            continue
        headers.append((name, credentials.header(name, value, where)))
    if left_out:
        notes.append(f"left out headers a browser sends on its own: {', '.join(dict.fromkeys(left_out))}")
    authorization = url_authorization
    if options.user is not None:
        authorization = "Basic " + credentials.variable(
            "basic_auth", options.user, "base64 of USER:PASSWORD for Basic auth (curl -u)"
        )
    if authorization is not None and not any(n.lower() == "authorization" for n, _ in headers):
        headers.insert(0, ("Authorization", authorization))
    if options.cookies:
        headers.append(("Cookie", credentials.cookies("; ".join(options.cookies), where)))
    body: Body | None = None
    if options.get:
        path = _with_query(path, options.query_fields(), credentials, where)
    elif options.form_parts:
        body = _multipart(options.form_parts, credentials, where)
        headers = [(n, v) for n, v in headers if not (n.lower() == "content-type" and "multipart" in v.lower())]
    elif options.data_file is not None:
        body = FileBody(options.data_file)
        notes.append(f"the body is read from {options.data_file}, relative to the written file: put it there")
    elif options.json_data is not None:
        body, headers = _data_body(options.json_data, headers, credentials, where)
    elif options.data:
        body, headers = _data_body("&".join(options.data), headers, credentials, where)
    if options.upload_file is not None:
        body = FileBody(options.upload_file)
        notes.append(f"the body is read from {options.upload_file}, relative to the written file: put it there")
    request = Request(method, path, tuple(headers), body)
    name = f"{method} {path.split('?')[0]}"
    return ImportedFile(
        items=(Scenario(name, (request,)),),
        base_url=base,
        run_variables=tuple(credentials.variables),
        notes=tuple(notes),
        source="a curl command",
    )


__all__ = ["CurlError", "FLAGS", "MAX_COMMAND_CHARS", "VALUE_OPTIONS", "read_curl"]
