"""The `scenario-tui` console script (cli.md). Headless commands (`check`, `params`, `run`,
`demo-server`) never import textual: the TUI is imported only when it is opened.

Nothing prints a traceback: usage errors, unreadable files, a busy port, a closed pipe and an
early Ctrl+C all end in at most one line on standard error."""

from __future__ import annotations

import os
import signal
import sys


def _interrupted_while_starting(signum, frame) -> None:
    # Ctrl+C while this module is still importing, before main() can catch KeyboardInterrupt:
    # nothing has started, so there is nothing to wind down (nor buffered output to keep).
    os.write(2, b"scenario-tui: interrupted\n")
    os._exit(130)


# Installed only for the length of this module's imports (restored at its end), so a process
# that merely imports it (a test run) keeps its own Ctrl+C; a shell that started us with SIGINT
# ignored (`cmd &`) keeps it ignored.
_STARTING = signal.getsignal(signal.SIGINT) is signal.default_int_handler
if _STARTING:
    try:
        signal.signal(signal.SIGINT, _interrupted_while_starting)
    except ValueError:  # not the main thread
        _STARTING = False

import argparse  # noqa: E402
import json  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, NoReturn, Sequence  # noqa: E402

from scenario_core.custom_steps.plugins import plugin_registry  # noqa: E402
from scenario_core.language.errors import InvalidFileError, ScenarioError, UsageError  # noqa: E402
from scenario_core.parameters.diagnostics import load_valid  # noqa: E402
from scenario_core.parameters.run_inputs import command_line_overrides, run_variables_from  # noqa: E402
from scenario_core.support.printable import visible  # noqa: E402
from scenario_core.support.version import version  # noqa: E402

COMMANDS = ("run", "check", "params", "demo", "demo-server", "lsp")
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "pets.scenario"


