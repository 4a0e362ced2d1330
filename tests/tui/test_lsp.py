"""`scenario-tui lsp` as an editor meets it: a real LSP client (pygls's) starts the command as a
subprocess and talks JSON-RPC over its stdin/stdout. Positions are the protocol's: 0-based, in
UTF-16 code units.

Not pytest-lsp: installed, its pytest plugin breaks every test item that is not a Python function
(its `pytest_runtest_call` wrapper returns without yielding when an item has no funcargs), so
`pytest x.scenario` through our own plugin fails. pygls's client is what pytest-lsp wraps."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.lsp.client import LanguageClient as PyglsClient

# One server for the module: the tests share its event loop (each opens its own document).
module_loop = pytest.mark.asyncio(loop_scope="module")

_SCRIPT = Path(sys.executable).with_name("scenario-tui")
COMMAND = [str(_SCRIPT) if _SCRIPT.exists() else shutil.which("scenario-tui") or "scenario-tui", "lsp"]

PETS = textwrap.dedent("""\
    parameters:
      shareVariablesAcrossScenarios: true
      baseUrl: http://127.0.0.1:8000

    fragment: check pet
      then: status 200
      then: $.name == "Rex"

    feature: Pets
      parameters:
        timeout: 10
      scenario: create
        include: login
        when: POST /pets
          headers:
            Authorization: Bearer {{token}}
          body: {"name": "Rex"}
        then: status 201
        extract: petId from $.id
      scenario: read
        when: GET /pets/{{petId}}
        include: check pet
    """)

LOGIN = "fragment: login\n  when: POST /login\n  then: status 200\n  extract: token from $.token\n"


class LanguageClient(PyglsClient):
    """An editor: keeps the diagnostics last published per URI and queues every publication."""

    def __init__(self) -> None:
        super().__init__("test-editor", "1")
        self.diagnostics: dict[str, list[types.Diagnostic]] = {}
        self.publications: asyncio.Queue[types.PublishDiagnosticsParams] = asyncio.Queue()

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = list(params.diagnostics)
            self.publications.put_nowait(params)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client():
    editor = LanguageClient()
    await editor.start_io(*COMMAND)
    await editor.initialize_async(
        types.InitializeParams(capabilities=types.ClientCapabilities(), process_id=os.getpid())
    )
    editor.initialized(types.InitializedParams())
    yield editor
    await editor.shutdown_async(None)
    editor.exit(None)
    await asyncio.wait_for(editor.stop(), 20)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A project folder: fragments/auth.fragment holds `login`."""
    root = tmp_path_factory.mktemp("project")
    (root / "fragments").mkdir()
    (root / "fragments" / "auth.fragment").write_text(LOGIN)
    return root


async def published(client: LanguageClient, uri: str, version: int | None = None) -> types.PublishDiagnosticsParams:
    """The next diagnostics published for `uri` (and `version`), skipping other documents'."""
    while True:
        params = await asyncio.wait_for(client.publications.get(), 20)
        if params.uri == uri and (version is None or params.version == version):
            return params


async def open_document(client: LanguageClient, folder: Path, name: str, text: str = PETS) -> str:
    path = folder / name
    path.write_text(text)
    uri = path.as_uri()
    waiting = published(client, uri)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="scenario", version=1, text=text))
    )
    await waiting
    return uri


def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def at(uri: str, line: int, character: int) -> dict:
    return {"text_document": types.TextDocumentIdentifier(uri), "position": types.Position(line, character)}


def rng(line: int, start: int, end: int, end_line: int | None = None) -> types.Range:
    return types.Range(types.Position(line, start), types.Position(line if end_line is None else end_line, end))


# ---------------------------------------------------------------- diagnostics


@module_loop
async def test_diagnostics_on_open_locate_each_error(client: LanguageClient, folder: Path):
    text = PETS.replace("timeout: 10", "timeout: abc")
    uri = await open_document(client, folder, "bad-timeout.scenario", text)
    (diagnostic,) = client.diagnostics[uri]
    assert diagnostic.range == rng(10, 13, 16)
    assert diagnostic.message == 'timeout must be a positive integer number of seconds, got "abc"'
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    assert diagnostic.source == "scenario-tui"


@module_loop
async def test_diagnostics_show_every_error_of_the_file(client: LanguageClient, folder: Path):
    text = PETS.replace("    then: status 201", "    foo bar").replace("include: check pet", "include: missing")
    uri = await open_document(client, folder, "errors.scenario", text)
    assert [(d.range, d.message.split(";")[0]) for d in client.diagnostics[uri]] == [
        (rng(17, 4, 11), "'foo bar' is not allowed here"),
        (rng(21, 4, 20), "include of unknown fragment 'missing'"),
    ]


