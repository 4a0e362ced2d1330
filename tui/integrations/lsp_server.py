"""`scenario-tui lsp`: a language server over stdio (pygls). Thin by design: every answer comes
from scenario_core.editor.service; this module converts positions (the client's units, UTF-16
unless negotiated otherwise, to code points and back) and result types. Never imports textual."""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, BinaryIO, Mapping, cast

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import PositionCodec, TextDocument

from scenario_core.editor import service
from scenario_core.parameters.resolution import RunOverrides
from scenario_tui.integrations.lsp_framing import FramedInput, LockedOutput
from scenario_tui.integrations.lsp_protocol import ScenarioProtocol

if TYPE_CHECKING:
    from scenario_core.language.nodes.blocks import FragmentNode

SUFFIXES = (".scenario", ".fragment")
DEBOUNCE_SECONDS = 0.3  # diagnostics wait for a pause in typing, not every keystroke

_SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning}
_COMPLETION_KIND = {
    "keyword": types.CompletionItemKind.Keyword,
    "parameter": types.CompletionItemKind.Property,
    "variable": types.CompletionItemKind.Variable,
    "fragment": types.CompletionItemKind.Module,
    "method": types.CompletionItemKind.EnumMember,
}
_SYMBOL_KIND = {
    "feature": types.SymbolKind.Namespace,
    "scenario": types.SymbolKind.Function,
    "outline": types.SymbolKind.Function,
    "fragment": types.SymbolKind.Module,
    "background": types.SymbolKind.Constructor,
}


class ScenarioLanguageServer(LanguageServer):
    """Keeps, per URI, the last Document core made (it holds the last tree that parsed) and the
    pending debounced check."""

    def __init__(self) -> None:
        from scenario_core.support.version import version

        super().__init__(
            "scenario-tui",
            version(),
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=ScenarioProtocol,
        )
        self.documents: dict[str, service.Document] = {}
        self.pending: dict[str, asyncio.Task[None]] = {}
        # `scenario-tui lsp --param/--base-url/--openapi/--var`: as `run` would be given them
        self.overrides: RunOverrides | None = None
        self.run_variables: dict[str, object] = {}

    def path_of(self, uri: str) -> str:
        return to_fs_path(uri) or uri

    def ours(self, uri: str) -> bool:
        """Only .scenario and .fragment files are read: an editor may send every plain-text file
        (VS Code's generic clients attach by language id, and `plaintext` is the usual one)."""
        return self.path_of(uri).endswith(SUFFIXES)

    def model(self, uri: str) -> tuple[service.Document, TextDocument]:
        """The Document of the editor's current text (made now if the debounced check has not run)."""
        text_document = self.workspace.get_text_document(uri)
        known = self.documents.get(uri)
        if known is None or known.text != service.normalized_text(text_document.source):
            try:
                made = service.read_document(
                    text_document.source, self.path_of(uri), known, self.overrides, self.run_variables
                )
            except Exception as error:  # a bug in core must not take the editor's server down
                made = service.failed_document(text_document.source, self.path_of(uri), known, error)
            known = self.documents[uri] = made
        return known, text_document

    def publish(self, uri: str) -> None:
        if not self.ours(uri):
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
            return
        document, text_document = self.model(uri)
        lines = document.lines
        found = [
            types.Diagnostic(
                range=_range(text_document, lines, p.span),
                message=p.message,
                severity=_SEVERITY.get(p.severity, types.DiagnosticSeverity.Error),
                code=p.code or None,
                source="scenario-tui",
            )
            for p in service.diagnostics(document)
        ]
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=found, version=text_document.version)
        )

    def publish_later(self, uri: str) -> None:
        previous = self.pending.pop(uri, None)
        if previous is not None:
            previous.cancel()

        async def wait_then_publish() -> None:
            await asyncio.sleep(DEBOUNCE_SECONDS)
            self.pending.pop(uri, None)
            self.publish(uri)

        self.pending[uri] = asyncio.get_running_loop().create_task(wait_then_publish())


def _position(text_document: TextDocument, position: types.Position) -> service.Position:
    found = text_document.position_codec.position_from_client_units(
        text_document.lines, types.Position(position.line, position.character)
    )
    return service.Position(found.line, found.character)


def _client_position(codec: PositionCodec, lines: list[str], position: service.Position) -> types.Position:
    if position.line >= len(lines):
        return types.Position(position.line, 0)
    return codec.position_to_client_units(lines, types.Position(position.line, position.character))


def _range(text_document: TextDocument, lines: list[str], span: service.Span) -> types.Range:
    codec = text_document.position_codec
    return types.Range(_client_position(codec, lines, span.start), _client_position(codec, lines, span.end))