class _Parser(argparse.ArgumentParser):
    """Usage errors are one line, like every other error."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


class _Version(argparse.Action):
    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)

    def __call__(self, parser, namespace, values, option_string=None) -> NoReturn:
        print(f"scenario-tui {version()}")
        parser.exit()


def _version_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-V", "--version", action=_Version, help="print the version and exit")


def _port(text: str) -> int:
    """0-65535, read without int() on a 5,000-digit string (Python refuses those with a traceback)."""
    digits = text.strip()
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 5 or int(digits) > 65535:
        raise argparse.ArgumentTypeError(f"expected a port number from 0 to 65535 (0: a free one), got {_clip(text)}")
    return int(digits)


def _clip(text: str, width: int = 60) -> str:
    text = visible(text)
    return text if len(text) <= width else text[: width - 1] + "…"


def _required(args: argparse.Namespace, name: str) -> None:
    """Positionals are declared optional so that argparse names an unknown option (`--bogus`)
    first instead of saying FILE is missing; this restores the requirement."""
    if not getattr(args, name):
        raise UsageError("the following arguments are required: FILE")


def _shared_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base-url", metavar="URL", help="override baseUrl for the whole run")
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a parameter for the whole run (repeatable)",
    )
    parser.add_argument(
        "--openapi",
        metavar="[NAME=]PATH",
        action="append",
        default=[],
        help="an OpenAPI description: PATH is the 'default' one (its first server gives "
        "the baseUrl), NAME=PATH names another (call it with 'using NAME'); repeatable",
    )


def _plugins_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--plugins",
        action="append",
        default=[],
        metavar="MODULE",
        help="a module name or .py file of custom steps and assertions (repeatable); "
        "installed entry points of group scenario_tui.steps load too",
    )
    parser.add_argument(
        "--resource-root",
        action="append",
        default=[],
        metavar="DIR",
        help="where bodyFile: names (and BerryCrush's classpath:) are looked up first, before the "
        "scenario file's folder and the folders above it (repeatable)",
    )
    parser.add_argument(
        "--fragments",
        action="append",
        default=[],
        metavar="PATH|GLOB",
        help="more .fragment files (a file, a folder or a glob), after the file's own fragments "
        "and those of the nearest fragments/ folder (repeatable)",
    )


def _var_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--var",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a run variable visible to every scenario; VALUE is JSON when it parses as JSON (repeatable)",
    )


def _tags_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tags",
        action="append",
        default=[],
        metavar="EXPR",
        help="run only scenarios whose tags (their own or their feature's) match EXPR: "
        "'smoke and not slow', '(a or b) and not wip'; 'smoke,pets' means any of them; "
        "repeated, any of the expressions",
    )


def _jobs(text: str) -> int:
    if text.strip().lower() == "auto":  # I/O-bound suites: files mostly wait on the network
        return min(32, (os.cpu_count() or 1) * 4)
    digits = text.strip()
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 4 or int(digits) < 1:
        raise argparse.ArgumentTypeError(
            f"expected a number of files to run at once (1 or more) or auto, got {_clip(text)}"
        )
    return int(digits)


def _run_scale_options(run: argparse.ArgumentParser) -> None:
    run.add_argument(
        "--fail-fast", action="store_true", help="stop after the first failed scenario (the rest are reported skipped)"
    )
    run.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="print every request and response as it happens (masked, bodies cut)",
    )
    run.add_argument("--very-verbose", action="store_true", help="--verbose, with connection details")
    run.add_argument(
        "-j",
        "--jobs",
        type=_jobs,
        default=1,
        metavar="N|auto",
        help="run N files at once in one process (auto: CPUs x 4, at most 32); default 1",
    )
    run.add_argument(
        "--variables-file",
        action="append",
        default=[],
        metavar="PATH",
        help="run variables from a JSON object or NAME=VALUE lines (repeatable; --var wins)",
    )


def _build_parser(completion: bool = False) -> _Parser:
    parser = _Parser(
        prog="scenario-tui",
        description="Write, run and step-debug API test scenarios.",
        usage="%(prog)s FILE|DIR... [--base-url URL] [--tags EXPR] [options]  (the step debugger)\n"
        "       %(prog)s {run,check,params,demo,demo-server} ...",
        epilog="scenario-tui FILE|DIR... opens the step debugger on the files (a folder: every "
        ".scenario file under it, sorted), one root each in the tree; "
        "`scenario-tui FILE --help` lists its options.",
    )
    _version_option(parser)
    if completion:  # shtab costs ~10 ms to import: only for --help and --print-completion
        _completion_option(parser)
    commands = parser.add_subparsers(dest="command", parser_class=_Parser)

    run = commands.add_parser("run", help="run scenario files headless, for CI", usage="%(prog)s FILE... [options]")
    run.add_argument(
        "files",
        nargs="*",
        metavar="FILE",
        help="a .scenario file, a folder (every *.scenario under it, sorted) or a glob ('tests/**/*.scenario')",
    )
    _shared_options(run)
    _plugins_option(run)
    _var_option(run)
    run.add_argument("--report-json", metavar="PATH", help="write a JSON report")
    run.add_argument("--report-junit", metavar="PATH", help="write a JUnit XML report")
    run.add_argument("--report-html", metavar="PATH", help="write a self-contained HTML report with the scope timeline")
    _tags_option(run)
    _run_scale_options(run)
    run.add_argument("--show-secrets", action="store_true", help="do not mask tokens, passwords and auth headers")

    check = commands.add_parser(
        "check",
        help="parse and validate only; warn about what static scope analysis finds",
        usage="%(prog)s FILE... [options]",
    )
    check.add_argument("files", nargs="*", metavar="FILE")
    _plugins_option(check)
    _check_options(check)

    params = commands.add_parser(
        "params",
        help="print every node's effective parameters with provenance",
        usage="%(prog)s FILE [--json] [options]",
    )
    params.add_argument("file", nargs="?", metavar="FILE")
    params.add_argument("--json", action="store_true", help="machine-readable output")
    _shared_options(params)
    _plugins_option(params)

    demo = commands.add_parser("demo", help="start the demo API and open the TUI on the bundled example")
    demo.add_argument(
        "file", nargs="?", metavar="FILE", help="a scenario file to open instead (e.g. examples/openapi.scenario)"
    )
    demo.add_argument("--port", type=_port, default=0, help="port for the demo API (default: a free one)")

    server = commands.add_parser("demo-server", help="serve the bundled demo API")
    server.add_argument("--host", default="127.0.0.1")
    server.add_argument("--port", type=_port, default=8000)
    server.add_argument("--verbose", action="store_true", help="log every request")

    lsp = commands.add_parser("lsp", help="serve the language server protocol over stdio (for editors)")
    _shared_options(lsp)
    _var_option(lsp)
    return parser


def _check_options(check: argparse.ArgumentParser) -> None:
    _shared_options(check)  # the baseUrl and sharing a run would have decide what is visible
    _var_option(check)
    check.add_argument(
        "--variables-file",
        action="append",
        default=[],
        metavar="PATH",
        help="run variables from a JSON object or NAME=VALUE lines: their names count as visible",
    )
    check.add_argument("--strict", action="store_true", help="treat warnings as errors (exit 2)")
    check.add_argument(
        "--format",
        choices=("text", "json", "github"),
        default="text",
        help="text (default); json: one list of diagnostics on stdout; github: GitHub Actions annotations",
    )


def _build_tui_parser() -> _Parser:
    parser = _Parser(
        prog="scenario-tui",
        description="Open the files in the step debugger: a folder opens every "
        ".scenario file under it (recursively, sorted), one root each in the tree, run in order.",
        usage="%(prog)s FILE|DIR... [options]",
    )
    _version_option(parser)
    parser.add_argument(
        "files",
        nargs="*",
        metavar="FILE|DIR",
        help="a .scenario file, a folder (every *.scenario under it, sorted) or a glob",
    )
    _shared_options(parser)
    _plugins_option(parser)
    _var_option(parser)
    _tags_option(parser)
    return parser


def _completion_option(parser: argparse.ArgumentParser) -> None:
    try:
        import shtab
    except ImportError:  # an install without it: everything else still works
        return
    shtab.add_argument_to(parser, ["--print-completion"], help="print a bash, zsh or fish completion script")


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except KeyboardInterrupt:
        return _interrupted()


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and (argv[0] in COMMANDS or argv[0] in ("-h", "--help", "-V", "--version", "--print-completion")):
            args = _build_parser(argv[0] in ("-h", "--help", "--print-completion")).parse_args(argv)
            if args.command is None:
                raise UsageError("expected FILE or a command: " + ", ".join(COMMANDS) + " (see --help)")
            status = _COMMANDS[args.command](args)
        elif not argv:
            raise UsageError("expected FILE or a command: " + ", ".join(COMMANDS) + " (see --help)")
        else:
            args = _build_tui_parser().parse_args(argv)
            _required(args, "files")
            status = open_tui(args)
        sys.stdout.flush()  # here, not at exit: a closed pipe must be noticed while we can handle it
        return status
    except UsageError as error:
        _error(str(error))
        return 2
    except InvalidFileError as error:
        print("\n".join(visible(str(d)) for d in error.diagnostics), file=sys.stderr)
        return 2
    except ScenarioError as error:
        _error(str(error))
        return 2
    except BrokenPipeError:  # `params --json | head -1`: the reader has gone; end quietly, like cat
        from scenario_tui.cli.run_command import SIGPIPE, silence_stdout

        silence_stdout()
        return 128 + SIGPIPE
    except KeyboardInterrupt:
        return _interrupted()
    except Exception as error:  # a bug must still be one line, not a traceback
        _error(f"internal error: {type(error).__name__}: {' '.join(str(error).split())}")
        return 1


def _error(message: str) -> None:
    """One line, whatever the message quotes (arguments, file text): escapes are shown, not obeyed."""
    print(f"scenario-tui: error: {_clip(message, 400)}", file=sys.stderr)


def _interrupted() -> int:
    try:
        print("scenario-tui: interrupted", file=sys.stderr)
    except (OSError, ValueError):
        pass
    return 130


# ---------------------------------------------------------------- helpers shared by commands


def overrides_from(args: argparse.Namespace):
    return command_line_overrides(args.param, args.base_url, args.openapi)


# ---------------------------------------------------------------- commands


def check(args: argparse.Namespace) -> int:
    """Errors, then the warnings of static scope analysis, per file in the order given; exit 2
    when any file has an error (a warning too, with --strict), else 0."""
    from scenario_core.analysis.scope_analysis import analyze
    from scenario_core.custom_steps.plugins import PluginError
    from scenario_core.language.errors import ERROR
    from scenario_core.parameters.run_inputs import read_variables_file

    _required(args, "files")
    if args.plugins:
        plugin_registry(args.plugins)  # a broken plugin: one usage error, not one per file
    overrides = overrides_from(args)
    names = set(run_variables_from(args.var))
    for path in args.variables_file:
        names.update(read_variables_file(path))
    status = 0
    found: list = []  # every diagnostic, for --format json
    for path in args.files:  # one file at a time: every valid one still gets its "ok" line
        try:
            (node,) = load_valid([path], overrides, plugins=args.plugins, fragments=args.fragments)
        except PluginError:
            raise
        except InvalidFileError as error:
            _show(error.diagnostics, args.format, found)
            status = 2
            continue
        except UsageError as error:
            _error(str(error))
            status = 2
            continue
        warnings = analyze(node, overrides, names).diagnostics
        if args.strict and warnings:
            from dataclasses import replace

            warnings = [replace(d, severity=ERROR) for d in warnings]
            status = 2
        _show(warnings, args.format, found)
        if args.format == "json" or (args.strict and warnings):
            continue
        scenarios = len(node.scenarios) + sum(len(f.scenarios) for f in node.features)
        print(
            f"{visible(path)}: ok ({_count(len(node.features), 'feature')}, {_count(scenarios, 'scenario')}, "
            f"{_count(len(node.fragments), 'fragment')})"
        )
    if args.format == "json":
        print(json.dumps(found, indent=2))
    return status


def _show(diagnostics, form: str, found: list) -> None:
    """Diagnostics as `check --format` wants them: text lines on stderr, GitHub annotations on
    stdout, or kept for the one JSON list."""
    if form == "json":
        found += [diagnostic_json(d) for d in diagnostics]
    elif form == "github":
        for d in diagnostics:
            print(github_annotation(d))
    elif diagnostics:
        print("\n".join(visible(str(d)) for d in diagnostics), file=sys.stderr)


def diagnostic_json(d) -> dict[str, Any]:
    loc = d.location
    return {
        "file": loc.file,
        "line": loc.line,
        "column": loc.column,
        "end_line": loc.end_line,
        "end_column": loc.end_column,
        "severity": d.severity,
        "code": d.code or None,
        "message": d.message,
    }


def github_annotation(d) -> str:
    """`::warning file=F,line=L,col=C,endLine=..,endColumn=..,title=CODE::MESSAGE`, escaped as the
    workflow-command syntax requires (a message stays one line whatever it quotes)."""

    def data(text: str) -> str:
        return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    def prop(text: str) -> str:
        return data(text).replace(":", "%3A").replace(",", "%2C")

    loc = d.location
    title = f",title={prop(d.code)}" if d.code else ""
    return (
        f"::{d.severity} file={prop(loc.file)},line={loc.line},col={loc.column},endLine={loc.end_line},"
        f"endColumn={loc.end_column}{title}::{data(visible(d.message))}"
    )


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def params(args: argparse.Namespace) -> int:
    from scenario_core.parameters.params_report import parameter_nodes

    _required(args, "file")
    overrides = overrides_from(args)
    (file,) = load_valid([args.file], overrides, args.plugins, args.fragments)
    nodes = parameter_nodes(file, overrides)
    if args.json:
        print(json.dumps({"file": args.file, "nodes": [n.to_json() for n in nodes]}, indent=2))
        return 0
    from scenario_tui.output.params_view import print_parameter_tree

    print_parameter_tree(nodes)
    return 0


def tag_selection(items: Sequence[str]):
    """--tags as one TagExpression (None without --tags); a bad one is a one-line UsageError."""
    if not items:
        return None
    from scenario_core.language.tag_expressions import TagExpressionError, combine

    for item in items:
        try:
            combine([item])
        except TagExpressionError as error:
            raise UsageError(f"--tags '{_clip(item)}': {error}") from None
    return combine(items)


def require_selection(files: Sequence[Any], selected: Any) -> None:
    """A --tags expression that selects no scenario of these files is an error, not a green run."""
    from scenario_core.language.tag_expressions import selects_any

    if not selects_any(files, selected):
        raise UsageError(f"--tags '{_clip(str(selected))}': no scenario of these files is selected")


def run(args: argparse.Namespace) -> int:
    from scenario_core.parameters.run_inputs import expand_scenario_paths, read_variables_file
    from scenario_tui.cli.run_command import run_files

    _required(args, "files")
    selected = tag_selection(args.tags)
    overrides = overrides_from(args)
    variables: dict[str, Any] = {}
    for path in args.variables_file:
        variables.update(read_variables_file(path))
    variables.update(run_variables_from(args.var))  # --var wins over --variables-file
    files = load_valid(expand_scenario_paths(args.files), overrides, args.plugins, args.fragments)
    require_selection(files, selected)
    registry = plugin_registry(args.plugins) if args.plugins or any(f.custom_steps for f in files) else None
    return run_files(
        files,
        overrides,
        variables,
        selected=selected,
        report_json=args.report_json,
        report_junit=args.report_junit,
        show_secrets=args.show_secrets,
        registry=registry,
        resource_roots=args.resource_root,
        report_html=args.report_html,
        fail_fast=args.fail_fast,
        verbose=2 if args.very_verbose else 1 if args.verbose else 0,
        jobs=args.jobs,
    )


def demo_server(args: argparse.Namespace) -> int:
    from scenario_core.demo.server import ListenError, serve_forever

    try:
        serve_forever(args.host, args.port, args.verbose)
    except ListenError as error:
        raise UsageError(str(error)) from None
    return 0


def demo(args: argparse.Namespace) -> int:
    from scenario_core.demo.server import DemoServer, ListenError

    example = Path(args.file) if getattr(args, "file", None) else EXAMPLE
    if not example.exists():
        raise UsageError(f"{example}: no such file" if args.file else f"the bundled example is missing: {EXAMPLE}")
    try:
        server = DemoServer(port=args.port)
    except ListenError as error:
        raise UsageError(str(error)) from None
    with server:
        namespace = argparse.Namespace(
            file=str(example),
            base_url=server.url,
            param=[],
            openapi=[],
            var=[],
            plugins=[],
            fragments=[],
            resource_root=[],
        )
        return open_tui(namespace)


def open_tui(args: argparse.Namespace) -> int:
    from scenario_core.language.parser import require_regular_file
    from scenario_core.parameters.run_inputs import expand_scenario_paths

    overrides = overrides_from(args)
    variables = run_variables_from(args.var)
    paths = expand_scenario_paths(getattr(args, "files", None) or [args.file])  # a folder: its files, like run
    for path in paths:
        require_regular_file(path)  # missing, a FIFO: one line before the screen opens
    if getattr(args, "plugins", None):
        plugin_registry(args.plugins)  # fails before the screen opens
    from scenario_tui.app.shell import launch  # the only place the headless commands would meet textual

    selected = tag_selection(getattr(args, "tags", ()))
    return launch(
        paths if len(paths) > 1 else paths[0],
        overrides,
        variables,
        getattr(args, "fragments", ()),
        getattr(args, "plugins", ()),
        getattr(args, "resource_root", ()),
        tags=selected,
    )


def lsp(args: argparse.Namespace) -> int:
    overrides, variables = overrides_from(args), run_variables_from(args.var)
    from scenario_tui.integrations.lsp_server import serve  # pygls and core only: no textual

    return serve(overrides, variables)


_COMMANDS = {"run": run, "check": check, "params": params, "demo": demo, "demo-server": demo_server, "lsp": lsp}

if _STARTING:  # imports done: main() catches KeyboardInterrupt from here on
    signal.signal(signal.SIGINT, signal.default_int_handler)
