"""Reading a HAR 1.2 recording (Chrome, Firefox, Playwright, mitmproxy) into one scenario of the
API calls of one host, with the values one response gave and a later request reused turned into
extracts and references, and credentials into run variables (correlation.py).

Bounded whatever the file holds (docs/import-har-openapi.md#limits): a file of at most
MAX_HAR_BYTES, at most MAX_API_CALLS calls kept, a response body read for values up to
har_entries.MAX_RESPONSE_SCAN, JSON walked to a fixed depth and count. Every problem is a
one-line HarError naming the file (and line:column for a JSON syntax error)."""

from __future__ import annotations

import json
import os
from collections import Counter

from scenario_core.importing.correlation import correlate
from scenario_core.importing.har_entries import HarObject, exchange_of, host_of, why_left_out
from scenario_core.importing.model import ImportedFile, Scenario
from scenario_core.importing.writable import title
from scenario_core.support.input_files import InputFileError, read_regular_file

MAX_HAR_BYTES = 64 * 1024 * 1024
MAX_API_CALLS = 2000


class HarError(ValueError):
    """Why a HAR cannot be imported, one line starting with its file name."""


def _load(path: str) -> object:
    try:
        data = read_regular_file(path, MAX_HAR_BYTES)
    except InputFileError as error:
        raise HarError(f"{path}: {error}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise HarError(f"{path}: not UTF-8 text (byte {error.start}); a HAR file is JSON") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise HarError(f"{path}:{error.lineno}:{error.colno}: error: not valid JSON: {error.msg}") from None
    except RecursionError:
        raise HarError(f"{path}: JSON nested too deeply to be a HAR recording") from None


def _entries(document: object, path: str) -> list[HarObject]:
    log = document.get("log") if isinstance(document, dict) else None
    entries = log.get("entries") if isinstance(log, dict) else None
    if not isinstance(entries, list):
        raise HarError(f"{path}: not a HAR recording (no log.entries list)")
    return [entry for entry in entries if isinstance(entry, dict)]


def _matches(host: str, wanted: str) -> bool:
    wanted = wanted.lower().rstrip("/")
    if "://" in wanted:
        wanted = wanted.split("://", 1)[1]
    return host == wanted or host.split(":", 1)[0] == wanted


def read_har(path: str, host: str | None = None, keep_user_agent: bool = False) -> ImportedFile:
    """The API calls of one host of the recording at `path` as one scenario: the host with the
    most calls, or `host` (a name, or name:port). Raises HarError."""
    entries = _entries(_load(path), path)
    api = [entry for entry in entries if why_left_out(entry) is None]
    counts = Counter(host_of(entry) for entry in api)
    if not counts:
        reasons = Counter(why_left_out(entry) for entry in entries)
        why = ", ".join(f"{n} {reason}" for reason, n in reasons.most_common()) or "it has no entries"
        raise HarError(f"{path}: no API calls to import ({why})")
    if host is None:
        chosen = max(counts, key=lambda h: counts[h])  # the first of those with the most, by order
    else:
        found = [h for h in counts if _matches(h, host)]
        if not found:
            listed = ", ".join(f"{h} ({n})" for h, n in counts.most_common())
            raise HarError(f"{path}: no API calls to host {host!r}; the recording has: {listed}")
        chosen = found[0]
    notes: list[str] = []
    others = [f"{h} ({n} call{'s' if n != 1 else ''})" for h, n in counts.most_common() if h != chosen]
    if others:
        notes.append(f"also recorded, left out: {', '.join(others)}; --host picks another host")
    kept = [entry for entry in api if host_of(entry) == chosen]
    if len(kept) > MAX_API_CALLS:
        notes.append(f"only the first {MAX_API_CALLS} of {len(kept)} calls to {chosen} are imported")
        kept = kept[:MAX_API_CALLS]
    folder = os.path.dirname(os.path.abspath(path))
    exchanges = [exchange_of(entry, notes, keep_user_agent, folder) for entry in kept]
    scheme = exchanges[0].url.split("://", 1)[0].lower()
    correlated = correlate(exchanges)
    name = title(os.path.splitext(os.path.basename(path))[0], "recording")
    return ImportedFile(
        items=(Scenario(name, tuple(correlated.requests)),),
        base_url=f"{scheme}://{chosen}",
        run_variables=tuple(correlated.run_variables),
        notes=tuple(dict.fromkeys(notes)),
        source=f"HAR {os.path.basename(path)}",
    )
