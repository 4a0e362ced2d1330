"""One HAR 1.2 entry as Chrome, Firefox, Playwright and mitmproxy write it: is it an API call
(not a static asset, a preflight, a non-HTTP URL or a failed request), and the request and
response it recorded, read defensively (any field may be missing or of the wrong type)."""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

from scenario_core.importing.correlation import Exchange
from scenario_core.importing.model import (
    Body,
    FilePart,
    FormBody,
    JsonBody,
    JsonValue,
    MultipartBody,
    Request,
    TextBody,
)
from scenario_core.importing.writable import line_safe, name_safe, part_safe
from scenario_core.support.header_names import is_header_name
from scenario_core.support.input_files import InputFileError, read_regular_file

MAX_RESPONSE_SCAN = 1 << 20  # a response body past this is not read for produced values
MAX_REQUEST_BODY = 1 << 20  # a request body past this is left out, with a note

# Headers a client sets itself, or a browser adds for its own reasons (caching, navigation,
# fingerprinting); replaying them would only make the replay differ from a fresh client.
_CLIENT_HEADERS = frozenset(
    {
        "host",
        "content-length",
        "connection",
        "keep-alive",
        "proxy-connection",
        "transfer-encoding",
        "te",
        "upgrade",
        "accept-encoding",
        "referer",
        "origin",
        "priority",
        "dnt",
        "upgrade-insecure-requests",
        "if-none-match",
        "if-modified-since",
        "pragma",
        "cache-control",
    }
)
_STATIC_TYPES = frozenset(
    {"script", "stylesheet", "image", "font", "document", "media", "manifest", "texttrack", "websocket"}
)
_API_TYPES = frozenset({"xhr", "fetch", "eventsource", "ping", "preflight", "other"})
_STATIC_MIME = re.compile(
    r"^(?:image|font|audio|video)/|^(?:text|application)/(?:x-)?(?:javascript|ecmascript|css)|^text/css"
    r"|^application/(?:wasm|font-|x-font|vnd\.ms-fontobject|manifest\+json)"
)
_STATIC_EXTENSION = re.compile(
    r"\.(?:m?js|cjs|css|map|png|jpe?g|gif|svg|ico|webp|avif|bmp|woff2?|ttf|otf|eot|html?|mp4|webm|mp3|ogg|wasm"
    r"|webmanifest)$",
    re.I,
)
# A JSON object of the recording: its fields are read with isinstance, as anything may be there.
HarObject = dict[str, object]

_UNSAFE = re.compile(r"[\s\x00-\x1f\x7f]")
_JSON_MIME = re.compile(r"^application/(?:[\w.-]+\+)?json$|^text/json$", re.I)


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def _dict(value: object) -> HarObject:
    return value if isinstance(value, dict) else {}


def _pairs(value: object) -> list[tuple[str, str]]:
    """HAR `[{name, value}]` as pairs; anything else in the list is left out."""
    if not isinstance(value, list):
        return []
    return [
        (item["name"], item["value"] if isinstance(item.get("value"), str) else "")
        for item in value
        if isinstance(item, dict) and isinstance(item.get("name"), str)
    ]


def _mime(value: object) -> str:
    return _str(value).split(";", 1)[0].strip().lower()


def why_left_out(entry: HarObject) -> str | None:
    """Why an entry is not an API call (`static`, `preflight`, `not-http`, `failed`), or None."""
    request, response = _dict(entry.get("request")), _dict(entry.get("response"))
    url = _str(request.get("url"))
    parts = urlsplit(url) if url else None
    if parts is None or parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return "not-http"
    method = _str(request.get("method")).upper()
    if method == "OPTIONS":
        return "preflight"
    if not re.fullmatch(r"[A-Z]{1,20}", method):
        return "failed"  # no HTTP method a client could send
    status = response.get("status")
    if not isinstance(status, int) or isinstance(status, bool) or status <= 0 or status == 101:
        return "failed"
    path = parts.path
    if _STATIC_EXTENSION.search(path) or path.rsplit("/", 1)[-1].startswith("favicon"):
        return "static"
    kind = _str(entry.get("_resourceType")).lower()  # Chrome's and Playwright's
    if kind in _API_TYPES:
        return None
    if kind in _STATIC_TYPES:
        return "static"
    mime = _mime(_dict(response.get("content")).get("mimeType"))
    if _STATIC_MIME.search(mime):
        return "static"
    if mime in ("text/html", "application/xhtml+xml") and method == "GET":
        return "static"  # a page the browser navigated to, not an API call
    return None


def host_of(entry: HarObject) -> str:
    return urlsplit(_str(_dict(entry.get("request")).get("url"))).netloc.lower()


def _decoded_text(content: HarObject, folder: str | None) -> str | None:
    text = content.get("text")
    attached = content.get("_file")
    if not isinstance(text, str) and isinstance(attached, str) and attached and folder is not None:
        # Playwright's `content: "attach"`: the body in a file beside the HAR (by its base name
        # only: a recording names no file elsewhere).
        try:
            raw = read_regular_file(os.path.join(folder, os.path.basename(attached)), MAX_RESPONSE_SCAN)
        except InputFileError:
            return None
        return raw.decode("utf-8", errors="replace")
    if not isinstance(text, str):
        return None
    if _str(content.get("encoding")).lower() == "base64":
        if len(text) > MAX_RESPONSE_SCAN * 4 // 3 + 4:
            return None
        try:
            raw = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            return None
        return raw.decode("utf-8", errors="replace")
    return text


