"""The secret rules, in one place, below everything that shows a value: the runner, the reports,
`params`, the editor and the TUI all mask through here (the Masker in report/masking.py learns
values and applies these rules), so what counts as a secret never differs between outputs.

What is secret:
- the values of the headers `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`,
  the usual API-key and token headers (`X-Api-Key`, `Api-Key`, `X-Auth-Token`, `X-Csrf-Token`...)
  and any header whose name contains `token`, `secret`, `password` or `key` (names compare
  case-insensitively);
- the values of variables whose name contains `token`, `secret`, `password` or `key`, in any
  case (`apiKey`, `TOKEN`, `db_password`; also `monkey` -- a false positive is cheaper than a leak);
- the names a user lists in the `secrets` parameter (`secrets: sessionRef, X-Tenant`): variables,
  headers, JSON fields and query parameters of those names, compared case-insensitively;
- in JSON text and URLs, the values of fields / query parameters with such names
  (`{"token": "..."}`, `?api_key=...`), so a login response prints safely before anything
  was extracted from it; the password of a URL's userinfo (`http://admin:pw@host`) and the
  `Basic` credentials it produces; such JSON fields inside a JSON string that holds JSON too
  (a request body echoed back: `"body": "{\\"password\\": \\"pw\\"}"`);
- anywhere in other text: every value the Masker has learnt as secret, whatever its JSON type
  (`--var apiKey=31415926` is a number), in each of its secret_forms (as is, JSON-escaped,
  percent-encoded). A learnt value of LONG_SECRET_LENGTH characters or more is masked wherever
  it occurs (also its 4+ character prefix cut short by a `…`: messages clip long values). A
  shorter one is masked only where it stands as a whole value -- a header value, a query value,
  a JSON string or scalar (also one inside an echoed JSON string), a path segment -- so
  `--var apikey=echo` does not turn `echoed` or `"/echo"` into bullets. A path segment the file
  itself writes (the route `/echo`) is the API's, not the secret's, and stays.

How it is masked: the value is replaced by MASK, a fixed run of bullets, so neither the content
nor the length leaks. The only hint kept is what is not secret: the auth scheme
(`Bearer ••••••`) and cookie names and attributes (`session=••••••; Path=/`).

Cost: learning a secret is O(1) and stores at most SECRET_FORMS strings, each made from the value
itself (never from another form: escaping an escaped form again grows without end); masking text
costs one pass per regex group, whatever the number of secrets (long ones are matched by
trie-shaped patterns built in geometric batches, short ones by a set lookup per candidate token).
JSON values are walked iteratively.
"""

from __future__ import annotations

import json
import re
from typing import Iterable, Mapping, overload
from urllib.parse import quote, quote_plus

MASK = "••••••"
SECRET_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "cookie",
        "set-cookie",
        "x-api-key",
        "api-key",
        "apikey",
        "x-auth-token",
        "x-csrf-token",
        "x-xsrf-token",
        "x-access-token",
        "x-session-token",
        "x-amz-security-token",
        "x-goog-api-key",
        "x-auth",
    }
)
SECRET_NAME_PARTS = ("token", "secret", "password", "key")
SECRET_FORMS = 10  # at most this many forms of one secret value are learnt (secret_forms)
FORM_GROWTH = 14  # a form is at most this many characters per character of the value (an emoji escaped twice)
MIN_SECRET_LENGTH = 4  # the shortest prefix before a `…` worth masking
LONG_SECRET_LENGTH = 8  # from this length on, a learnt value is masked wherever it occurs
ELLIPSIS = "…"  # how messages and excerpts mark clipped text

AUTH_HEADERS = frozenset({"authorization", "proxy-authorization"})
SECRET_NAME = re.compile("|".join(SECRET_NAME_PARTS), re.IGNORECASE)
# "name": "value" in JSON text (also when the text is cut short, as in a printed excerpt).
JSON_FIELD = re.compile(r'"((?:[^"\\]|\\.)*)"(\s*:\s*)"((?:[^"\\]|\\.)*)"')
# name=value in a query string or form body.
QUERY_FIELD = re.compile(r"(^|[?&;])([^=&;?#\s]+)=([^&;#\s]*)")
# scheme://user:password@ -- the password of a URL's userinfo.
USERINFO = re.compile(r"([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@\"'<>]*:)([^/\s@\"'<>]*)(@)")
# A character of a JSON string inside a JSON string, as the outer one writes it: `\\\\` (an escaped
# backslash), `\\\"` (an escaped quote), or a character after at most two backslashes (`\\n`).
_ESCAPED_CHAR = r'(?:\\\\\\\\|\\\\\\"|\\{0,2}[^"\\])'
# JSON_FIELD inside a JSON string that holds JSON: `\"password\": \"pw\"`.
ESCAPED_JSON_FIELD = re.compile(rf'\\"({_ESCAPED_CHAR}*)\\"(\s*:\s*)\\"({_ESCAPED_CHAR}*)\\"')
# Where a short secret can stand as a whole value (each checked against a set, never searched):
JSON_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
ESCAPED_JSON_STRING = re.compile(rf'\\"({_ESCAPED_CHAR}*)\\"')
JSON_SCALAR = re.compile(r"([:\[,]\s*)(-?[0-9][0-9.eE+-]*)(?=\s*(?:[,\]}]|$))")
PATH_SEGMENT = re.compile(r"(?<=/)([^/?#\s\"'<>\\]+)(?=[/?#\s\"'<>\\]|$)")
HEADER_LINE = re.compile(r"^([A-Za-z0-9-]+:[ \t]*)(.*?)[ \t]*$", re.MULTILINE)


