"""The console script's arguments: the command parser (`run`, `check`, `params`, `demo`,
`demo-server`, `lsp`), the step debugger's (`scenario-tui FILE|DIR...`), their shared options,
shell completion, and what the options become for the engine (overrides, a tag selection)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any, Callable, NoReturn, Sequence

from scenario_core.language.errors import UsageError
from scenario_core.parameters.run_inputs import command_line_overrides
from scenario_core.support.version import version
from scenario_tui.cli.errors import clip

if TYPE_CHECKING:  # both loaded only when used: the commands start fast
    from scenario_core.language.tag_expressions import TagExpression
    from scenario_core.parameters.resolution import RunOverrides

COMMANDS = ("run", "check", "params", "fmt", "import", "demo", "demo-server", "lsp")


def _help_width() -> int:
    """What argparse's help is wrapped to, found as shutil.get_terminal_size finds it ($COLUMNS,
    else the terminal's, else 80) without importing shutil (and bz2 and lzma with it), which
    argparse's own formatter does for every option declared, help printed or not."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns if sys.__stdout__ else 0
        except (AttributeError, ValueError, OSError):
            columns = 0
    return (columns or 80) - 2  # argparse's own margin


class _HelpFormatter(argparse.HelpFormatter):
    def __init__(
        self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None
    ) -> None:
        super().__init__(prog, indent_increment, max_help_position, _help_width() if width is None else width)


