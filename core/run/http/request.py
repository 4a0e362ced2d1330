"""A request as the run builds it: method, URL, headers and body, checked and completed (Host,
default headers, Content-Length) without httpx, so a plain-HTTP run never imports it. The same
defaults httpx.AsyncClient adds, so a request reads the same whichever way it is sent."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Mapping, Sequence
from urllib.parse import SplitResult, parse_qsl, quote, unquote, urlencode, urljoin, urlsplit

from scenario_core.run.http.errors import InvalidHeader, InvalidRequest, one_line
from scenario_core.support.header_names import HEADER_NAME_CHARACTERS, is_header_name
from scenario_core.support.patterns import on_first_use
from scenario_core.support.secrets import SECRET_HEADERS

if TYPE_CHECKING:
    from scenario_core.parameters.resolution import EffectiveValue

USER_AGENT = "scenario-tui"
# only what body.Inflater decodes under the cap (body.CODINGS)
DEFAULT_HEADERS = (
    ("Accept", "*/*"),
    ("Connection", "keep-alive"),
    ("User-Agent", USER_AGENT),
    ("Accept-Encoding", "gzip, deflate"),
)
_DEFAULT_NAMES = tuple(name.lower() for name, _ in DEFAULT_HEADERS)
_BODY_METHODS = ("POST", "PUT", "PATCH")
_NO_NAMES: frozenset[str] = frozenset()
# what may stay unescaped in a path and in a query (RFC 3986 pchar, plus '%' already escaped)
_PATH_SAFE = "/%:@!$&'()*+,;=-._~"
_QUERY_SAFE = _PATH_SAFE + "?"
# A path quote() would leave as it is (its letters, digits and `_.-~`, and _PATH_SAFE): most are.
_PLAIN_PATH = re.compile(r"/[A-Za-z0-9_.~/%:@!$&'()*+,;=-]*")
# RFC 9110 §5.5: a value is visible ASCII, spaces and tabs (no
# CR, LF, NUL or other control character; the non-ASCII obs-text is not sent either).
_VALUE = re.compile(r"[\t\x20-\x7e]*")
_LINE_BREAK = on_first_use(r"[\r\n]")
_CONTROL = on_first_use(r"[\x00-\x08\x0a-\x1f\x7f]")
# credentials by name, never sent to another origin by a redirect (with the `secrets:` names)
_CREDENTIAL_NAME = on_first_use(r"(?:.*-)?(?:api-?key|token)")


class OutgoingRequest:
    """One request, ready to send: `headers` are the ones sent, in order, defaults included."""

    __slots__ = (
        "method",
        "url",
        "scheme",
        "host",
        "port",
        "target",
        "headers",
        "content",
        "max_size",
        "listed_secrets",
    )

    def __init__(
        self,
        method: str,
        url: str,
        scheme: str,
        host: str,
        port: int,
        target: str,
        headers: list[tuple[str, str]],
        content: bytes,
    ):
        self.method, self.url, self.scheme, self.host, self.port = method, url, scheme, host, port
        self.target, self.headers, self.content = target, headers, content
        self.max_size: int | None = None  # maxResponseSize: what its response's body and trailers may hold
        self.listed_secrets: frozenset[str] = frozenset()  # the `secrets:` names, lowercased (redirected)

    @property
    def origin(self) -> tuple[str, str, int]:
        return self.scheme, self.host, self.port

    def header(self, name: str) -> str | None:
        lowered = name.lower()
        return next((v for k, v in self.headers if k.lower() == lowered), None)

    def head_bytes(self) -> bytes:
        """The request line and headers as sent (ASCII checked when built)."""
        lines = [f"{self.method} {self.target} HTTP/1.1\r\n"]
        lines += [f"{name}: {value}\r\n" for name, value in self.headers]
        lines.append("\r\n")
        return "".join(lines).encode("latin-1")


def build_request(
    method: str,
    url: str,
    headers: Sequence[tuple[str, str]],
    query: Sequence[tuple[str, str]],
    content: bytes | None,
) -> OutgoingRequest:
    """The request to send; InvalidRequest (or ValueError) for a URL or header that cannot be sent."""
    (scheme, host, port, username, password), raw_path, raw_query, fragment = _split(url.strip())
    path = raw_path if _PLAIN_PATH.fullmatch(raw_path) else quote(raw_path or "/", safe=_PATH_SAFE)
    query_text = quote(raw_query, safe=_QUERY_SAFE)
    if query:  # merged as httpx's copy_merge_params does: a new name replaces the old one
        merged: dict[str, list[str]] = {}
        for name, value in parse_qsl(raw_query, keep_blank_values=True):
            merged.setdefault(name, []).append(value)
        new: dict[str, list[str]] = {}
        for name, value in query:
            new.setdefault(name, []).append(value)
        merged.update(new)
        query_text = urlencode([(n, v) for n, values in merged.items() for v in values])
    target = path + ("?" + query_text if query_text else "")
    default_port = 80 if scheme == "http" else 443
    netloc = f"[{host}]" if ":" in host else host
    if port is not None and port != default_port:
        netloc += f":{port}"
    own = {name.lower() for name, _ in headers} if headers else _NO_NAMES
    sent: list[tuple[str, str]] = []
    if "host" not in own:
        sent.append(("Host", netloc))
    given = [(n.strip(), v.strip()) for n, v in headers] if headers else []
    # The defaults and those made below need no check, nor a Host of printable ASCII (what a
    # header value may hold, and the usual URL's).
    if given or not (netloc.isascii() and netloc.isprintable()):
        check_headers(sent + given)
    sent += [(n, v) for n, v in DEFAULT_HEADERS if n.lower() not in own] if own else DEFAULT_HEADERS
    sent += given
    # Content-Length last, after the step's own headers: the order requests were shown in before
    # this transport (httpx's), which the TUI's inspector and its snapshots keep.
    if "content-length" not in own and "transfer-encoding" not in own:
        if content:
            sent.append(("Content-Length", str(len(content))))
        elif method in _BODY_METHODS:
            sent.append(("Content-Length", "0"))
    if (username or password) and "authorization" not in own:
        # A URL's userinfo (`http://user:pw@host`) is Basic credentials, as curl and httpx send them;
        # the userinfo itself never goes on the wire.
        credentials = f"{unquote(username or '')}:{unquote(password or '')}".encode()
        from base64 import b64encode  # (a URL with userinfo only: ~0.7 ms of start-up otherwise)

        sent.append(("Authorization", "Basic " + b64encode(credentials).decode("ascii")))
    full = f"{scheme}://{netloc}{target}" + (f"#{fragment}" if fragment else "")
    return OutgoingRequest(method, full, scheme, host, port or default_port, target, sent, content or b"")


def check_headers(headers: Sequence[tuple[str, str]]) -> None:
    """The one check of every header a request sends, whichever transport sends it, before a byte
    is written: a name must be a token, a value visible ASCII, spaces and tabs. A name or value
    made from a response (`header_{{x}}`) could otherwise end the header block and smuggle a
    second request onto the connection. InvalidHeader, one line naming the header, otherwise."""
    for name, value in headers:
        if not is_header_name(name):
            raise InvalidHeader(f"header name {_quoted(name)} is not a valid header name ({HEADER_NAME_CHARACTERS})")
        if _VALUE.fullmatch(value) is None:
            if _LINE_BREAK().search(value):
                problem = "a line break"
            elif _CONTROL().search(value):
                problem = "a control character"
            else:
                problem = "a character that is not ASCII"
            raise InvalidHeader(f"header {name} has {problem} in its value: {_quoted(value)}")


def _quoted(text: str) -> str:
    """`text` as a Python literal (control characters escaped), one line, at most 120 characters."""
    return one_line(repr(text), 120)


_Origin = tuple[str, str, "int | None", "str | None", "str | None"]  # scheme, host, port, user, password
_origins: dict[str, _Origin] = {}  # a run sends to a few origins, each many times: split once each
_MAX_ORIGINS = 256


def _split(url: str) -> tuple[_Origin, str, str, str]:
    """(the origin, checked), path, query and fragment of a URL, as urlsplit reads them. The
    origin part (`scheme://userinfo@host:port`) of a printable ASCII URL is split once and kept."""
    start = url.find("://")
    if start > 0 and url.isascii() and url.isprintable():
        end = len(url)
        for mark in "/?#":
            found = url.find(mark, start + 3)
            if found != -1 and found < end:
                end = found
        prefix = url[:end]
        origin = _origins.get(prefix)
        if origin is None:
            origin = _origin(urlsplit(prefix))
            if len(_origins) >= _MAX_ORIGINS:
                _origins.clear()
            _origins[prefix] = origin
        rest, _, fragment = url[end:].partition("#")
        path, _, query = rest.partition("?")
        return origin, path, query, fragment
    parts = urlsplit(url)
    return _origin(parts), parts.path, parts.query, parts.fragment


def _origin(parts: SplitResult) -> _Origin:
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise InvalidRequest("use an absolute http:// or https:// URL", unsupported=True)
    raw_host = parts.hostname
    if not raw_host:
        raise InvalidRequest("no host")
    port = parts.port  # ValueError when out of range or not a number
    try:
        host = raw_host.encode("ascii").decode()
    except UnicodeEncodeError:
        host = raw_host.encode("idna").decode()
    if any(c in host for c in " \t/\\@"):
        raise InvalidRequest("invalid host")
    return scheme, host, port, parts.username, parts.password


def redirected(request: OutgoingRequest, status: int, location: str) -> OutgoingRequest:
    """The request a redirect asks for, as a browser makes it: 303 (and 301/302 after a POST)
    becomes a GET without a body, 307/308 keep method and body; cookies and Host are made again
    for the new URL. To another origin (scheme, host or port), no credential follows:
    Authorization, Proxy-Authorization, Cookie (the jar's cookies still go where their rules
    say), the API-key and token headers (`X-Api-Key`, `*-Api-Key`, `*-Token`, any case) and
    every header the `secrets` parameter names."""
    url = urljoin(request.url, location.strip())
    method = request.method
    if (status == 303 and method != "HEAD") or (status in (301, 302) and method == "POST"):
        method = "GET"
    dropped = {"host", "cookie", "content-length"}
    content: bytes | None = request.content
    if method != request.method:
        content = None
        dropped |= {"content-type", "transfer-encoding"}
    headers = [(k, v) for k, v in request.headers if k.lower() not in dropped]
    following = build_request(method, url, headers, [], content or None)
    following.max_size, following.listed_secrets = request.max_size, request.listed_secrets
    if following.origin != request.origin:
        following.headers = [(k, v) for k, v in following.headers if not _credential(k.lower(), request.listed_secrets)]
    return following


def _credential(lowered: str, listed: frozenset[str]) -> bool:
    """A header (its name lowercased) that carries a credential: kept from another origin."""
    return lowered in SECRET_HEADERS or lowered in listed or _CREDENTIAL_NAME().fullmatch(lowered) is not None


def listed_secrets(params: Mapping[str, EffectiveValue]) -> frozenset[str]:
    """The names the `secrets` parameter of effective parameters lists, lowercased."""
    found = params.get("secrets")
    names = getattr(found, "value", None)
    return frozenset(str(n).lower() for n in names) if names else frozenset()
