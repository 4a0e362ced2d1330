"""Credentials an import finds in a request become `{{NAME}}` run variables, never written in
clear: an `Authorization` value (its scheme kept: `Bearer {{token}}`), cookies, API-key and
token headers, and fields, query parameters and form values whose name says password, token,
secret or key (the masking rules of scenario_core.support.secrets). Each variable is listed in
the file's header comment with what it stands for."""

from __future__ import annotations

import re
from typing import Any

from scenario_core.importing.model import JsonValue, RunVariable
from scenario_core.support.secrets import is_secret_header, is_secret_variable

_AUTH_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9._~+/-]*)\s+(\S.*)")
_SCHEME_NAMES = {"bearer": "token", "basic": "basic_auth", "token": "token", "digest": "digest_auth"}
# Field names that are credentials though the masking rules' words miss them.
_MORE_SECRET_NAMES = re.compile(r"passw|pwd|passcode|credential|session|csrf|xsrf|otp\b|^pin$", re.IGNORECASE)


def is_secret_field(name: str) -> bool:
    """A JSON field, query parameter or form field whose value is a credential."""
    return is_secret_variable(name) or bool(_MORE_SECRET_NAMES.search(name))


def variable_name(text: str) -> str:
    """`X-Api-Key` → `x_api_key`, `sessionId` → `sessionId`: a name `{{…}}` reads."""
    name = re.sub(r"[^A-Za-z0-9_]+", "_", text).strip("_")
    if not name:
        return "secret"
    if name[0].isdigit():
        name = "_" + name
    return name.lower() if "-" in text or " " in text else name


class Credentials:
    """The run variables of one import: each a unique name, and why the file needs it."""

    def __init__(self) -> None:
        self.variables: list[RunVariable] = []
        self._values: dict[tuple[str, str], str] = {}

    def variable(self, wanted: str, value: str, why: str) -> str:
        """`{{NAME}}` for `value` (the same value under the same wanted name reuses its variable)."""
        key = (wanted, value)
        if key in self._values:
            return "{{" + self._values[key] + "}}"
        taken = {v.name for v in self.variables}
        name = variable_name(wanted)
        base, number = name, 2
        while name in taken:
            name, number = f"{base}_{number}", number + 1
        self.variables.append(RunVariable(name, why))
        self._values[key] = name
        return "{{" + name + "}}"

    def header(self, name: str, value: str, where: str) -> str:
        """A header's value with its credential as a variable, or as it is when it holds none."""
        lower = name.lower()
        if "{{" in value or not value.strip():
            return value
        if lower in ("authorization", "proxy-authorization"):
            match = _AUTH_SCHEME.fullmatch(value.strip())
            if match is not None:
                scheme = match.group(1)
                wanted = _SCHEME_NAMES.get(scheme.lower(), f"{scheme.lower()}_credential")
                if lower == "proxy-authorization":
                    wanted = "proxy_" + wanted
                return f"{scheme} " + self.variable(
                    wanted, match.group(2), f"the {name} credential ({scheme}) of {where}"
                )
            return self.variable(variable_name(name), value, f"the {name} header of {where}")
        if lower == "cookie":
            return self.cookies(value, where)
        if is_secret_header(name):
            return self.variable(variable_name(name), value, f"the {name} header of {where}")
        return value

    def cookies(self, value: str, where: str) -> str:
        """`a=1; b=2` → `a={{a}}; b={{b}}`: every cookie the user sent is a credential."""
        pairs = []
        for pair in value.split(";"):
            pair = pair.strip()
            if not pair:
                continue
            name, equals, cookie = pair.partition("=")
            if not equals or "{{" in cookie:
                pairs.append(pair)
                continue
            pairs.append(f"{name}=" + self.variable(name, cookie, f"the cookie {name} sent by {where}"))
        return "; ".join(pairs)

    def field(self, name: str, value: str, where: str) -> str:
        """A query, form or multipart field's value: a variable when the name says credential."""
        if is_secret_field(name) and value and "{{" not in value:
            return self.variable(name, value, f"the {name} field of {where}")
        return value

    def json(self, value: JsonValue, where: str) -> JsonValue:
        """A JSON body with the string values of credential-named fields as variables (a string
        stays a string: `"{{password}}"`), at any depth (iterative)."""
        root: list[Any] = [value]
        stack: list[tuple[Any, Any]] = [(root, 0)]
        while stack:
            holder, key = stack.pop()
            item = holder[key]
            if isinstance(item, dict):
                copy = dict(item)
                holder[key] = copy
                for name, child in copy.items():
                    if is_secret_field(name) and isinstance(child, str):
                        if child and "{{" not in child:
                            copy[name] = self.variable(name, child, f"the {name} field of {where}")
                    else:
                        stack.append((copy, name))
            elif isinstance(item, list):
                copy_list = list(item)
                holder[key] = copy_list
                stack.extend((copy_list, index) for index in range(len(copy_list)))
        copied: JsonValue = root[0]
        return copied
