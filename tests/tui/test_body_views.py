"""The inspector's views of bodies beyond JSON (tui/widgets/body_views.py), on what a real run
sent and received: a form as a field table (secrets masked), a multipart body by part name, file
name, type and size (never bytes), an XML response indented."""

from __future__ import annotations

from rich.console import Console

from scenario_core.parameters.diagnostics import load_valid
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.events import RequestSent, ResponseReceived
from scenario_core.run.executor import run_to_completion
from scenario_tui.widgets.body_views import request_body_view, xml_view
from scenario_tui.widgets.display import Display
from tests.core.echo_server import EchoServer


def _shown(renderables) -> str:
    console = Console(width=120, record=True, color_system=None)
    for item in renderables:
        console.print(item)
    return console.export_text()


def test_form_multipart_and_xml_bodies_show_as_tables_and_indented_xml(write_scenario):
    with EchoServer() as echo:
        echo.answer("/x", "<pets><pet><name>Rex</name></pet></pets>", ("Content-Type", "application/xml"))
        path = write_scenario(
            f"parameters:\n  baseUrl: {echo.url}\nscenario: s\n"
            "  when: POST /a\n    form:\n      user: demo\n      client_secret: very-secret-value-0123456789\n"
            "  when: POST /b\n    multipart:\n      note: hi\n      photo: file rex.png image/png\n"
            "  when: GET /x\n"
        )
        (path.parent / "rex.png").write_bytes(b"\x89PNG\x00\x01\x02")
        (file,) = load_valid([str(path)])
        events = run_to_completion([file], RunOverrides({}))
    display = Display()
    for event in events:
        display.learn(event)
    sent = [e for e in events if isinstance(e, RequestSent)]
    form = _shown(request_body_view(sent[0].step, sent[0].body, display))
    assert "user" in form and "demo" in form and "very-secret" not in form and "client_secret" in form
    parts = _shown(request_body_view(sent[1].step, sent[1].body, display))
    assert "photo" in parts and "file rex.png" in parts and "image/png" in parts and "7 bytes" in parts
    assert "PNG" not in parts
    response = [e for e in events if isinstance(e, ResponseReceived)][-1]
    xml = _shown(xml_view(response, display))
    assert xml.splitlines()[:3] == ["<pets>", "  <pet>", "    <name>Rex</name>"]
