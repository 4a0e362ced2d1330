"""`scenario-tui import curl|har|openapi ...` (written next)."""

from __future__ import annotations

import argparse

from scenario_core.language.errors import UsageError


def import_(args: argparse.Namespace) -> int:
    raise UsageError(f"import {args.kind}: not available yet")
