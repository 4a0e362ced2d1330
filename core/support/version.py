"""The installed version of scenario-tui (`--version`, the language server's greeting)."""

from __future__ import annotations


def version() -> str:
    # imported here: importlib.metadata (and the email package it loads) costs every command's
    # start-up ~15 ms, and only --version and the language server ask
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("scenario-tui")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"
