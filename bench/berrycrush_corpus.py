"""How much of BerryCrush's own `.scenario` corpus scenario-tui reads unmodified.

Run by hand, never by the test suite, and it fetches nothing: point it at a folder holding
BerryCrush's files as its repository lays them out (a checkout, or the files of one sample):

    .venv/bin/python bench/berrycrush_corpus.py CHECKOUT [--openapi PATH | --openapi NAME=PATH ...]

Every `*.scenario` under CHECKOUT is checked as `scenario-tui check` would (its `.fragment` files
found from the nearest `fragments/` folder; `lemon-check/`, the project's old name, is left out)
and put in one of three classes:

- clean: `check` passes;
- read: the file parses and builds, and its only errors need what BerryCrush configures outside
  the file -- an OpenAPI description (`--openapi`, as the JUnit class names it), a Kotlin custom
  step or assertion ("count as read when the only errors say so");
- refused: anything else (the language itself does not read it), with the first such error.

Files under a folder named `invalid` are BerryCrush's own parse-error fixtures: they are counted
apart, and they should be refused.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scenario_core.language.errors import Diagnostic, InvalidFileError, ScenarioError
from scenario_core.language.parser import load_file
from scenario_core.parameters.diagnostics import load_valid
from scenario_core.parameters.run_inputs import command_line_overrides

# Errors that only BerryCrush's configuration outside the file (JUnit annotations, Kotlin code)
# would remove: what a user supplies with --openapi or --plugins.
CONFIGURATION = (
    "no OpenAPI description is loaded",
    "OpenAPI description",
    "operation '",
    "no step matches",
    "no assertion matches",
    "custom assertion",
    "custom step",
    "baseUrl has no value here",  # @BerryCrushSpec(baseUrl = ...) gives it
)


def configuration_only(diagnostics: list[Diagnostic]) -> bool:
    return all(any(marker in d.message for marker in CONFIGURATION) for d in diagnostics)


def classify(path: Path, overrides) -> tuple[str, str]:
    """(clean | read | refused, the first error that decided it). The `.fragment` files beside a
    scenario are given as `--fragments` would give them: BerryCrush's JUnit class names them."""
    beside = tuple(str(p) for p in sorted(path.parent.glob("*.fragment")))
    try:
        load_file(path, beside)
    except InvalidFileError as error:
        return "refused", str(error.diagnostics[0])
    except ScenarioError as error:
        return "refused", str(error)
    try:
        (node,) = load_valid([str(path)], overrides, fragments=beside)
    except InvalidFileError as error:
        found = list(error.diagnostics)
    else:
        found = list(node.local_errors)
    if not found:
        return "clean", ""
    if configuration_only(found):
        return "read", str(found[0])
    first = next(d for d in found if not configuration_only([d]))
    return "refused", str(first)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--openapi", action="append", default=[], help="PATH or NAME=PATH, as for check")
    args = parser.parse_args(argv)
    overrides = command_line_overrides([], None, args.openapi)
    files = sorted(p for p in args.checkout.rglob("*.scenario") if "lemon-check" not in p.parts)
    counts = {"clean": 0, "read": 0, "refused": 0}
    invalid = {"clean": 0, "read": 0, "refused": 0}
    for path in files:
        outcome, why = classify(path, overrides)
        (invalid if "invalid" in path.parts else counts)[outcome] += 1
        shown = path.relative_to(args.checkout)
        print(f"{outcome:8} {shown}{'  -- ' + why.replace(str(path), str(shown)) if why else ''}")
    total = sum(counts.values())
    print(
        f"\n{counts['clean'] + counts['read']}/{total} read ({counts['clean']} clean, {counts['read']} "
        f"needing only configuration), {counts['refused']} refused; BerryCrush's invalid fixtures: "
        f"{invalid['refused']}/{sum(invalid.values())} refused"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
