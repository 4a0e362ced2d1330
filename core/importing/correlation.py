"""Correlation: which recorded values a later request reused from an earlier response, and which
are credentials the file must not hold in clear, for the HAR reader (names come from naming.py,
which the OpenAPI reader shares).

The rules (docs/import-har-openapi.md#correlation):
* A response produces values: every JSON scalar at any depth (the first of a value in
  breadth-first order), its `Location` header, each cookie it sets, and headers named like a
  token. A later request reuses one when a path segment, a query value, a header value (whole, or
  after its auth scheme), a JSON body scalar, a form field or a text part equals it verbatim;
  `Location` also as the start of a later URL. The reuse becomes `{{NAME}}` and the producer gains
  `extract: NAME from SOURCE`.
* A value counts only when it could not be a coincidence: not a boolean, not null, not empty, and
  MIN_VALUE_LENGTH characters or more; a shorter value only when the response names it as an id
  (`id`, `petId`, `pet_id`) and the request uses it as a whole path segment or in a field also
  named as an id. A value the client itself sent before the response came is not produced by it.
* The latest producer before a use wins; within one response a JSON field wins over a header.
* Names come from the JSON key; an `id` takes its resource (`id` in the response of `POST /pets`
  is `petId`, `$.owner.id` is `ownerId`); each name is made unique with a number.
* Credentials (Authorization values, cookies no recorded response set, fields named like a
  password, secret, token or API key) that no response produced become run variables.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict, deque
from dataclasses import dataclass, field, replace
from typing import Iterator, cast
from urllib.parse import unquote, urljoin

from scenario_core.importing.model import (
    Body,
    Extract,
    FormBody,
    JsonBody,
    JsonValue,
    MultipartBody,
    Request,
    RunVariable,
    SourceKind,
    TextBody,
)
from scenario_core.importing.naming import Names, identifier, is_id_key, is_secret_field, resource_of, variable_name
from scenario_core.support.secrets import is_secret_header

# Four characters: an id of four digits or a short random key is already unlikely to equal
# another recorded value by chance, while 0/1/200/"ok"/"en" are everywhere.
MIN_VALUE_LENGTH = 4
# How much of one response is looked at for produced values (a huge listing adds little: the
# value an API hands out is near the top, breadth first), and how many are remembered at once
# (the oldest are forgotten first: the latest producer wins anyway).
MAX_VALUES_PER_RESPONSE = 1000
MAX_PRODUCED_VALUES = 200_000
MAX_JSON_DEPTH = 64
MAX_VALUE_LENGTH = 4096  # longer strings are content, not ids or tokens
MAX_TEXT_SCAN = 1 << 20  # a text body past this is sent as recorded
_TOKEN = re.compile(r"[A-Za-z0-9_.~+/-]{8,}=*")  # what may be an id or token inside a text body


@dataclass
class Exchange:
    """One recorded request (path and query as recorded, no host) and what its response gave."""

    request: Request
    url: str  # absolute, to resolve a relative Location against
    response_json: JsonValue = None
    has_json: bool = False
    response_headers: tuple[tuple[str, str], ...] = ()


@dataclass
class _Producer:
    """Where a value came from. A JSON field's path and name are worked out at its first use
    (`json_at`): most values a response holds are never reused."""

    index: int
    kind: str  # json, header, cookie
    where: str
    wanted: str
    id_like: bool
    name: str | None = None
    json_at: tuple[tuple[str | int, ...], str] | None = None  # (parents, request path)

    def settle(self) -> None:
        if self.json_at is not None:
            parents, path = self.json_at
            keys = tuple(p for p in parents if isinstance(p, str))
            self.where = _json_path(parents)
            self.wanted = variable_name(keys[-1], path, keys[:-1]) if keys else "value"
            self.json_at = None


@dataclass
class _Location:
    producer: _Producer
    absolute: str


@dataclass
class Correlated:
    requests: list[Request]
    run_variables: list[RunVariable] = field(default_factory=list)


def _text(value: object) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, str)):
        return str(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return None


def _json_path(parents: tuple[str | int, ...]) -> str:
    out = "$"
    for part in parents:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", part) and part not in ("where", "wherenot", "null", "true", "false"):
            out += "." + part
        else:
            out += "[" + json.dumps(part) + "]"
    return out


def json_scalars(value: JsonValue) -> Iterator[tuple[tuple[str | int, ...], JsonValue]]:
    """(path, scalar) breadth first, bounded in depth and count."""
    queue: deque[tuple[tuple[str | int, ...], JsonValue]] = deque([((), value)])
    count = 0
    while queue and count < MAX_VALUES_PER_RESPONSE:
        path, node = queue.popleft()
        count += 1
        if isinstance(node, dict):
            if len(path) < MAX_JSON_DEPTH:
                queue.extend(((*path, str(k)), v) for k, v in node.items())
        elif isinstance(node, list):
            if len(path) < MAX_JSON_DEPTH:
                queue.extend(((*path, i), v) for i, v in enumerate(node))
        else:
            yield path, node


class Correlator:
    """Walks the exchanges in order: each request's values are first replaced (reuse, then
    credentials), then its response's values become producers for the requests after it."""

    def __init__(self, exchanges: list[Exchange]) -> None:
        self.exchanges = exchanges
        self.names = Names()
        self.values: OrderedDict[str, _Producer] = OrderedDict()
        self.locations: list[_Location] = []
        self.cookies_set: set[str] = set()
        self.cookie_producers: dict[str, _Producer] = {}
        self.sent: set[str] = set()
        self.extracts: list[list[Extract]] = [[] for _ in exchanges]
        self.secrets: dict[str, str] = {}  # credential value → run variable name
        self.run_variables: list[RunVariable] = []

    def run(self) -> Correlated:
        out: list[Request] = []
        for index, exchange in enumerate(self.exchanges):
            out.append(self._rewrite(exchange.request))
            self._produce(index, exchange)
        final = [_with_extracts(request, tuple(self.extracts[i]) + request.extracts) for i, request in enumerate(out)]
        return Correlated(final, self.run_variables)

    # -- producing ---------------------------------------------------------------------------
    def _offer(self, text: str, producer: _Producer) -> None:
        if not text or len(text) > MAX_VALUE_LENGTH or text in self.sent:
            return
        if len(text) < MIN_VALUE_LENGTH and not producer.id_like:
            return
        self.values[text] = producer
        self.values.move_to_end(text)  # the oldest producers are forgotten first
        if len(self.values) > MAX_PRODUCED_VALUES:
            self.values.popitem(last=False)

    def _produce(self, index: int, exchange: Exchange) -> None:
        path = exchange.request.path
        for name, value in exchange.response_headers:
            lowered = name.lower()
            if lowered == "location" and value.strip():
                producer = _Producer(index, "header", "Location", f"{resource_of(path) or 'created'}Location", False)
                absolute = urljoin(exchange.url, value.strip())
                if value.startswith("/") or re.match(r"https?://", value):
                    self.locations.append(_Location(producer, absolute))
            elif lowered == "set-cookie":
                pair = value.split(";", 1)[0]
                cookie, equals, cookie_value = pair.partition("=")
                if equals and cookie.strip():
                    self.cookies_set.add(cookie.strip())
                    producer = _Producer(index, "cookie", cookie.strip(), identifier(cookie.strip()), False)
                    self.cookie_producers[cookie.strip()] = producer
                    self._offer(cookie_value.strip(), producer)
            elif is_secret_header(name) and lowered not in ("authorization", "cookie"):
                self._offer(value.strip(), _Producer(index, "header", name, identifier(name), False))
        if not exchange.has_json:
            return
        seen: set[str] = set()
        for parents, scalar in json_scalars(exchange.response_json):
            text = _text(scalar)
            if text is None or text in seen or not text or len(text) > MAX_VALUE_LENGTH:
                continue
            seen.add(text)
            id_like = bool(parents) and isinstance(parents[-1], str) and is_id_key(parents[-1])
            if len(text) < MIN_VALUE_LENGTH and not id_like:
                continue
            self._offer(text, _Producer(index, "json", "", "", id_like, json_at=(parents, path)))

    # -- using -------------------------------------------------------------------------------
    def _use(self, text: str, whole_id_slot: bool) -> str | None:
        """`{{NAME}}` for a value a response produced, or None."""
        producer = self.values.get(text)
        if producer is None:
            return None
        if len(text) < MIN_VALUE_LENGTH and not whole_id_slot:
            return None
        return self._name_of(producer)

    def _name_of(self, producer: _Producer) -> str:
        """`{{NAME}}` of a producer; its extract is added at its first use."""
        if producer.name is None:
            producer.settle()
            producer.name = self.names.unique(producer.wanted)
            extract = Extract(producer.name, cast(SourceKind, producer.kind), producer.where)
            self.extracts[producer.index].append(extract)
        return "{{" + producer.name + "}}"

    def _secret(self, value: str, wanted: str, why: str) -> str:
        name = self.secrets.get(value)
        if name is None:
            name = self.secrets[value] = self.names.unique(wanted)
            self.run_variables.append(RunVariable(name, why))
        return "{{" + name + "}}"

    def _rewrite(self, request: Request) -> Request:
        label = f"{request.method} {request.path.split('?', 1)[0]}"
        path = self._rewrite_path(request.path, label)
        headers = []
        for name, value in request.headers:
            rewritten = self._rewrite_header(name, value, label)
            if rewritten is not None:
                headers.append((name, rewritten))
        body = self._rewrite_body(request.body, label)
        if isinstance(request.body, JsonBody) and isinstance(body, TextBody):
            if not any(name.lower() == "content-type" for name, _ in headers):
                headers.append(("Content-Type", "application/json"))
        self._remember_sent(request)
        return replace(request, path=path, headers=tuple(headers), body=body)

    def _rewrite_path(self, full: str, label: str) -> str:
        raw_path, question, query = full.partition("?")
        segments = raw_path.split("/")
        replaced = False
        for i, segment in enumerate(segments):
            if segment:
                use = self._use(unquote(segment), True)
                if use is not None:
                    segments[i], replaced = use, True
        path = "/".join(segments)
        if not replaced:
            path = self._location_prefix(raw_path) or path
        if not question:
            return path
        pairs = []
        for pair in query.split("&"):
            name, equals, value = pair.partition("=")
            if equals:
                decoded = unquote(value.replace("+", " "))
                use = self._use(decoded, is_id_key(unquote(name)))
                if use is None and is_secret_field(unquote(name)) and decoded:
                    use = self._secret(
                        decoded, identifier(unquote(name)), f"the {unquote(name)} query value of {label}"
                    )
                pairs.append(f"{name}={use}" if use is not None else pair)
            else:
                pairs.append(pair)
        return path + "?" + "&".join(pairs)

    def _location_prefix(self, raw_path: str) -> str | None:
        """`{{petLocation}}/toys` when the URL starts with a Location a response gave."""
        for location in reversed(self.locations):
            base = self.exchanges[location.producer.index].url
            origin = re.match(r"https?://[^/]+", base)
            if origin is None:
                continue
            url = origin.group(0) + raw_path
            target = location.absolute.split("?", 1)[0].split("#", 1)[0]
            if url == target or url.startswith(target.rstrip("/") + "/"):
                return self._name_of(location.producer) + url[len(target) :]
        return None

    def _rewrite_header(self, name: str, value: str, label: str) -> str | None:
        lowered = name.lower()
        if lowered == "cookie":
            return self._rewrite_cookie(value, label)
        use = self._use(value.strip(), False)
        if use is not None:
            return use
        scheme, space, credential = value.strip().partition(" ")
        if space and credential.strip():
            use = self._use(credential.strip(), False)
            if use is not None:
                return f"{scheme} {use}"
        if lowered in ("authorization", "proxy-authorization"):
            if space and credential.strip():
                wanted = {"bearer": "token", "basic": "basicAuth", "token": "token"}.get(scheme.lower(), "credential")
                return f"{scheme} " + self._secret(credential.strip(), wanted, f"the {name} credential of {label}")
            return self._secret(value.strip(), "authorization", f"the {name} value of {label}")
        if is_secret_header(name) and value.strip():
            return self._secret(value.strip(), identifier(name), f"the {name} header of {label}")
        return value

    def _rewrite_cookie(self, value: str, label: str) -> str | None:
        """Cookies a recorded response set are the client's cookie jar's: the header goes when
        it holds only those. The others are credentials the user passes; a request with a
        Cookie header of its own gets nothing from the jar, so the jar's cookies are then
        written too, each from the response that set it."""
        pairs = [pair.strip().partition("=") for pair in value.split(";") if pair.strip()]
        if all(cookie in self.cookies_set for cookie, _, _ in pairs):
            return None
        kept = []
        for cookie, equals, cookie_value in pairs:
            if not equals:
                kept.append(cookie)
            elif cookie in self.cookie_producers:
                kept.append(f"{cookie}={self._name_of(self.cookie_producers[cookie])}")
            else:
                use = self._use(cookie_value, False) or self._secret(
                    cookie_value, identifier(cookie), f"the cookie {cookie} sent by {label}"
                )
                kept.append(f"{cookie}={use}")
        return "; ".join(kept)

    def _rewrite_body(self, body: Body | None, label: str) -> Body | None:
        if isinstance(body, JsonBody):
            return self._rewrite_json(body.value, label)
        if isinstance(body, FormBody):
            return FormBody(tuple((k, self._field(k, v, label)) for k, v in body.fields))
        if isinstance(body, MultipartBody):
            return MultipartBody(
                tuple((k, self._field(k, v, label) if isinstance(v, str) else v) for k, v in body.parts)
            )
        if isinstance(body, TextBody):
            text = body.text
            if len(text) <= MAX_TEXT_SCAN:
                # Tokens, each looked up: linear in the body whatever the number of producers.
                found = {t for t in _TOKEN.findall(text) if t in self.values}
                for value in sorted(found, key=len, reverse=True):
                    use = self._use(value, False)
                    if use is not None:
                        text = text.replace(value, use)
            return TextBody(text)
        return body

    def _field(self, key: str, value: str, label: str) -> str:
        use = self._use(value, is_id_key(key))
        if use is not None:
            return use
        if is_secret_field(key) and value:
            return self._secret(value, identifier(key), f"the {key} field of {label}")
        return value

    def _rewrite_json(self, value: JsonValue, label: str) -> Body:
        """The body with reused values and credentials replaced; a number replaced by a
        reference keeps its type, so the body becomes text with a bare `{{NAME}}` there."""
        bare: dict[str, str] = {}

        def walk(node: JsonValue, key: str, depth: int) -> JsonValue:
            if depth > MAX_JSON_DEPTH:
                return node
            if isinstance(node, dict):
                return {k: walk(v, k, depth + 1) for k, v in node.items()}
            if isinstance(node, list):
                return [walk(v, key, depth + 1) for v in node]
            text = _text(node)
            if text is None:
                return node
            use = self._use(text, is_id_key(key))
            if use is None and isinstance(node, str) and node and is_secret_field(key):
                use = self._secret(node, identifier(key), f"the {key} field of {label}")
            if use is None:
                return node
            if isinstance(node, str):
                return use
            marker = f"\x00bare{len(bare)}\x00"
            bare[marker] = use
            return marker

        rewritten = walk(value, "", 0)
        if not bare:
            return JsonBody(rewritten)
        text = json.dumps(rewritten, indent=2, ensure_ascii=False)
        for marker, use in bare.items():
            text = text.replace(json.dumps(marker), use)
        return TextBody(text)

    def _remember_sent(self, request: Request) -> None:
        raw_path, _, query = request.path.partition("?")
        self.sent.update(unquote(s) for s in raw_path.split("/") if s)
        for pair in query.split("&") if query else ():
            self.sent.add(unquote(pair.partition("=")[2].replace("+", " ")))
        for _, value in request.headers:
            self.sent.add(value.strip())
            self.sent.add(value.strip().partition(" ")[2])
        body = request.body
        if isinstance(body, JsonBody):
            self.sent.update(t for _, s in json_scalars(body.value) if (t := _text(s)) is not None)
        elif isinstance(body, FormBody):
            self.sent.update(v for _, v in body.fields)
        elif isinstance(body, MultipartBody):
            self.sent.update(v for _, v in body.parts if isinstance(v, str))


def _with_extracts(request: Request, extracts: tuple[Extract, ...]) -> Request:
    return replace(request, extracts=extracts) if extracts else request


def correlate(exchanges: list[Exchange]) -> Correlated:
    return Correlator(exchanges).run()
