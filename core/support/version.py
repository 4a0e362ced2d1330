"""The installed version of scenario-tui (`--version`, the language server's greeting)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as installed


def version() -> str:
    try:
        return installed("scenario-tui")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"
