"""Body forms of a request (docs/spec/requests.md#body-forms): a `\"\"\"` block, `form:`,
`multipart:` and `bodyFile:` under `when: METHOD path` and under an operation call, each
checked by what a real loopback server received."""

from __future__ import annotations

import email.parser
import email.policy
from pathlib import Path

import pytest

from scenario_core.language.errors import InvalidFileError
from scenario_core.parameters.diagnostics import load_valid
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.events import RequestSent, ScenarioFinished
from scenario_core.run.executor import run_to_completion
from tests.core.echo_server import EchoServer

PETSTORE = Path(__file__).resolve().parents[2] / "core" / "demo" / "petstore.yaml"


@pytest.fixture
def echo():
    with EchoServer() as server:
        yield server


def run(path: Path) -> tuple[ScenarioFinished, list]:
    (file,) = load_valid([str(path)])
    events = run_to_completion([file], RunOverrides({}))
    (finished,) = [e for e in events if isinstance(e, ScenarioFinished)]
    return finished, events


def scenario(echo: EchoServer, write_scenario, steps: str) -> Path:
    return write_scenario(f"parameters:\n  baseUrl: {echo.url}\nscenario: s\n" + steps)


def parts_of(seen) -> list:
    content_type = seen.headers["content-type"]
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + seen.body
    )
    return list(message.iter_parts())


def test_triple_quoted_body_goes_as_text_plain_without_its_last_line_break(echo, write_scenario):
    path = scenario(
        echo, write_scenario, '  when: POST /raw\n    body: """\n      name=Rex\n      tag=dog\n      """\n'
    )
    finished, _ = run(path)
    assert finished.status == "passed", finished.message
    (seen,) = echo.seen
    assert seen.body == b"name=Rex\ntag=dog"
    assert seen.headers["content-type"] == "text/plain; charset=utf-8"


def test_triple_quoted_body_keeps_the_content_type_headers_give(echo, write_scenario):
    path = scenario(
        echo,
        write_scenario,
        "  when: POST /xml\n    headers:\n      Content-Type: application/xml\n"
        '    body: """\n      <pet><name>Rex</name></pet>\n      """\n',
    )
    assert run(path)[0].status == "passed"
    assert echo.seen[0].headers["content-type"] == "application/xml"
    assert echo.seen[0].body == b"<pet><name>Rex</name></pet>"


def test_form_is_urlencoded_in_written_order_with_repeated_names_and_interpolation(echo, write_scenario):
    path = scenario(
        echo,
        write_scenario,
        "  when: POST /login\n    form:\n      grant_type: client_credentials\n      tag: a b&c\n"
        "      tag: é\n      id: {{id}}\n",
    ).read_text()
    path_file = write_scenario(path.replace("scenario: s\n", "scenario: s\n  when: GET /id\n  extract: id from $.id\n"))
    echo.answer("/id", '{"id": 7}', ("Content-Type", "application/json"))
    finished, events = run(path_file)
    assert finished.status == "passed", finished.message
    seen = echo.seen[-1]
    assert seen.headers["content-type"] == "application/x-www-form-urlencoded"
    assert seen.body == b"grant_type=client_credentials&tag=a+b%26c&tag=%C3%A9&id=7"
    sent = [e for e in events if isinstance(e, RequestSent)][-1]
    assert sent.body == seen.body.decode()


def test_multipart_sends_text_and_file_parts_with_names_types_and_a_fresh_boundary(echo, write_scenario):
    path = scenario(
        echo,
        write_scenario,
        '  when: POST /upload\n    multipart:\n      note: "file me"\n      photo: file "my pet.png" image/png\n'
        "      doc: file notes.txt\n",
    )
    (path.parent / "my pet.png").write_bytes(b"\x89PNG\r\n\x00\xff")
    (path.parent / "notes.txt").write_text("hello")
    finished, events = run(path)
    assert finished.status == "passed", finished.message
    (seen,) = echo.seen
    assert seen.headers["content-type"].startswith("multipart/form-data; boundary=")
    parts = parts_of(seen)
    assert [p.get_param("name", header="content-disposition") for p in parts] == ["note", "photo", "doc"]
    assert parts[0].get_payload(decode=True) == b"file me"
    assert parts[1].get_filename() == "my pet.png"
    assert parts[1].get_content_type() == "image/png"
    assert parts[1].get_payload(decode=True) == b"\x89PNG\r\n\x00\xff"
    assert parts[2].get_content_type() == "text/plain"
    sent = [e for e in events if isinstance(e, RequestSent)][-1]
    assert (
        sent.body.startswith('"note": "file me"\n')
        and "\x00" not in sent.body
        and '"photo": file my pet.png (image/png, 8 bytes)' in sent.body
    )


def test_multipart_file_missing_at_run_time_fails_the_step_naming_the_path(echo, write_scenario):
    path = scenario(echo, write_scenario, "  when: POST /upload\n    multipart:\n      photo: file {{name}}.png\n")
    path.write_text(
        path.read_text().replace("scenario: s\n", "scenario: s\n  when: GET /n\n  extract: name from $.n\n")
    )
    echo.answer("/n", '{"n": "absent"}', ("Content-Type", "application/json"))
    finished, _ = run(path)
    assert finished.status == "failed"
    assert "absent.png" in finished.message and "not found" in finished.message
    assert [s.path for s in echo.seen] == ["/n"]  # nothing sent for the upload


