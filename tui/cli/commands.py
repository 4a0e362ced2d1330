"""The headless commands other than check: `params`, `run`, `demo-server` and `lsp`. None of them
imports textual (`run`'s work is run_command's; `lsp`'s the language server's)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Sequence

from scenario_core.language.errors import UsageError
from scenario_core.parameters.diagnostics import load_valid
from scenario_core.parameters.run_inputs import run_variables_from
from scenario_tui.cli.errors import clip
from scenario_tui.cli.parser import overrides_from, require, tag_selection

if TYPE_CHECKING:
    from scenario_core.language.nodes.blocks import ScenarioFileNode
    from scenario_core.language.tag_expressions import TagExpression
    from scenario_core.parameters.resolution import RunOverrides


def params(args: argparse.Namespace) -> int:
    from scenario_core.parameters.params_report import parameter_nodes

    require(args, "file")
    overrides = overrides_from(args)
    variables = run_variables_from(args.var)  # checked as run checks them; parameters never read them
    (file,) = load_valid([args.file], overrides, args.plugins, args.fragments)
    nodes = parameter_nodes(file, overrides)
    if args.json:
        import json

        print(json.dumps({"file": args.file, "nodes": [n.to_json() for n in nodes]}, indent=2))
        return 0
    from scenario_tui.output.params_view import print_parameter_tree

    print_parameter_tree(nodes, every_key=args.all)
    if variables:  # names only: a value may be a secret, and it is not a parameter
        print(f"run variables (--var), visible to every scenario: {', '.join(variables)}")
    return 0


def require_selection(files: Sequence[ScenarioFileNode], selected: TagExpression | None) -> None:
    """A --tags expression that selects no scenario of these files is an error, not a green run."""
    if selected is None:  # no --tags: everything is selected (and tag_expressions stays unloaded)
        return
    from scenario_core.language.tag_expressions import selects_any

    if not selects_any(files, selected):
        raise UsageError(f"--tags '{clip(str(selected))}': no scenario of these files is selected")


def require_operations(files: Sequence[ScenarioFileNode], overrides: RunOverrides) -> None:
    """`--coverage-min` over no operation at all would be a vacuous pass (0 of 0 is 100%): a usage
    error before anything is sent."""
    from scenario_core.report.coverage_static import static_coverage
    from scenario_tui.output.coverage_view import NOTHING_TO_COVER

    if static_coverage(files, overrides).counts()[1] == 0:
        raise UsageError(f"--coverage-min: {NOTHING_TO_COVER}")


def run(args: argparse.Namespace) -> int:
    from scenario_core.parameters.run_inputs import expand_scenario_paths, read_variables_file
    from scenario_core.run.options import run_options
    from scenario_tui.cli.errors import say_folders_left_out
    from scenario_tui.cli.run_command import run_files

    require(args, "files")
    say_folders_left_out(args.files)
    selected = tag_selection(args.tags)
    overrides = overrides_from(args)
    variables: dict[str, object] = {}
    for path in args.variables_file:
        variables.update(read_variables_file(path))
    variables.update(run_variables_from(args.var))  # --var wins over --variables-file
    files = load_valid(expand_scenario_paths(args.files), overrides, args.plugins, args.fragments)
    require_selection(files, selected)
    if args.coverage_min is not None:
        require_operations(files, overrides)
    registry = None
    if args.plugins or any(f.custom_steps for f in files):
        from scenario_core.custom_steps.plugins import plugin_registry

        registry = plugin_registry(args.plugins)
    options = run_options(
        overrides=overrides,
        run_variables=variables,
        selected=selected,
        registry=registry,
        resource_roots=args.resource_root,
        fragments=args.fragments,
        variables_files=args.variables_file,
        plugins=args.plugins,
        report_json=args.report_json,
        report_junit=args.report_junit,
        report_html=args.report_html,
        show_secrets=args.show_secrets,
        fail_fast=args.fail_fast,
        verbose=2 if args.very_verbose else 1 if args.verbose else 0,
        jobs=args.jobs,
        dist=args.dist,
        compare=args.compare,
        coverage=args.coverage,
        coverage_min=args.coverage_min,
    )
    from scenario_tui.cli.held_signals import RunSignals, process_ends_after_main

    # One owner of SIGINT/SIGTERM from here to the exit: the run stops on the first, the reports
    # are written whatever comes, and the status says a signal came (held_signals).
    with RunSignals(process_ends=process_ends_after_main()) as held:
        status = run_files(files, options)
    return held.exit_status(status)


def demo_server(args: argparse.Namespace) -> int:
    from scenario_core.demo.server import ListenError, serve_forever

    try:
        serve_forever(args.host, args.port, args.verbose)
    except ListenError as error:
        raise UsageError(str(error)) from None
    return 0


def lsp(args: argparse.Namespace) -> int:
    overrides, variables = overrides_from(args), run_variables_from(args.var)
    from scenario_tui.integrations.lsp_server import serve  # pygls and core only: no textual

    return serve(overrides, variables)