@module_loop
async def test_diagnostics_include_the_scope_analysis_warnings(client: LanguageClient, folder: Path):
    uri = await open_document(client, folder, "warnings.scenario", PETS.replace("{{petId}}", "{{petID}}"))
    assert [(d.range, d.severity, d.code, d.message) for d in client.diagnostics[uri]] == [
        (
            rng(18, 4, 28),
            types.DiagnosticSeverity.Warning,
            "unused-variable",
            "'petId' is extracted but never used in this file",
        ),
        (
            rng(20, 22, 27),
            types.DiagnosticSeverity.Warning,
            "never-visible",
            "'petID' is never visible here: did you mean 'petId'? no step in this file extracts 'petID'; pass it with --var petID=...",
        ),
    ]


@module_loop
async def test_diagnostics_follow_changes_after_a_pause_in_typing(client: LanguageClient, folder: Path):
    uri = await open_document(client, folder, "typing.scenario")
    assert list(client.diagnostics[uri]) == []
    started = time.monotonic()
    waiting = published(client, uri)
    for version, typed in enumerate(("  foo", "  foo b", "  foo bar"), start=2):  # three keystrokes, no pause
        change(client, uri, version, PETS.replace("    then: status 201", "  " + typed))
    params = await waiting
    assert params.version == 4  # one check, of the last text: the first two were never published
    assert time.monotonic() - started >= 0.3
    (diagnostic,) = params.diagnostics
    assert diagnostic.range == rng(17, 4, 11)
    assert diagnostic.message.startswith("'foo bar' is not allowed here")


@module_loop
async def test_positions_are_utf16_code_units(client: LanguageClient, folder: Path):
    # 🐶 is one code point but two UTF-16 units: everything after it on the line shifts by one
    text = PETS.replace('      body: {"name": "Rex"}', '      body: {"name": "🐶 {{petId}}", "x": 1,}')
    uri = await open_document(client, folder, "emoji.scenario", text)
    (diagnostic,) = client.diagnostics[uri]
    assert diagnostic.range.start.line == 16
    change(client, uri, 2, PETS.replace('      body: {"name": "Rex"}', '      body: {"name": "🐶 {{petId}}"}'))
    hover = await client.text_document_hover_async(types.HoverParams(**at(uri, 16, 27)))
    assert hover.range == rng(16, 25, 34)  # `{{petId}}` starts at code point 24, UTF-16 unit 25


# ---------------------------------------------------------------- hover


@module_loop
async def test_hover_on_a_scenario_shows_its_parameters_with_provenance(client: LanguageClient, folder: Path):
    uri = await open_document(client, folder, "hover-scenario.scenario")
    hover = await client.text_document_hover_async(types.HoverParams(**at(uri, 11, 5)))
    assert hover.range == rng(11, 0, 18)
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert hover.contents.value.splitlines() == [
        "**scenario 'create'** — shares file-wide",
        "",
        "| parameter | value | from |",
        "|---|---|---|",
        "| `shareVariablesAcrossScenarios` | `true` | file line 2 · default false |",
        "| `timeout` | `10` | feature 'Pets' line 11 · default 30 |",
        "| `baseUrl` | `http://127.0.0.1:8000` | file line 3 · default (none) |",
        "",
        "22 other parameters at their default",
    ]


@module_loop
async def test_hover_on_a_variable_and_on_an_include(client: LanguageClient, folder: Path):
    uri = await open_document(client, folder, "hover-variable.scenario")
    token = await client.text_document_hover_async(types.HoverParams(**at(uri, 15, 33)))
    assert token.range == rng(15, 30, 39)
    assert token.contents.value.endswith(
        "Extracted by:\n- `extract: token from $.token` (fragment 'login', fragments/auth.fragment line 4)"
    )
    include = await client.text_document_hover_async(types.HoverParams(**at(uri, 21, 15)))
    assert include.range == rng(21, 13, 22)
    assert (
        include.contents.value
        == "**fragment 'check pet'** (line 5)\n\n```\nthen: status 200\nthen: $.name == \"Rex\"\n```"
    )
    assert await client.text_document_hover_async(types.HoverParams(**at(uri, 17, 8))) is None


# ---------------------------------------------------------------- definition


@module_loop
async def test_definition_of_a_variable_and_of_includes(client: LanguageClient, folder: Path):
    uri = await open_document(client, folder, "definition.scenario")
    variable = await client.text_document_definition_async(types.DefinitionParams(**at(uri, 20, 22)))
    assert variable == [types.Location(uri=uri, range=rng(18, 4, 28))]
    own = await client.text_document_definition_async(types.DefinitionParams(**at(uri, 21, 16)))
    assert own == [types.Location(uri=uri, range=rng(4, 0, 19))]
    other = await client.text_document_definition_async(types.DefinitionParams(**at(uri, 12, 15)))
    assert other == [types.Location(uri=(folder / "fragments" / "auth.fragment").as_uri(), range=rng(0, 0, 15))]


