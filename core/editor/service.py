"""What an editor asks about a `.scenario` file, answered from core alone: diagnostics, hover,
go to definition, completion and the outline. Pure functions over text (no LSP, no I/O besides
the `.fragment` files a scenario sees), returning plain dataclasses; tui/lsp_server.py only
converts them to the protocol's types.

Positions here are 0-based lines and 0-based characters counted in code points, as Python
indexes a line; the adapter converts them to the client's units (UTF-16 by default).
A document whose text does not parse keeps answering from the last text that did (`stale`).

This module is the service's interface; the work is in language_document.py (documents, results,
diagnostics, where things are), language_hover.py (hover, go to definition) and
language_completion.py (completion, the outline)."""

from __future__ import annotations

from scenario_core.editor.completion import completions, symbols, visible_names
from scenario_core.editor.document import (
    Completion,
    Document,
    HoverText,
    Position,
    Problem,
    Span,
    Symbol,
    Target,
    diagnostics,
    failed_document,
    normalized_text,
    read_document,
    span_of,
)
from scenario_core.editor.hover import definition, fragment_markdown, hover, parameters_markdown, variable_markdown
from scenario_core.language.step_syntax import METHODS

__all__ = [
    "Completion",
    "Document",
    "HoverText",
    "Position",
    "Problem",
    "Span",
    "Symbol",
    "Target",
    "METHODS",
    "completions",
    "definition",
    "diagnostics",
    "failed_document",
    "fragment_markdown",
    "hover",
    "normalized_text",
    "parameters_markdown",
    "read_document",
    "span_of",
    "symbols",
    "variable_markdown",
    "visible_names",
]