class Parser(argparse.ArgumentParser):
    """Usage errors are one line, like every other error."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


class _Version(argparse.Action):
    def __init__(
        self,
        option_strings: Sequence[str],
        dest: str = argparse.SUPPRESS,
        default: str = argparse.SUPPRESS,
        help: str | None = None,
    ) -> None:
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> NoReturn:
        print(f"scenario-tui {version()}")
        parser.exit()


def _version_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-V", "--version", action=_Version, help="print the version and exit")


def _port(text: str) -> int:
    """0-65535, read without int() on a 5,000-digit string (Python refuses those with a traceback)."""
    digits = text.strip()
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 5 or int(digits) > 65535:
        raise argparse.ArgumentTypeError(f"expected a port number from 0 to 65535 (0: a free one), got {clip(text)}")
    return int(digits)


def require(args: argparse.Namespace, name: str) -> None:
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
            f"expected a number of files to run at once (1 or more) or auto, got {clip(text)}"
        )
    return int(digits)


def _percent(text: str) -> float:
    try:
        value = float(text.strip().rstrip("%"))
    except ValueError:
        value = -1.0
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"expected a percentage from 0 to 100, got {clip(text)}")
    return value


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
        help="run N files (with --dist scope: scope units) at once in one process (auto: CPUs x 4, at most 32); default 1",
    )
    run.add_argument(
        "--compare",
        metavar="REPORT.json",
        help="after each step that sent a request, what changed since the same step in an earlier "
        "--report-json (status, JSON paths added, removed or changed; masked); the JSON report gains "
        "`changes` per step. It informs: it never fails a step",
    )
    run.add_argument(
        "--dist",
        choices=("file", "scope"),
        default="file",
        help="what --jobs runs at once: whole files (default), or scope units -- isolated scenarios, "
        "sharing features, sharing files -- so one file's independent scenarios run at once",
    )
    run.add_argument(
        "--variables-file",
        action="append",
        default=[],
        metavar="PATH",
        help="run variables from a JSON object or NAME=VALUE lines (repeatable; --var wins)",
    )


def build_parser(completion: bool = False, command: str | None = None) -> Parser:
    """The command parser. With `command` (the first argument), only that command's parser is
    made: each of the ~60 options costs ~0.1 ms to declare, and argv names one command (its
    parser is the one argparse reads). `--help` and `--print-completion` list them all."""
    parser = Parser(
        prog="scenario-tui",
        description="Write, run and step-debug API test scenarios.",
        usage="%(prog)s FILE|DIR... [--base-url URL] [--tags EXPR] [options]  (the step debugger)\n"
        f"       %(prog)s {{{','.join(COMMANDS)}}} ...",
        epilog="scenario-tui FILE|DIR... opens the step debugger on the files (a folder: every "
        ".scenario file under it, sorted), one root each in the tree; "
        "`scenario-tui FILE --help` lists its options.",
    )
    _version_option(parser)
    if completion:  # shtab costs ~10 ms to import: only for --help and --print-completion
        _completion_option(parser)
    # prog: without it a command's usage starts with the whole two-line usage above
    commands = parser.add_subparsers(dest="command", parser_class=Parser, prog="scenario-tui")
    for name, (summary, usage, declare_options) in _COMMAND_PARSERS.items():
        if completion or command in (None, name):
            declare_options(commands.add_parser(name, help=summary, usage=usage or None))
    return parser


def _run_options(run: argparse.ArgumentParser) -> None:
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
    run.add_argument(
        "--coverage",
        action="store_true",
        help="after the summary, show which OpenAPI operations, responses and parameters the run exercised",
    )
    run.add_argument(
        "--coverage-min",
        type=_percent,
        metavar="PERCENT",
        help="exit 1 when fewer than PERCENT%% of the operations were called (implies --coverage)",
    )


def _check_command_options(check: argparse.ArgumentParser) -> None:
    check.add_argument("files", nargs="*", metavar="FILE")
    _plugins_option(check)
    _check_options(check)


def _params_options(params: argparse.ArgumentParser) -> None:
    params.add_argument("file", nargs="?", metavar="FILE")
    params.add_argument("--json", action="store_true", help="machine-readable output (always every key)")
    params.add_argument(
        "--all", action="store_true", help="show every key, also those at their defaults (default: only keys set)"
    )
    _shared_options(params)
    _var_option(params)  # docs/spec/cli.md#shared-options: shared by run, params and the TUI
    _plugins_option(params)


def _fmt_options(fmt: argparse.ArgumentParser) -> None:
    fmt.add_argument(
        "files", nargs="*", metavar="FILE|DIR", help="files, or folders (their .scenario and .fragment files)"
    )
    fmt.add_argument("--check", action="store_true", help="write nothing; list the files that would change (exit 1)")
    fmt.add_argument("--diff", action="store_true", help="write nothing; print the change as a unified diff")
    fmt.add_argument(
        "--fragments",
        action="append",
        default=[],
        metavar="PATH|GLOB",
        help="more .fragment files the scenario files include (as for check); repeatable",
    )


def _import_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("kind", choices=("curl", "har", "openapi"), help="what to import from")
    command.add_argument(
        "source",
        metavar="INPUT",
        help="the curl command (one argument, quoted; - reads it from standard input), the .har file or the OpenAPI file",
    )
    command.add_argument(
        "-o", "--output", metavar="FILE", help="write the scenario to FILE (a new file; - or none: standard output)"
    )
    command.add_argument("--force", action="store_true", help="with -o: replace FILE when it exists")
    command.add_argument("--dialect", choices=("ours", "berrycrush"), default="ours", help="the dialect to write")
    command.add_argument("--host", metavar="HOST", help="har: import the calls to HOST (default: the busiest API host)")


def _demo_options(demo: argparse.ArgumentParser) -> None:
    demo.add_argument(
        "file", nargs="?", metavar="FILE", help="a scenario file to open instead (e.g. examples/openapi.scenario)"
    )
    demo.add_argument("--port", type=_port, default=0, help="port for the demo API (default: a free one)")


def _server_options(server: argparse.ArgumentParser) -> None:
    server.add_argument("--host", default="127.0.0.1")
    server.add_argument("--port", type=_port, default=8000)
    server.add_argument("--verbose", action="store_true", help="log every request")


def _lsp_options(lsp: argparse.ArgumentParser) -> None:
    _shared_options(lsp)
    _var_option(lsp)


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
        "--coverage",
        action="store_true",
        help="list the OpenAPI operations no scenario calls (from the files alone; nothing is sent)",
    )
    check.add_argument(
        "--format",
        choices=("text", "json", "github"),
        default="text",
        help="text (default); json: one list of diagnostics on stdout; github: GitHub Actions annotations",
    )


# Each command: its help line, its usage (None: argparse's), and what declares its options.
_COMMAND_PARSERS: dict[str, tuple[str, str | None, Callable[[argparse.ArgumentParser], None]]] = {
    "run": ("run scenario files headless, for CI", "%(prog)s FILE... [options]", _run_options),
    "check": (
        "parse and validate only; warn about what static scope analysis finds",
        "%(prog)s FILE... [options]",
        _check_command_options,
    ),
    "params": (
        "print every node's effective parameters with provenance",
        "%(prog)s FILE [--json] [--all] [options]",
        _params_options,
    ),
    "fmt": ("rewrite scenario files in the canonical layout", "%(prog)s FILE|DIR... [--check] [--diff]", _fmt_options),
    "import": (
        "write a scenario from a curl command, a HAR recording or an OpenAPI description",
        "%(prog)s curl 'curl ...' | har FILE.har [--host HOST] | openapi SPEC [-o FILE] [--dialect ours|berrycrush]",
        _import_options,
    ),
    "demo": ("start the demo API and open the TUI on the bundled example", None, _demo_options),
    "demo-server": ("serve the bundled demo API", None, _server_options),
    "lsp": ("serve the language server protocol over stdio (for editors)", None, _lsp_options),
}


def build_tui_parser() -> Parser:
    parser = Parser(
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


def overrides_from(args: argparse.Namespace) -> RunOverrides:
    """--param, --base-url and --openapi as the run's overrides."""
    overrides: RunOverrides = command_line_overrides(args.param, args.base_url, args.openapi)
    return overrides


def tag_selection(items: Sequence[str]) -> TagExpression | None:
    """--tags as one TagExpression (None without --tags); a bad one is a one-line UsageError."""
    if not items:
        return None
    from scenario_core.language.tag_expressions import TagExpressionError, combine

    for item in items:
        try:
            combine([item])
        except TagExpressionError as error:
            raise UsageError(f"--tags '{clip(item)}': {error}") from None
    return combine(items)