def _json(text: str | None, mime: str) -> tuple[bool, JsonValue]:
    """(True, value) when the text is JSON worth reading, else (False, None)."""
    if text is None or len(text) > MAX_RESPONSE_SCAN:
        return False, None
    stripped = text.lstrip()
    if not (_JSON_MIME.match(mime) or stripped[:1] in ("{", "[")):
        return False, None
    try:
        return True, json.loads(text)
    except (ValueError, RecursionError):
        return False, None


def _body(post: HarObject, notes: list[str], label: str) -> tuple[Body | None, bool]:
    """The request body, and whether its Content-Type header must go (the body form sets it)."""
    mime = _mime(post.get("mimeType"))
    text = _str(post.get("text"))
    params = post.get("params")
    if len(text) > MAX_REQUEST_BODY:
        notes.append(f"{label}: its {len(text):,}-character body is left out")
        return None, False
    if mime.startswith("multipart/") and isinstance(params, list):
        parts: list[tuple[str, str | FilePart]] = []
        for item in params:
            if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                continue
            file_name = item.get("fileName")
            if isinstance(file_name, str) and file_name:
                media = item.get("contentType")
                file_name = re.sub(r'["\x00-\x1f\x7f]', "_", file_name)
                parts.append((item["name"], FilePart(file_name, media if isinstance(media, str) and media else None)))
                notes.append(
                    f"{label}: the recording does not hold the file {file_name!r}; put it next to the scenario"
                )
            else:
                parts.append((item["name"], _str(item.get("value"))))
        if parts and all(name_safe(name) and (not isinstance(v, str) or part_safe(v)) for name, v in parts):
            return MultipartBody(tuple(parts)), True
        notes.append(f"{label}: its multipart body is left out: a part's name or value cannot be written")
        return None, False
    if mime == "application/x-www-form-urlencoded":
        fields = _pairs(params) if isinstance(params, list) and params else parse_qsl(text, keep_blank_values=True)
        if not fields:
            return _text(text, notes, label), False
        if all(name_safe(name) and line_safe(value) for name, value in fields):
            return FormBody(tuple(fields)), True
        return TextBody(urlencode(fields)), False  # a `form:` line would cut or trim such a value
    if not text:
        return None, False
    if _JSON_MIME.match(mime) or (not mime and text.lstrip()[:1] in ("{", "[")):
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            return _text(text, notes, label), False
        return JsonBody(value), mime == "application/json"
    return _text(text, notes, label), False


def _text(text: str, notes: list[str], label: str) -> TextBody | None:
    """A text body as recorded; one a `\"\"\"` block cannot hold is left out, with a note."""
    if not text:
        return None
    if '"""' in text or "\r" in text:
        notes.append(
            f"{label}: its body is left out: it holds a carriage return or three quotes; give it as a body file"
        )
        return None
    return TextBody(text)


def exchange_of(
    entry: HarObject, notes: list[str], keep_user_agent: bool = False, folder: str | None = None
) -> Exchange:
    """The entry as an Exchange: a Request (path and query, kept headers, body, status) and
    the response values correlation reads (an attached body file is looked for in `folder`)."""
    request, response = _dict(entry.get("request")), _dict(entry.get("response"))
    url = _str(request.get("url"))
    parts = urlsplit(url)
    method = _str(request.get("method")).upper() or "GET"
    # A scenario line ends a path at white space: what a browser would have percent-encoded is.
    path = _UNSAFE.sub(lambda m: quote(m.group()), (parts.path or "/") + (f"?{parts.query}" if parts.query else ""))
    label = f"{method} {path.split('?', 1)[0]}"
    body, drop_type = _body(_dict(request.get("postData")), notes, label) if request.get("postData") else (None, False)
    headers: list[tuple[str, str]] = []
    cookies: list[str] = []
    for name, value in _pairs(request.get("headers")):
        lowered = name.lower()
        if (
            lowered in _CLIENT_HEADERS
            or lowered.startswith(("sec-", ":"))
            or (lowered == "user-agent" and not keep_user_agent)
            or (lowered == "content-type" and drop_type)
            or not is_header_name(name)
            or "\n" in value
            or "\r" in value
        ):
            continue
        if lowered == "cookie":
            cookies.append(value)
            continue
        if not line_safe(value):
            notes.append(f"{label}: its {name} header is left out: its value would be cut by a '#' comment")
            continue
        headers.append((name, value))
    if not cookies and isinstance(request.get("cookies"), list):
        cookies = [f"{name}={value}" for name, value in _pairs(request.get("cookies"))]
    if cookies:
        headers.append(("Cookie", "; ".join(cookies)))
    status = response.get("status")
    content = _dict(response.get("content"))
    has_json, response_json = _json(_decoded_text(content, folder), _mime(content.get("mimeType")))
    return Exchange(
        request=Request(
            method=method,
            path=path,
            headers=tuple(headers),
            body=body,
            status=status if isinstance(status, int) else None,
        ),
        url=url,
        response_json=response_json,
        has_json=has_json,
        response_headers=tuple(_pairs(response.get("headers"))),
    )
