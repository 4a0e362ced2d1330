"""`scenario-tui check`: parse and validate each file, then warn about what static scope analysis
finds; its output formats (text on stderr, one JSON list, GitHub Actions annotations)."""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from scenario_core.language.errors import Diagnostic, InvalidFileError, UsageError
from scenario_core.parameters.diagnostics import load_valid
from scenario_core.parameters.run_inputs import run_variables_from
from scenario_core.support.plural import counted
from scenario_core.support.printable import visible
from scenario_tui.cli.errors import print_error, say_folders_left_out
from scenario_tui.cli.parser import overrides_from, require


def check(args: argparse.Namespace) -> int:
    """Errors, then the warnings of static scope analysis, per file in the order given; exit 2
    when any file has an error (a warning too, with --strict), else 0."""
    from scenario_core.analysis.scope_analysis import analyze
    from scenario_core.language.errors import ERROR
    from scenario_core.parameters.run_inputs import expand_scenario_paths, read_variables_file

    require(args, "files")
    say_folders_left_out(args.files)
    if args.plugins:
        from scenario_core.custom_steps.plugins import plugin_registry

        plugin_registry(args.plugins)  # a broken plugin: one usage error, not one per file
    overrides = overrides_from(args)
    names = set(run_variables_from(args.var))
    for path in args.variables_file:
        names.update(read_variables_file(path))
    status = 0
    found: list[dict[str, object]] = []  # every diagnostic, for --format json
    checked = []  # the valid files, for --coverage
    # a folder is its files, as for run; one file at a time: every valid one still gets its "ok" line
    for path in expand_scenario_paths(args.files):
        try:
            (node,) = load_valid([path], overrides, plugins=args.plugins, fragments=args.fragments)
        except InvalidFileError as error:
            _show(error.diagnostics, args.format, found)
            status = 2
            continue
        except UsageError as error:
            if _is_plugin_error(error):
                raise
            print_error(str(error))
            status = 2
            continue
        # errors local to one scenario: run still runs the others (docs/spec/steps.md#errors-local-to-one-scenario)
        if node.local_errors:
            _show(node.local_errors, args.format, found)
            status = 2
        from scenario_core.analysis.part_files import missing_part_files

        missing = missing_part_files(node, getattr(args, "resource_root", ()))
        if missing:  # a multipart file part that names no file: never an empty part
            _show(missing, args.format, found)
            status = 2
        checked.append(node)
        warnings = analyze(node, overrides, names).diagnostics
        if args.strict:
            from scenario_core.analysis.checks import unread_user_parameters
            from scenario_core.analysis.portability import berrycrush_portability

            warnings = sorted(
                [*warnings, *unread_user_parameters(node), *berrycrush_portability(node)],
                key=lambda d: (d.location.line, d.location.column),
            )
        if args.strict and warnings:
            from scenario_core.support.records import replace

            warnings = [replace(d, severity=ERROR) for d in warnings]
            status = 2
        _show(warnings, args.format, found)
        if args.format == "json" or (args.strict and warnings) or node.local_errors or missing:
            continue
        scenarios = len(node.scenarios) + sum(len(f.scenarios) for f in node.features)
        print(
            f"{visible(path)}: ok ({counted(len(node.features), 'feature')}, {counted(scenarios, 'scenario')}, "
            f"{counted(len(node.fragments), 'fragment')})"
        )
    if args.format == "json":
        import json

        print(json.dumps(found, indent=2))
    if args.coverage:
        from scenario_core.report.coverage_static import static_coverage
        from scenario_tui.output.coverage_view import static_lines

        print(
            "\n".join(static_lines(static_coverage(checked, overrides))),
            file=sys.stderr if args.format == "json" else sys.stdout,
        )
    return status


def _is_plugin_error(error: UsageError) -> bool:
    """A plugin that does not load stops the check (one error, not one per file). Only the
    plugins module raises it, so a check whose files use no custom steps never imports it."""
    plugins = sys.modules.get("scenario_core.custom_steps.plugins")
    return plugins is not None and isinstance(error, plugins.PluginError)


def _show(diagnostics: Sequence[Diagnostic], form: str, found: list[dict[str, object]]) -> None:
    """Diagnostics as `check --format` wants them: text lines on stderr, GitHub annotations on
    stdout, or kept for the one JSON list."""
    if form == "json":
        found += [diagnostic_json(d) for d in diagnostics]
    elif form == "github":
        for d in diagnostics:
            print(github_annotation(d))
    elif diagnostics:  # on a terminal, each with its source line and a caret
        from scenario_tui.output.source_excerpt import print_diagnostics

        print_diagnostics(diagnostics)


def diagnostic_json(d: Diagnostic) -> dict[str, object]:
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


def github_annotation(d: Diagnostic) -> str:
    """`::warning file=F,line=L,col=C,endLine=..,endColumn=..,title=CODE::MESSAGE`, escaped as the
    workflow-command syntax requires (a message stays one line whatever it quotes)."""

    def data(text: str) -> str:
        return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    def prop(text: str) -> str:
        return data(text).replace(":", "%3A").replace(",", "%2C")

    loc = d.location
    title = f",title={prop(visible(d.code))}" if d.code else ""
    return (  # control characters as escapes, as every format shows them (a file name may hold any)
        f"::{d.severity} file={prop(visible(loc.file))},line={loc.line},col={loc.column},endLine={loc.end_line},"
        f"endColumn={loc.end_column}{title}::{data(visible(d.message))}"
    )