# ---------------------------------------------------------------- completion


async def complete(client: LanguageClient, uri: str, line: int, character: int) -> list[types.CompletionItem]:
    found = await client.text_document_completion_async(types.CompletionParams(**at(uri, line, character)))
    return found.items


@module_loop
async def test_completion_of_keywords_parameters_methods_fragments_and_variables(client: LanguageClient, folder: Path):
    uri = await open_document(client, folder, "completion.scenario")
    keywords = await complete(client, uri, 13, 4)
    assert [i.label for i in keywords] == [
        "parameters:",
        "when:",
        "then:",
        "extract:",
        "include:",
        "given",
        "when",
        "then",
        "and",
        "but",
    ]
    assert keywords[1].kind == types.CompletionItemKind.Keyword
    timeout = next(i for i in await complete(client, uri, 10, 4) if i.label == "timeout")
    assert (timeout.kind, timeout.detail, timeout.insert_text) == (
        types.CompletionItemKind.Property,
        "integer seconds, default 30",
        "timeout: ",
    )
    assert [i.label for i in await complete(client, uri, 13, 10)] == [
        "GET",
        "POST",
        "PUT",
        "PATCH",
        "DELETE",
        "HEAD",
        "OPTIONS",
    ]
    fragments = await complete(client, uri, 21, 13)
    assert [(i.label, i.kind) for i in fragments] == [
        ("check pet", types.CompletionItemKind.Module),
        ("login", types.CompletionItemKind.Module),
    ]
    variables = await complete(client, uri, 20, 22)
    assert [(i.label, i.detail) for i in variables] == [
        ("token", "sometimes: scenario 'create', fragment 'login' line 4, if it got that far (shares file-wide)"),
        ("petId", "sometimes: scenario 'create', line 19, if it got that far (shares file-wide)"),
    ]


# ---------------------------------------------------------------- symbols, and a file that stops parsing


@module_loop
async def test_document_symbols_outline_the_file(client: LanguageClient, folder: Path):
    uri = await open_document(client, folder, "symbols.scenario")
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri))
    )
    assert [(s.name, s.kind, s.range, s.selection_range) for s in symbols] == [
        ("check pet", types.SymbolKind.Module, rng(4, 0, 23, 6), rng(4, 0, 19)),
        ("Pets", types.SymbolKind.Namespace, rng(8, 0, 22, 21), rng(8, 0, 13)),
    ]
    assert [(c.name, c.kind, c.range) for c in symbols[1].children] == [
        ("create", types.SymbolKind.Function, rng(11, 0, 28, 18)),
        ("read", types.SymbolKind.Function, rng(19, 0, 22, 21)),
    ]


@module_loop
async def test_a_document_with_errors_answers_from_the_last_text_that_parsed(client: LanguageClient, folder: Path):
    uri = await open_document(client, folder, "stale.scenario")
    waiting = published(client, uri, 2)
    change(client, uri, 2, PETS.replace("    then: status 201", "    foo bar"))
    params = await waiting
    assert [d.range for d in params.diagnostics] == [rng(17, 4, 11)]
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri))
    )
    assert [s.name for s in symbols] == ["check pet", "Pets"]
    hover = await client.text_document_hover_async(types.HoverParams(**at(uri, 20, 22)))
    assert hover.contents.value.endswith("- `extract: petId from $.id` (scenario 'create', line 19)")
    assert [i.label for i in await complete(client, uri, 21, 13)] == ["check pet", "login"]


@module_loop
async def test_closing_a_document_clears_its_diagnostics(client: LanguageClient, folder: Path):
    uri = await open_document(client, folder, "closing.scenario", PETS.replace("timeout: 10", "timeout: abc"))
    assert len(client.diagnostics[uri]) == 1
    waiting = published(client, uri)
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    assert list((await waiting).diagnostics) == []


@module_loop
async def test_other_files_are_left_alone(client: LanguageClient, folder: Path):
    uri = await open_document(client, folder, "notes.txt", "foo bar\n  {{x}}\n")
    assert list(client.diagnostics[uri]) == []
    assert await client.text_document_hover_async(types.HoverParams(**at(uri, 1, 4))) is None


# ---------------------------------------------------------------- the command


def test_the_server_is_headless():
    code = (
        "import sys, scenario_tui.integrations.lsp_server\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_a_bad_option_is_one_line_and_no_server():
    result = subprocess.run(
        [*COMMAND, "--param", "timout=3"], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL
    )
    assert result.returncode == 2
    assert result.stderr.startswith("scenario-tui: error: --param timout=3: unknown parameter 'timout'")
    assert result.stderr.count("\n") == 1 and result.stdout == ""
