"""The commands that open the step debugger: `scenario-tui FILE|DIR...` and `demo` (the bundled
demo API, and the TUI on the bundled example). The TUI, and so textual, is imported only here,
only to open it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scenario_core.custom_steps.plugins import plugin_registry
from scenario_core.language.errors import UsageError
from scenario_core.parameters.run_inputs import run_variables_from
from scenario_tui.cli.parser import overrides_from, tag_selection

# The bundled example: in a clone (or an editable install) examples/ beside the packages; in an
# installed wheel (pip install ., pipx) the copy pyproject.toml's data-files put under the prefix.
_IN_CLONE = Path(__file__).resolve().parents[2] / "examples" / "pets.scenario"
_INSTALLED = Path(sys.prefix) / "share" / "scenario-tui" / "examples" / "pets.scenario"
EXAMPLE = _IN_CLONE if _IN_CLONE.exists() else _INSTALLED


def open_tui(args: argparse.Namespace) -> int:
    """The step debugger on `args.files` (or `args.file`); what can fail is checked before the
    screen opens, so that it fails in one line."""
    from scenario_core.language.parser import require_regular_file
    from scenario_core.parameters.run_inputs import expand_scenario_paths

    overrides = overrides_from(args)
    variables = run_variables_from(args.var)
    paths = expand_scenario_paths(getattr(args, "files", None) or [args.file])  # a folder: its files, like run
    for path in paths:
        require_regular_file(path)  # missing, a FIFO: one line before the screen opens
    if getattr(args, "plugins", None):
        plugin_registry(args.plugins)  # fails before the screen opens
    from scenario_tui.app.launch import launch  # the only place the headless commands would meet textual

    selected = tag_selection(getattr(args, "tags", ()))
    return launch(
        paths if len(paths) > 1 else paths[0],
        overrides,
        variables,
        getattr(args, "fragments", ()),
        getattr(args, "plugins", ()),
        getattr(args, "resource_root", ()),
        tags=selected,
        base_url_source=getattr(args, "base_url_source", None),  # `demo`: its own API, said so
    )


def demo(args: argparse.Namespace) -> int:
    """The demo API on a free port (or --port), and the TUI on the bundled example pointed at it."""
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
            base_url_source="demo",
        )
        return open_tui(namespace)
