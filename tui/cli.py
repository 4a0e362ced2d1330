"""The `scenario-tui` console script (cli.md). Headless commands (`check`, `params`, `run`,
`demo-server`) never import textual: the TUI is imported only when it is opened."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, NoReturn, Sequence

from scenario_core.errors import InvalidFileError, ScenarioError, UsageError

COMMANDS = ("run", "check", "params", "demo", "demo-server")
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "pets.scenario"


class _Parser(argparse.ArgumentParser):
    """Usage errors are one line, like every other error."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _shared_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base-url", metavar="URL", help="override baseUrl for the whole run")
    parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                        help="override a parameter for the whole run (repeatable)")
    parser.add_argument("--openapi", metavar="PATH", help="OpenAPI description giving the baseUrl")


def _var_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--var", action="append", default=[], metavar="NAME=VALUE",
                        help="a run variable visible to every scenario; VALUE is JSON when it parses as JSON (repeatable)")


def _build_parser() -> _Parser:
    parser = _Parser(prog="scenario-tui", description="Write, run and step-debug API test scenarios.")
    commands = parser.add_subparsers(dest="command", parser_class=_Parser)

    run = commands.add_parser("run", help="run scenario files headless, for CI")
    run.add_argument("files", nargs="+", metavar="FILE")
    _shared_options(run)
    _var_option(run)
    run.add_argument("--report-json", metavar="PATH", help="write a JSON report")
    run.add_argument("--report-junit", metavar="PATH", help="write a JUnit XML report")
    run.add_argument("--tags", action="append", default=[], metavar="TAG[,TAG]",
                     help="run only scenarios with one of these tags (their own or their feature's)")
    run.add_argument("--show-secrets", action="store_true", help="do not mask tokens, passwords and auth headers")

    check = commands.add_parser("check", help="parse and validate only")
    check.add_argument("files", nargs="+", metavar="FILE")

    params = commands.add_parser("params", help="print every node's effective parameters with provenance")
    params.add_argument("file", metavar="FILE")
    params.add_argument("--json", action="store_true", help="machine-readable output")
    _shared_options(params)

    demo = commands.add_parser("demo", help="start the demo API and open the TUI on the bundled example")
    demo.add_argument("--port", type=int, default=0, help="port for the demo API (default: a free one)")

    server = commands.add_parser("demo-server", help="serve the bundled demo API")
    server.add_argument("--host", default="127.0.0.1")
    server.add_argument("--port", type=int, default=8000)
    server.add_argument("--verbose", action="store_true", help="log every request")
    return parser


def _build_tui_parser() -> _Parser:
    parser = _Parser(prog="scenario-tui", description="Open FILE in the step debugger.")
    parser.add_argument("file", metavar="FILE")
    _shared_options(parser)
    _var_option(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and (argv[0] in COMMANDS or argv[0] in ("-h", "--help")):
            args = _build_parser().parse_args(argv)
            return _COMMANDS[args.command](args)
        if not argv:
            raise UsageError("expected FILE or a command: " + ", ".join(COMMANDS) + " (see --help)")
        return open_tui(_build_tui_parser().parse_args(argv))
    except UsageError as error:
        print(f"scenario-tui: error: {error}", file=sys.stderr)
        return 2
    except InvalidFileError as error:
        print(str(error), file=sys.stderr)
        return 2
    except ScenarioError as error:
        print(f"scenario-tui: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


# ---------------------------------------------------------------- helpers shared by commands


def overrides_from(args: argparse.Namespace):
    from scenario_core.resolution import RunOverrides

    return RunOverrides.from_cli(args.param, args.base_url, args.openapi)


def run_variables_from(items: list[str]) -> dict[str, Any]:
    from scenario_core.templates import NAME

    variables: dict[str, Any] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not NAME.fullmatch(name):
            raise UsageError(f"--var {item}: expected NAME=VALUE with NAME made of letters, digits and _")
        try:
            variables[name] = json.loads(raw)
        except ValueError:
            variables[name] = raw
    return variables


def load_valid(paths: Sequence[str], overrides=None):
    """Load every file; raise one InvalidFileError holding all their diagnostics."""
    from scenario_core.parser import load_file
    from scenario_core.resolution import parameter_diagnostics

    files, problems = [], []
    for path in paths:
        try:
            node = load_file(path)
        except InvalidFileError as error:
            problems.extend(error.diagnostics)
            continue
        found = parameter_diagnostics(node, overrides)
        problems.extend(found)
        if not found:
            files.append(node)
    if problems:
        raise InvalidFileError(problems)
    return files


# ---------------------------------------------------------------- commands


def check(args: argparse.Namespace) -> int:
    status = 0
    for path in args.files:  # one file at a time: every valid one still gets its "ok" line
        try:
            (node,) = load_valid([path])
        except InvalidFileError as error:
            print(str(error), file=sys.stderr)
            status = 2
            continue
        except UsageError as error:
            print(f"scenario-tui: error: {error}", file=sys.stderr)
            status = 2
            continue
        scenarios = len(node.scenarios) + sum(len(f.scenarios) for f in node.features)
        print(f"{path}: ok ({_count(len(node.features), 'feature')}, {_count(scenarios, 'scenario')}, "
              f"{_count(len(node.fragments), 'fragment')})")
    return status


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def params(args: argparse.Namespace) -> int:
    from scenario_core.params_report import parameter_nodes

    overrides = overrides_from(args)
    (file,) = load_valid([args.file], overrides)
    nodes = parameter_nodes(file, overrides)
    if args.json:
        print(json.dumps({"file": args.file, "nodes": [n.to_json() for n in nodes]}, indent=2))
        return 0
    from .params_view import print_parameter_tree

    print_parameter_tree(nodes)
    return 0


def run(args: argparse.Namespace) -> int:
    from .run_command import run_files

    overrides = overrides_from(args)
    files = load_valid(args.files, overrides)
    tags = {t.strip().lstrip("@") for item in args.tags for t in item.split(",") if t.strip()} or None
    return run_files(
        files, overrides, run_variables_from(args.var), tags=tags,
        report_json=args.report_json, report_junit=args.report_junit, show_secrets=args.show_secrets,
    )


def demo_server(args: argparse.Namespace) -> int:
    from scenario_core.demo.server import serve_forever

    serve_forever(args.host, args.port, args.verbose)
    return 0


def demo(args: argparse.Namespace) -> int:
    from scenario_core.demo.server import DemoServer

    if not EXAMPLE.exists():
        raise UsageError(f"the bundled example is missing: {EXAMPLE}")
    with DemoServer(port=args.port) as server:
        namespace = argparse.Namespace(file=str(EXAMPLE), base_url=server.url, param=[], openapi=None, var=[])
        return open_tui(namespace)


def open_tui(args: argparse.Namespace) -> int:
    overrides = overrides_from(args)
    variables = run_variables_from(args.var)
    if not Path(args.file).is_file():
        raise UsageError(f"{args.file}: no such file")
    from .app import launch  # the only place the headless commands would meet textual

    return launch(args.file, overrides, variables)


_COMMANDS = {"run": run, "check": check, "params": params, "demo": demo, "demo-server": demo_server}
