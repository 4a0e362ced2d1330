"""Names for what an import writes: the variable a response's value goes into (`id` in the
response of `POST /pets` is `petId`), made unique, and which field names are ids or
credentials. Shared by the HAR and OpenAPI readers."""

from __future__ import annotations

import re
from urllib.parse import unquote

_ID_KEY = re.compile(r"(?:^|_|-)(?:id|uuid|guid)$|^(?:key|slug)$", re.I)
_CAMEL_ID_KEY = re.compile(r"[a-z0-9](?:Id|ID|Uuid|UUID)$")
_SECRET_FIELD = re.compile(
    r"pass(?:word|wd|phrase)?$|^pwd$|secret|token|api[-_]?key|^apikey$|access[-_]?key|private[-_]?key|credential",
    re.I,
)
_WRAPPERS = frozenset(
    {"data", "result", "results", "items", "item", "payload", "response", "body", "content", "records"}
)
_VERSION = re.compile(r"^(?:v\d+(?:\.\d+)*|api|rest|graphql)$", re.I)
_OPAQUE = re.compile(r"^(?:\d+|[0-9a-f]{8,}|[0-9a-f-]{32,36}|\{\{.*\}\})$", re.I)


def is_id_key(key: str) -> bool:
    return bool(_ID_KEY.search(key) or _CAMEL_ID_KEY.search(key))


def is_secret_field(name: str) -> bool:
    """A query, form or JSON field whose value is a credential by its name."""
    return bool(_SECRET_FIELD.search(name))


def identifier(text: str) -> str:
    """`X-Auth-Token` → `authToken`, `access_token` stays, `2fa` → `v2fa`."""
    text = re.sub(r"^x-", "", text, flags=re.I)
    parts = [p for p in re.split(r"[^A-Za-z0-9_]+", text) if p]
    if not parts:
        return "value"
    name = parts[0][:1].lower() + parts[0][1:] + "".join(p[:1].upper() + p[1:] for p in parts[1:])
    return name if name[0].isalpha() else "v" + name


def singular(word: str) -> str:
    lowered = word.lower()
    if lowered.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if lowered.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if lowered.endswith("s") and not lowered.endswith("ss") and len(word) > 2:
        return word[:-1]
    return word


def resource_of(path: str) -> str | None:
    """The resource a path names: its last segment that is neither an id nor a version prefix
    (`/api/v1/pets/7` → `pet`)."""
    for segment in reversed([s for s in path.split("?", 1)[0].split("/") if s]):
        segment = unquote(segment)
        if _OPAQUE.match(segment) or _VERSION.match(segment) or re.search(r"[\d{]", segment):
            continue
        if re.match(r"^[A-Za-z][A-Za-z0-9_-]*$", segment):
            return singular(identifier(segment))
    return None


def variable_name(key: str, path: str, parents: tuple[str, ...] = ()) -> str:
    """The name for the value of `key` in a response to a request of `path`: the key itself,
    except an id, which takes what it identifies (its nearest named parent object, else the
    resource of the path): `id` of `POST /pets` → `petId`."""
    if not is_id_key(key) or key.lower() not in ("id", "_id", "uuid", "guid", "key", "slug"):
        return identifier(key)
    owner = next((p for p in reversed(parents) if p.lower() not in _WRAPPERS and not p.isdigit()), None)
    owner_name = singular(identifier(owner)) if owner else resource_of(path)
    suffix = "Id" if key.lower() in ("id", "_id") else key[:1].upper() + key[1:].lower()
    return f"{owner_name}{suffix}" if owner_name else identifier(key.lstrip("_"))


class Names:
    """Names handed out once each: `petId`, then `petId2`, `petId3`."""

    def __init__(self, taken: tuple[str, ...] = ()) -> None:
        self._taken = set(taken)
        self._next: dict[str, int] = {}  # the number to try next for a name, so no name is tried twice

    def unique(self, wanted: str) -> str:
        name, n = wanted, self._next.get(wanted, 2)
        while name in self._taken:
            name, n = f"{wanted}{n}", n + 1
        self._next[wanted] = n
        self._taken.add(name)
        return name
