"""How values reach the screen: secrets masked through core/masking.py (the one place the rules
live), control characters from files and servers shown as escapes (core/printable.py: an ESC in
a response must not reach the terminal), and the deterministic mode snapshot tests use (no timings, no port numbers, no dates).
Every widget formats through the one `Display` the app shares with them."""

from __future__ import annotations

import json
import re
from typing import Iterable

from scenario_core.report.masking import Masker
from scenario_core.run.events import Event
from scenario_core.support.printable import visible, visible_block

# A loopback or local host with a port: what changes from run to run in tests and demos.
_HOST_PORT = re.compile(r"\b(127\.0\.0\.1|localhost|\[::1\]):\d+")
# Response headers whose values change from run to run (or from machine to machine).
VOLATILE_HEADERS = frozenset({"date", "server"})


class Display:
    def __init__(self, deterministic: bool = False, reveal_secrets: bool = False) -> None:
        self.deterministic = deterministic
        self.masker = Masker(enabled=not reveal_secrets)
        # Where the command line's base URL comes from, in words on screen (`demo` for the
        # bundled demo API that `scenario-tui demo` starts); None: "command line".
        self.base_url_source: str | None = None

    @property
    def reveal_secrets(self) -> bool:
        return not self.masker.enabled

    @reveal_secrets.setter
    def reveal_secrets(self, reveal: bool) -> None:
        self.masker.enabled = not reveal

    def learn(self, event: Event) -> None:
        """Learn the secret values an executor event carries (tokens, auth headers)."""
        self.masker.feed(event)

    # ------------------------------------------------------------ text

    def text(self, text: str | None) -> str:
        """Text as shown (a message, a body: lines kept): learnt secrets masked, control
        characters visible; in deterministic mode, loopback ports hidden."""
        shown = visible_block(self.masker.text(text) or "")
        if self.deterministic:
            shown = _HOST_PORT.sub(r"\1:PORT", shown)
        return shown

    def line(self, text: str | None) -> str:
        """One line as shown (a URL, a header value): masked, every control character visible."""
        return visible(self.text(text))

    def plain(self, text: str) -> str:
        """Text that holds no secret (a URL from the command line): control characters visible,
        only the port hidden."""
        text = visible(text)
        return _HOST_PORT.sub(r"\1:PORT", text) if self.deterministic else text

    def written(self, text: str) -> str:
        """Part of a request as written in the file: templates hold no secret, but a literal
        password in a URL, a secret query parameter or JSON field does."""
        return self.plain(self.masker.text(text) or "")

    def seconds(self, seconds: float) -> str:
        """An elapsed time, or nothing in deterministic mode."""
        if self.deterministic:
            return ""
        if seconds < 1:
            return f"{seconds * 1000:.0f} ms"
        return f"{seconds:.2f} s"

    def headers(self, headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        shown = []
        for name, value in self.masker.headers(headers):
            if self.deterministic and name.lower() in VOLATILE_HEADERS:
                value = "…"
            shown.append((visible(name), self.plain(value)))
        return shown

    def variable(self, name: str, value: object) -> str:
        """A variable's value in its JSON form; secrets (by name or learnt) masked."""
        return self.plain(json_form(self.masker.value(value, name)))

    def value(self, value: object) -> object:
        """A JSON value with secret fields and learnt secrets masked, at any depth."""
        return self.masker.value(value)


def json_form(value: object) -> str:
    """A value in its JSON form, compact: `7`, `"Rex"`, `true`, `[1, 2]`."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except RecursionError:  # nested deeper than json.dumps can go: cut at MAX_DEPTH levels
        return json_form(Masker(enabled=False).value(value))
    except (TypeError, ValueError):
        return repr(value)
