"""The language server answers `textDocument/formatting` with fmt's layout (docs/editor.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from tests.tui.test_lsp import LanguageClient, client, folder, open_document  # noqa: F401 (fixtures)

pytestmark = pytest.mark.asyncio(loop_scope="module")

MESSY = "scenario:  s\n    include:  login\n    when:GET /a  # why\n"


async def _format(editor: LanguageClient, uri: str) -> list[types.TextEdit] | None:
    params = types.DocumentFormattingParams(
        text_document=types.TextDocumentIdentifier(uri), options=types.FormattingOptions(tab_size=2, insert_spaces=True)
    )
    return await editor.text_document_formatting_async(params)


async def test_formatting_replaces_the_document_with_the_canonical_layout(client: LanguageClient, folder: Path):  # noqa: F811
    uri = await open_document(client, folder, "messy.scenario", MESSY)
    (edit,) = await _format(client, uri)
    assert edit.new_text == "scenario: s\n  include: login\n  when: GET /a  # why\n"
    assert edit.range == types.Range(types.Position(0, 0), types.Position(3, 0))


async def test_a_formatted_or_invalid_document_gets_no_edit(client: LanguageClient, folder: Path):  # noqa: F811
    tidy = await open_document(client, folder, "tidy.scenario", "scenario: s\n  when: GET /a\n")
    assert not await _format(client, tidy)
    unended = await open_document(client, folder, "unended.scenario", "scenario: s\n  when: GET /a")
    assert list(await _format(client, unended)) == [
        types.TextEdit(
            range=types.Range(types.Position(0, 0), types.Position(1, 14)), new_text="scenario: s\n  when: GET /a\n"
        )
    ]
    invalid = await open_document(client, folder, "invalid.scenario", "scenario: s\n  when: FETCH /a\n")
    assert not await _format(client, invalid)
