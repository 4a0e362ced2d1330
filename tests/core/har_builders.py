"""Building small HAR recordings in tests: `entry(...)` per call, `write_har(tmp_path, entries)`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def entry(
    method: str,
    url: str,
    *,
    status: int = 200,
    headers: tuple[tuple[str, str], ...] = (),
    body: Any = None,
    mime: str = "application/json",
    response: Any = None,
    response_headers: tuple[tuple[str, str], ...] = (),
    response_mime: str = "application/json",
    resource_type: str | None = None,
) -> dict:
    """One HAR entry; `body`/`response` that are not str are written as JSON text."""
    request: dict[str, Any] = {
        "method": method,
        "url": url,
        "httpVersion": "HTTP/1.1",
        "headers": [{"name": n, "value": v} for n, v in headers],
        "queryString": [],
        "cookies": [],
        "headersSize": -1,
        "bodySize": -1,
    }
    if body is not None:
        request["postData"] = {"mimeType": mime, "text": body if isinstance(body, str) else json.dumps(body)}
    content: dict[str, Any] = {"size": -1, "mimeType": response_mime}
    if response is not None:
        content["text"] = response if isinstance(response, str) else json.dumps(response)
    made: dict[str, Any] = {
        "startedDateTime": "2026-11-27T10:00:00.000Z",
        "time": 1,
        "request": request,
        "response": {
            "status": status,
            "statusText": "",
            "httpVersion": "HTTP/1.1",
            "headers": [{"name": n, "value": v} for n, v in response_headers],
            "cookies": [],
            "content": content,
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": -1,
        },
        "cache": {},
        "timings": {"send": 0, "wait": 1, "receive": 0},
    }
    if resource_type is not None:
        made["_resourceType"] = resource_type
    return made


def write_har(folder: Path, entries: list[dict], name: str = "rec.har") -> str:
    path = folder / name
    path.write_text(json.dumps({"log": {"version": "1.2", "creator": {"name": "test"}, "entries": entries}}))
    return str(path)