def test_body_file_under_a_request_by_path_is_sent_with_its_extension_type(echo, write_scenario):
    path = scenario(echo, write_scenario, "  when: POST /xml\n    bodyFile: pet.xml\n")
    (path.parent / "pet.xml").write_text("<pet>Rex</pet>")
    assert run(path)[0].status == "passed"
    assert echo.seen[0].headers["content-type"] == "application/xml"
    assert echo.seen[0].body == b"<pet>Rex</pet>"


def test_two_body_forms_on_one_step_are_a_located_error(write_scenario):
    path = write_scenario("scenario: s\n  when: POST /x\n    body: {}\n    form:\n      a: b\n")
    with pytest.raises(InvalidFileError) as raised:
        load_valid([str(path)])
    (error,) = raised.value.diagnostics
    assert (error.location.line, error.location.column) == (4, 5)
    assert "one body form" in error.message and "body:" in error.message


def test_form_under_an_operation_call_is_a_body_form(demo, write_scenario):
    path = write_scenario(
        f"parameters:\n  openapi: {PETSTORE}\n  baseUrl: {demo.url}\n"
        "scenario: s\n  when: ^login\n    form:\n      username: demo\n      password: demo\n"
    )
    finished, events = run(path)
    sent = [e for e in events if isinstance(e, RequestSent)][-1]
    assert ("Content-Type", "application/x-www-form-urlencoded") in sent.headers
    assert sent.body == "username=demo&password=demo"


def test_multipart_file_that_resolves_to_nothing_is_a_located_check_error(write_scenario, capsys):
    from scenario_tui.cli.main import main

    path = write_scenario("scenario: s\n  when: POST /upload\n    multipart:\n      photo: file rex.png image/png\n")
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:4:19: error: multipart file 'rex.png' of part 'photo' not found" in err
    (path.parent / "rex.png").write_bytes(b"png")
    assert main(["check", str(path)]) == 0


def test_copy_as_curl_sends_the_same_form_and_multipart_bodies(echo, write_scenario):
    import shutil
    import subprocess

    from scenario_core.report.curl import curl_command

    path = scenario(
        echo,
        write_scenario,
        "  when: POST /login\n    form:\n      name: a b&c\n      tag: é\n"
        '  when: POST /upload\n    multipart:\n      note: "@not a file"\n      photo: file rex.png image/png\n'
        "  when: POST /raw\n    bodyFile: rex.png\n    headers:\n      Content-Type: image/png\n",
    )
    (path.parent / "rex.png").write_bytes(b"\x89PNG\r\n\x00\xff")
    finished, events = run(path)
    assert finished.status == "passed", finished.message
    commands = [curl_command(e) for e in events if isinstance(e, RequestSent)]
    assert "--data-urlencode 'name=a b&c'" in commands[0]
    assert "--form-string 'note=@not a file'" in commands[1] and "-F 'photo=@rex.png;type=image/png'" in commands[1]
    assert "multipart/form-data" not in commands[1]  # curl makes its own boundary
    assert "--data-binary @rex.png" in commands[2]
    if shutil.which("curl") is None:
        return
    sent = list(echo.seen)
    for command in commands:
        subprocess.run(["sh", "-c", command], cwd=path.parent, check=True, capture_output=True, timeout=30)
    again = echo.seen[len(sent) :]
    assert again[0].body == sent[0].body
    assert again[2].body == sent[2].body
    assert [p.get_payload(decode=True) for p in parts_of(again[1])] == [
        p.get_payload(decode=True) for p in parts_of(sent[1])
    ]


def test_form_and_multipart_values_are_reads_for_scope_analysis(write_scenario, capsys):
    from scenario_tui.cli.main import main

    path = write_scenario(
        "scenario: s\n  when: POST http://127.0.0.1:1/a\n    form:\n      user: {{nobody}}\n"
        "  extract: sid from cookie session\n  when: POST http://127.0.0.1:1/b\n    multipart:\n      s: {{sid}}\n"
    )
    main(["check", str(path)])
    err = capsys.readouterr().err
    assert f"{path}:4:15: warning: " in err and "nobody" in err  # an undefined read is seen
    assert "sid" not in err  # a cookie extract defines sid; the multipart value reads it


def test_a_raw_call_sends_form_and_multipart_bodies_with_their_own_types(echo, write_scenario):
    """`call using NAME raw METHOD /path` takes form: and multipart: as a call does (it was an
    internal error: the built bytes were encoded again)."""
    path = write_scenario(
        f"parameters:\n  binding.api.baseUrl: {echo.url}\n"
        "scenario: s\n"
        "  when I log in\n    call using api raw POST /login\n      form:\n        user: rex\n        tag: a b\n"
        "  and I upload\n    call using api raw POST /upload\n      multipart:\n        note: hi\n"
    )
    finished, events = run(path)
    assert finished.status == "passed", finished.message
    form, upload = echo.seen
    assert form.headers["content-type"] == "application/x-www-form-urlencoded"
    assert form.body == b"user=rex&tag=a+b"
    assert upload.headers["content-type"].startswith("multipart/form-data; boundary=")
    assert [p.get_payload(decode=True) for p in parts_of(upload)] == [b"hi"]
    sent = [e for e in events if isinstance(e, RequestSent)]
    assert sent[0].body == "user=rex&tag=a+b" and sent[1].body == '"note": "hi"'
