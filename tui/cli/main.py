"""The `scenario-tui` console script (docs/spec/cli.md): its entry point, `main`, which hands the arguments
to their command (parser.py, check.py, commands.py, open_tui.py). Headless commands (`check`,
`params`, `run`, `demo-server`) never import textual: the TUI is imported only when it is opened.

Nothing prints a traceback: usage errors, unreadable files, a busy port, a closed pipe and an
early Ctrl+C all end in at most one line on standard error (a Ctrl+C while this module itself
is still importing is console.py's to catch)."""

from __future__ import annotations

import argparse
import sys
from typing import Callable, Sequence

from scenario_core.language.errors import InvalidFileError, ScenarioError, UsageError
from scenario_core.support.collector import apply_collector_policy, collect_rarely
from scenario_tui.cli.errors import interrupted, print_error
from scenario_tui.cli.parser import COMMANDS, build_parser, build_tui_parser, require

Command = Callable[[argparse.Namespace], int]


# Each command's function, imported only when that command runs (`check` never loads the
# executor, `run` never the scope analysis), with the modules every run of it imports anyway:
# loaded here, they are frozen out of the collector's way with the rest of start-up
# (see _command_and_arguments).
def _run() -> Command:
    import scenario_core.run.executor  # noqa: F401
    import scenario_tui.cli.run_command  # noqa: F401
    from scenario_tui.cli.commands import run

    return run


def _check() -> Command:
    import scenario_core.analysis.scope_analysis  # noqa: F401
    import scenario_core.language.parser  # noqa: F401 (every check parses)
    from scenario_tui.cli.check import check

    return check


def _params() -> Command:
    from scenario_tui.cli.commands import params

    return params


def _fmt() -> Command:
    from scenario_tui.cli.fmt_command import fmt

    return fmt


def _import() -> Command:
    from scenario_tui.cli.import_command import import_

    return import_


def _demo() -> Command:
    from scenario_tui.cli.open_tui import demo

    return demo


def _demo_server() -> Command:
    from scenario_tui.cli.commands import demo_server

    return demo_server


def _lsp() -> Command:
    from scenario_tui.cli.commands import lsp

    return lsp


def _open_tui() -> Command:
    from scenario_tui.cli.open_tui import open_tui

    return open_tui


_COMMANDS: dict[str, Callable[[], Command]] = {
    "run": _run,
    "check": _check,
    "params": _params,
    "fmt": _fmt,
    "import": _import,
    "demo": _demo,
    "demo-server": _demo_server,
    "lsp": _lsp,
}


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except KeyboardInterrupt:
        return interrupted()


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        command, args = _command_and_arguments(argv)
        status = command(args)
        sys.stdout.flush()  # here, not at exit: a closed pipe must be noticed while we can handle it
        return status
    except UsageError as error:
        print_error(str(error))
        return 2
    except InvalidFileError as error:  # on a terminal, each with its source line and a caret
        from scenario_tui.output.source_excerpt import print_diagnostics

        print_diagnostics(error.diagnostics)
        return 2
    except ScenarioError as error:
        print_error(str(error))
        return 2
    except BrokenPipeError:  # `params --json | head -1`: the reader has gone; end quietly, like cat
        from scenario_tui.cli.run_command import SIGPIPE, silence_stdout

        silence_stdout()
        return 128 + SIGPIPE
    except KeyboardInterrupt:
        return interrupted()
    except Exception as error:  # a bug must still be one line, not a traceback
        print_error(f"internal error: {type(error).__name__}: {' '.join(str(error).split())}")
        return 1


def _command_and_arguments(argv: list[str]) -> tuple[Command, argparse.Namespace]:
    """The command's function (its modules imported) and its parsed arguments; then the
    process's collector policy (support/collector.py), once start-up's objects exist."""
    collect_rarely()  # the command's imports, too
    try:
        if argv and (argv[0] in COMMANDS or argv[0] in ("-h", "--help", "-V", "--version", "--print-completion")):
            args = build_parser(argv[0] in ("-h", "--help", "--print-completion"), argv[0]).parse_args(argv)
            if args.command is None:
                raise UsageError("expected FILE or a command: " + ", ".join(COMMANDS) + " (see --help)")
            command = _COMMANDS[args.command]()
        elif not argv:
            raise UsageError("expected FILE or a command: " + ", ".join(COMMANDS) + " (see --help)")
        else:
            args = build_tui_parser().parse_args(argv)
            require(args, "files")
            command = _open_tui()
        return command, args
    finally:
        apply_collector_policy()
