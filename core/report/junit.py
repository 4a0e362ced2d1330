"""The JUnit XML report for CI servers (Jenkins, GitLab), rendered from a RunRecorder and masked,
and written atomically. xml.etree is imported where it is used: most runs write no report, and
start-up time is what a CI job calling `run` many times pays for."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from scenario_core.report.failures import failure_details, failure_message
from scenario_core.report.masking import Masker
from scenario_core.report.recorder import RunRecorder
from scenario_core.report.records import ScenarioRecord
from scenario_core.report.writing import atomic_write
from scenario_core.run import events as ev
from scenario_core.support.printable import visible, visible_block, xml_safe

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET


def junit_report(recorder: RunRecorder, masker: Masker | None = None) -> ET.ElementTree:
    """`<testsuites>` holding a `<testsuite>` per feature and one per file for its standalone
    scenarios, in order of first appearance; a `<testcase>` per scenario.

    classname is the file's path without its dots, then `.FEATURE` (see `classname`): Jenkins
    and GitLab split a classname at its dots into packages and a class, which gives package = the
    file, class = the feature; the path as given stays in `file=`.
    """
    import xml.etree.ElementTree as ET

    return ET.ElementTree(_junit_root(recorder, masker))


def _junit_root(recorder: RunRecorder, masker: Masker | None) -> ET.Element:
    """The `<testsuites>` element of junit_report (which write_junit_report writes as it is)."""
    import xml.etree.ElementTree as ET

    masker = masker or Masker(enabled=False)
    root = ET.Element("testsuites", name="scenario-tui")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
    for file in recorder.files:
        groups: dict[str | None, list[ScenarioRecord]] = {}
        for scenario in file.scenarios:
            groups.setdefault(scenario.feature, []).append(scenario)
        for feature, scenarios in groups.items():
            suite = _junit_suite(root, file.path, feature, scenarios, masker)
            for key in ("tests", "failures", "errors", "skipped"):
                totals[key] += int(suite.attrib[key])
            totals["time"] += float(suite.attrib["time"])
    root.set("tests", str(totals["tests"]))
    root.set("failures", str(totals["failures"]))
    root.set("errors", str(totals["errors"]))
    root.set("skipped", str(totals["skipped"]))
    root.set("time", f"{recorder.elapsed:.3f}")
    if recorder.interrupted:
        # Not a standard attribute, but readers ignore unknown ones; the interrupted scenario
        # itself is a <failure message="...interrupted">.
        root.set("interrupted", "true")
    # Names, messages and bodies come from files and servers: a NUL, an ESC or U+FFFE would make
    # the file unreadable for every CI server (ElementTree writes them as they are), and a `\r`,
    # U+2028 or a bidi override (U+202E) would let them fake or reorder text in a CI page. Shown
    # as escapes, as the terminal shows them: attributes are one line, a failure's text keeps
    # its line feeds.
    for element in root.iter():
        if element.text:
            element.text = xml_safe(visible_block(element.text))
        for name, value in element.attrib.items():
            element.set(name, xml_safe(visible(value)))
    ET.indent(root)
    return root


def _junit_suite(
    root: ET.Element, path: str, feature: str | None, scenarios: list[ScenarioRecord], masker: Masker
) -> ET.Element:
    import xml.etree.ElementTree as ET

    errors = sum(s.status == ev.FAILED and s.local_error for s in scenarios)
    failures = sum(s.status == ev.FAILED for s in scenarios) - errors
    skipped = sum(s.status == ev.SKIPPED for s in scenarios)
    elapsed = sum(s.elapsed for s in scenarios)
    suite = ET.SubElement(
        root,
        "testsuite",
        {
            "name": path if feature is None else f"{path} :: {feature}",
            "tests": str(len(scenarios)),
            "failures": str(failures),
            "errors": str(errors),
            "skipped": str(skipped),
            "time": f"{elapsed:.3f}",
            "file": path,
        },
    )
    classname = junit_classname(path, feature)
    for scenario in scenarios:
        case = ET.SubElement(
            suite,
            "testcase",
            {
                "classname": classname,
                "name": scenario.name,
                "time": f"{scenario.elapsed:.3f}",
                "file": path,
                "line": str(scenario.line),
            },
        )
        if scenario.status == ev.FAILED:
            # JUnit's <error> is "could not run", <failure> "ran and failed": a local error sent nothing.
            kind, type_ = ("error", "ScenarioError") if scenario.local_error else ("failure", "ScenarioFailed")
            failure = ET.SubElement(
                case, kind, {"message": masker.text(failure_message(scenario)) or "failed", "type": type_}
            )
            failure.text = "\n".join(failure_details(scenario, masker))
        elif scenario.status == ev.SKIPPED:
            ET.SubElement(case, "skipped", {"message": masker.text(scenario.message) or "skipped"})
    return suite


def junit_classname(path: str, feature: str | None) -> str:
    """`shop/cats` for `../shop/cats.scenario`, `shop/cats.Cats` with feature `Cats`: the path's
    folders (none of `.`, `..` or the root) and the file's name without `.scenario`, every other
    dot of the path or the feature written `_`, so the one dot left parts file from feature."""
    parts = [part for part in path.replace("\\", "/").split("/") if part not in ("", ".", "..")]
    if parts and parts[-1].endswith(".scenario") and len(parts[-1]) > len(".scenario"):
        parts[-1] = parts[-1][: -len(".scenario")]
    file = "/".join(part.replace(".", "_") for part in parts) or "scenarios"
    return file if feature is None else f"{file}.{feature.replace('.', '_')}"


def write_junit_report(path: str | os.PathLike[str], recorder: RunRecorder, masker: Masker | None = None) -> None:
    import xml.etree.ElementTree as ET

    data = ET.tostring(_junit_root(recorder, masker), encoding="utf-8", xml_declaration=True) + b"\n"
    atomic_write(path, data)
