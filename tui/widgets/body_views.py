"""How the inspector shows bodies beyond JSON (docs/tui.md): a form's fields and a multipart
body's parts as a table (a part by name, file name, type and size, never its bytes), an XML
response pretty-printed (read as `xpath` reads it: no entity, no DTD, no network)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from scenario_core.support.printable import visible, visible_block
from scenario_tui.widgets.theme_styles import VALUE

if TYPE_CHECKING:
    from scenario_core.language.nodes.steps import Step
    from scenario_core.run.events import ResponseReceived
    from scenario_tui.widgets.display import Display

MAX_SHOWN_CHARS = 20_000


def request_body_view(step: Step, body: str, display: Display) -> list[RenderableType] | None:
    """A table for a `form:` or `multipart:` body as sent (masked as any body is); None for others."""
    if getattr(step, "form", None) is not None:
        masked = display.text(body)
        rows: list[tuple[str, ...]] = [(name, value) for name, value in parse_qsl(masked, keep_blank_values=True)]
        return [_table(("field", "value"), rows, "form (application/x-www-form-urlencoded)")]
    if getattr(step, "multipart", None) is not None:
        parts: list[tuple[str, ...]] = []
        for line in display.text(body).split("\n"):
            name, _, rest = line.partition(": ")
            try:
                name = json.loads(name)
            except ValueError:
                pass
            if rest.startswith("file "):
                filename, _, detail = rest[len("file ") :].rpartition(" (")
                media, _, size = detail.rstrip(")").partition(", ")
                parts.append((str(name), f"file {filename}", media, size))
            else:
                try:
                    rest = json.loads(rest)
                except ValueError:
                    pass
                parts.append((str(name), str(rest), "", ""))
        return [_table(("part", "value", "type", "size"), parts, "multipart/form-data")]
    return None


def xml_view(response: ResponseReceived, display: Display) -> list[RenderableType] | None:
    """An XML response body, indented; None when it is not XML (or cannot be read safely)."""
    media = (response.header("Content-Type") or "").lower()
    if "xml" not in media or not response.body:
        return None
    from lxml import etree

    from scenario_core.run.response_sources import SourceFailure, xml_tree

    try:
        tree = xml_tree(response)
    except SourceFailure:
        return None
    etree.indent(tree)
    shown = etree.tostring(tree, encoding="unicode", pretty_print=True).rstrip()
    if len(shown) > MAX_SHOWN_CHARS:
        shown = shown[:MAX_SHOWN_CHARS] + "\n… (cut)"
    return [Text(display.text(visible_block(shown)), style=VALUE)]


def _table(columns: tuple[str, ...], rows: list[tuple[str, ...]], title: str) -> Table:
    table = Table(*columns, title=title, title_justify="left", show_edge=False, pad_edge=False)
    for row in rows:
        table.add_row(*(visible(cell) for cell in row))
    return table