def _file_lines(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read().split("\n")
    except (OSError, UnicodeDecodeError):
        return []


server = ScenarioLanguageServer()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: ScenarioLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.documents.pop(params.text_document.uri, None)
    ls.publish(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: ScenarioLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.publish_later(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: ScenarioLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
    ls.documents.pop(params.text_document.uri, None)  # .fragment files beside it may have changed
    ls.publish_later(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: ScenarioLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    pending = ls.pending.pop(uri, None)
    if pending is not None:
        pending.cancel()
    ls.documents.pop(uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: ScenarioLanguageServer, params: types.HoverParams) -> types.Hover | None:
    if not ls.ours(params.text_document.uri):
        return None
    document, text_document = ls.model(params.text_document.uri)
    found = service.hover(document, _position(text_document, params.position))
    if found is None:
        return None
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=found.markdown),
        range=_range(text_document, document.lines, found.span),
    )


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
def definition(ls: ScenarioLanguageServer, params: types.DefinitionParams) -> list[types.Location]:
    if not ls.ours(params.text_document.uri):
        return []
    document, text_document = ls.model(params.text_document.uri)
    targets = service.definition(document, _position(text_document, params.position))
    result = []
    for target in targets:
        same = os.path.abspath(target.path) == os.path.abspath(document.path)
        lines = document.lines if same else _file_lines(target.path)
        uri = params.text_document.uri if same else from_fs_path(target.path)
        result.append(types.Location(uri=uri, range=_range(text_document, lines, target.span)))
    return result


@server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=["{", ":", " ", "."]))
def completion(ls: ScenarioLanguageServer, params: types.CompletionParams) -> types.CompletionList:
    if not ls.ours(params.text_document.uri):
        return types.CompletionList(is_incomplete=False, items=[])
    document, text_document = ls.model(params.text_document.uri)
    items = [
        types.CompletionItem(
            label=item.label,
            kind=_COMPLETION_KIND.get(item.kind),
            detail=item.detail or None,
            documentation=types.MarkupContent(kind=types.MarkupKind.Markdown, value=item.documentation)
            if item.documentation
            else None,
            insert_text=item.insert_text,
        )
        for item in service.completions(document, _position(text_document, params.position))
    ]
    return types.CompletionList(is_incomplete=False, items=items)


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbol(ls: ScenarioLanguageServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
    if not ls.ours(params.text_document.uri):
        return []
    document, text_document = ls.model(params.text_document.uri)

    def convert(symbol: service.Symbol) -> types.DocumentSymbol:
        return types.DocumentSymbol(
            name=symbol.name or "(unnamed)",
            kind=_SYMBOL_KIND.get(symbol.kind, types.SymbolKind.Object),
            detail=symbol.kind,
            range=_range(text_document, document.lines, symbol.span),
            selection_range=_range(text_document, document.lines, symbol.selection),
            children=[convert(child) for child in symbol.children],
        )

    return [convert(symbol) for symbol in service.symbols(document)]


@server.feature(types.TEXT_DOCUMENT_FORMATTING)
def formatting(ls: ScenarioLanguageServer, params: types.DocumentFormattingParams) -> list[types.TextEdit] | None:
    """`fmt`'s layout of the editor's text, as one edit over the whole document; none when the
    text does not parse (a file is formatted once it reads) or is already formatted."""
    if not ls.ours(params.text_document.uri):
        return None
    text_document = ls.workspace.get_text_document(params.text_document.uri)
    source = text_document.source
    path = ls.path_of(params.text_document.uri)
    bom = "\ufeff" if source.startswith("\ufeff") else ""
    try:
        from scenario_core.editor.formatting import format_text

        fragments: tuple[FragmentNode, ...] = ()
        if not path.endswith(".fragment"):
            from scenario_core.language.fragment_files import fragment_files, load_fragments
            from scenario_core.language.parser import load_file

            fragments = load_fragments(fragment_files(path, ()), load_file)
        formatted = format_text(source[len(bom) :], path, fragments).text
    except Exception:  # invalid text, unreadable fragments: nothing to format; the diagnostics say why
        return None
    if formatted == source[len(bom) :]:
        return []
    lines = list(text_document.lines)
    if not lines or lines[-1].endswith(("\n", "\r")):  # after a last line end: the next line's start
        end = types.Position(len(lines), 0)
    else:
        last = service.Position(len(lines) - 1, len(lines[-1]))
        end = _client_position(text_document.position_codec, lines, last)
    return [types.TextEdit(range=types.Range(types.Position(0, 0), end), new_text=bom + formatted)]


def serve(overrides: RunOverrides | None = None, run_variables: Mapping[str, object] | None = None) -> int:
    """Serve one client over standard input and output until it exits; `overrides` and
    `run_variables` apply to every document as to a run. The protocol gets its
    own handle on standard output (pygls closes it at exit); anything else printed meanwhile
    goes to standard error, where it cannot corrupt a message. pygls reads only the frames
    FramedInput lets through (lsp_framing.py: malformed input is answered or skipped, never fatal)."""
    import sys

    protocol_out = LockedOutput(os.fdopen(os.dup(sys.stdout.fileno()), "wb"))
    server.overrides, server.run_variables = overrides, dict(run_variables or {})
    saved, sys.stdout = sys.stdout, sys.stderr
    try:
        # pygls only calls readline/read and write/flush on them: the two stand in for its streams
        server.start_io(cast(BinaryIO, FramedInput(sys.stdin.buffer, protocol_out)), cast(BinaryIO, protocol_out))
    finally:
        sys.stdout = saved
    return 0