# What an HTTP client leaves unencoded in a URL path: RFC 3986 `pchar` and `/`.
_PATH_SAFE = "!$&'()*+,;=:@/"


def secret_forms(value: str) -> frozenset[str]:
    """The forms in which a secret value shows in output: as is; inside a JSON string, both
    as UTF-8 and `\\u`-escaped; inside a JSON string inside a JSON string (a request body echoed
    back as text: `"body": "{\\"t\\": \\"a\\\\\\"b\\"}"`), each way at each level; percent-encoded as
    in a URL path, a query or form value, and in full. Each is made from the value itself, at a
    fixed depth, never from another learnt form: escaping an escaped form again (`a\\b`,
    `a\\\\b`, `a\\\\\\\\b`...) would never end. At most SECRET_FORMS strings, each at most
    FORM_GROWTH characters per character of the value."""
    once = (json.dumps(value, ensure_ascii=False)[1:-1], json.dumps(value)[1:-1])
    twice = (json.dumps(form, ensure_ascii=ascii_only)[1:-1] for form in once for ascii_only in (False, True))
    return frozenset(
        (
            value,
            *once,
            *twice,
            # A lone surrogate (a JSON `"\\ud800"`) has no UTF-8 form: encoded as Python would.
            quote(value, safe=_PATH_SAFE, errors="surrogatepass"),
            quote_plus(value, safe="", errors="surrogatepass"),
            quote(value, safe="", errors="surrogatepass"),
        )
    )


def is_secret_header(name: str) -> bool:
    lowered = name.lower()
    return lowered in SECRET_HEADERS or SECRET_NAME.search(lowered) is not None


def is_secret_variable(name: str) -> bool:
    """Also used for JSON field and query parameter names."""
    return SECRET_NAME.search(name) is not None


def mask_header_value(name: str, value: str) -> str:
    """The value to show for a header: unchanged unless the header is secret."""
    return mask_lowered_header_value(name.lower(), value) if is_secret_header(name) else value


def mask_lowered_header_value(lowered: str, value: str) -> str:
    """A secret header's value masked (its name already lower-cased): the scheme and cookie names stay."""
    if lowered in AUTH_HEADERS:
        scheme, sep, credentials = value.strip().partition(" ")
        return f"{scheme} {MASK}" if sep and credentials.strip() else MASK
    if lowered == "cookie":  # a=1; b=2 -> a=••••••; b=••••••
        return "; ".join(mask_cookie_pair(pair) for pair in value.split(";"))
    if lowered == "set-cookie":  # attributes (Path, HttpOnly) are not secret
        first, sep, attributes = value.partition(";")
        return mask_cookie_pair(first) + (sep + attributes if sep else "")
    return MASK


def mask_cookie_pair(pair: str) -> str:
    name, sep, _ = pair.strip().partition("=")
    return f"{name}={MASK}" if sep else MASK


@overload
def mask_headers(headers: Mapping[str, str]) -> dict[str, str]: ...


@overload
def mask_headers(headers: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]: ...


def mask_headers(
    headers: Iterable[tuple[str, str]] | Mapping[str, str],
) -> dict[str, str] | tuple[tuple[str, str], ...]:
    """Pairs in, pairs out (a tuple); a mapping in, a dict out."""
    if isinstance(headers, Mapping):
        return {k: mask_header_value(k, v) for k, v in headers.items()}
    return tuple((k, mask_header_value(k, v)) for k, v in headers)


def mask_variables(variables: Mapping[str, object]) -> dict[str, object]:
    """Secret names get MASK whatever their value; other values are kept as they are (nested
    fields with secret names included: use Masker.variables to scrub those too)."""
    return {k: (MASK if is_secret_variable(k) else v) for k, v in variables.items()}


def mask_json_fields(text: str, names: frozenset[str] = frozenset()) -> str:
    """`"token": "abc"` -> `"token": "••••••"` in JSON text, however it is formatted; also fields
    named like a secret header (`"authorization"`, an echo of the request) or listed in names."""

    def replace(match: re.Match[str], mark: str = '"') -> str:
        field = match.group(1)
        lowered = field.lower()
        if lowered in SECRET_HEADERS:  # the scheme and cookie names stay, as in a header
            value = mask_lowered_header_value(lowered, match.group(3))
        elif is_secret_variable(field) or lowered in names:
            value = MASK
        else:
            return match.group(0)
        return f"{mark}{field}{mark}{match.group(2)}{mark}{value}{mark}"  # `"` or, one level down, `\"`

    if '"' not in text:
        return text
    text = JSON_FIELD.sub(replace, text)
    if '\\"' in text:  # JSON in a JSON string: an echoed request body
        text = ESCAPED_JSON_FIELD.sub(lambda match: replace(match, '\\"'), text)
    return text


def mask_query_fields(text: str, names: frozenset[str] = frozenset()) -> str:
    """`?api_key=abc&x=1` -> `?api_key=••••••&x=1`."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(2)
        if not match.group(3) or not (is_secret_variable(name) or name.lower() in names):
            return match.group(0)
        return f"{match.group(1)}{name}={MASK}"

    return QUERY_FIELD.sub(replace, text) if "=" in text else text


def mask_text(text: str, names: frozenset[str] = frozenset()) -> str:
    """The rules that need no learnt value, in any text: secret JSON fields, query parameters
    and URL passwords (what a URL or body written in a file may hold)."""
    return mask_userinfo(mask_query_fields(mask_json_fields(text, names), names))


def mask_userinfo(text: str) -> str:
    """`http://admin:pw@host` -> `http://admin:••••••@host`."""
    return (
        USERINFO.sub(lambda m: f"{m.group(1)}{MASK}{m.group(3)}" if m.group(2) else m.group(0), text)
        if "@" in text
        else text
    )
