"""The part of an OpenAPI description that scenarios use: the base URL of its first server."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path


class OpenApiError(ValueError):
    pass


@lru_cache(maxsize=32)
def base_url_from(path: str) -> str | None:
    """`servers[0].url` with server variables at their defaults; None when there is no absolute one."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise OpenApiError(f"cannot read OpenAPI description '{path}': {getattr(error, 'strerror', None) or error}") from None
    try:
        if path.endswith(".json"):
            document = json.loads(text)
        else:
            import yaml  # only files that name an OpenAPI description pay for the import

            document = yaml.safe_load(text)
    except Exception as error:  # YAML and JSON errors have no common base worth naming
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise OpenApiError(f"OpenAPI description '{path}' is not valid YAML or JSON: {first}") from None
    servers = document.get("servers") if isinstance(document, dict) else None
    if not servers or not isinstance(servers, list) or not isinstance(servers[0], dict):
        return None
    url = str(servers[0].get("url", ""))
    variables = servers[0].get("variables") or {}

    def default(match: re.Match) -> str:
        spec = variables.get(match.group(1)) if isinstance(variables, dict) else None
        if not isinstance(spec, dict) or "default" not in spec:
            raise OpenApiError(f"OpenAPI server variable '{match.group(1)}' in '{path}' has no default")
        return str(spec["default"])

    url = re.sub(r"\{([^{}]+)\}", default, url)
    return url if re.match(r"https?://[^/]", url) else None
