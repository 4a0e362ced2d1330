"""`pytest --junitxml` for `.scenario` items: the classname without the path's dots, as the
JUnit report of `run` writes it (core/report/junit.py, `junit_classname`). pytest makes a
classname of the node id, `pets.scenario.Pets`, and CI UIs split a classname at its dots.

Registered by the plugin only when pytest writes JUnit XML. It sets the attribute on junitxml's
own record of the test before junitxml fills it in (junitxml keeps an attribute set beforehand,
as it does for `record_xml_attribute`); under xdist this runs in the controller, where the XML is
written. Should pytest's private API move, the classname stays pytest's own.
"""

from __future__ import annotations

import pytest

SUFFIX = ".scenario"


def scenario_classname(nodeid: str) -> str | None:
    """`pets.Pets` for `pets.scenario::Pets::create pet`, `pets` for `pets.scenario::health`;
    None for a node id that is not a scenario's."""
    path, sep, rest = nodeid.partition("::")
    if not sep or not path.endswith(SUFFIX):
        return None
    from scenario_core.report.junit import junit_classname

    parents = rest.split("::")[:-1]
    return junit_classname(path, parents[0] if parents else None)


class JunitClassnames:
    def __init__(self, config: pytest.Config):
        self.config = config

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "setup":  # the first report of a test: its record is made then
            return
        classname = scenario_classname(report.nodeid)
        if classname is None:
            return
        try:
            from _pytest.junitxml import xml_key

            xml = self.config.stash.get(xml_key, None)
            if xml is not None:
                xml.node_reporter(report).add_attribute("classname", classname)
        except Exception:  # a pytest whose junitxml differs: its own classname
            pass
