"""Response sources (docs/spec/requests.md#response-sources): `cookie NAME`, `body`, `regex "…"`
and `xpath "…"` for `extract:` and `then:`, against a real loopback server; XML read safely
(docs/spec/requests.md#safe-xml): a bomb fails its step in one line, an external entity is never read."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenario_core.language.errors import InvalidFileError
from scenario_core.parameters.diagnostics import load_valid
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.events import AssertionChecked, RequestSent, ScenarioFinished
from scenario_core.run.executor import run_to_completion
from tests.core.echo_server import EchoServer

XML = ("Content-Type", "application/xml")
PET_XML = '<?xml version="1.0" encoding="UTF-8"?><pets><pet id="7"><name>Rex</name><tag>dog</tag></pet><pet id="8"><name>Tom</name></pet></pets>'


@pytest.fixture
def echo():
    with EchoServer() as server:
        yield server


def run(echo: EchoServer, write_scenario, steps: str) -> tuple[ScenarioFinished, list]:
    path = write_scenario(f"parameters:\n  baseUrl: {echo.url}\nscenario: s\n" + steps)
    (file,) = load_valid([str(path)])
    events = run_to_completion([file], RunOverrides({}))
    (finished,) = [e for e in events if isinstance(e, ScenarioFinished)]
    return finished, events


def test_cookie_extract_and_assertions_read_the_set_cookie_of_this_response(echo, write_scenario):
    echo.answer("/login", "ok", ("Set-Cookie", "session=abc123; Path=/; HttpOnly"), ("Set-Cookie", "theme=dark"))
    finished, events = run(
        echo,
        write_scenario,
        '  when: POST /login\n  then: cookie session exists\n  then: cookie session == "abc123"\n'
        '  then: cookie theme matches "^d"\n  then: cookie missing not exists\n'
        "  extract: sid from cookie session\n  when: GET /echo?sid={{sid}}\n  then: status 200\n",
    )
    assert finished.status == "passed", finished.message
    assert echo.seen[-1].path == "/echo?sid=abc123"


def test_cookie_no_match_names_the_cookies_the_response_set(echo, write_scenario):
    echo.answer("/login", "ok", ("Set-Cookie", "session=abc; Path=/"), ("Set-Cookie", "theme=dark"))
    finished, _ = run(echo, write_scenario, "  when: POST /login\n  extract: sid from cookie sesion\n")
    assert finished.status == "failed"
    assert finished.message.endswith(
        "cannot extract sid from cookie sesion: the response set no cookie sesion; it set session, theme; "
        "did you mean session?"
    )


def test_body_source_extracts_the_whole_body_and_body_matches(echo, write_scenario):
    echo.answer("/text", "plain words 42")
    finished, events = run(
        echo,
        write_scenario,
        '  when: GET /text\n  then: body matches "words [0-9]+$"\n  extract: all from body\n'
        "  when: GET /again?b={{all}}\n",
    )
    assert finished.status == "passed", finished.message
    assert echo.seen[-1].path == "/again?b=plain words 42".replace(" ", "%20")


def test_regex_extracts_the_first_group_or_the_whole_match(echo, write_scenario):
    echo.answer("/page", '<form><input name="csrf" value="tok-9f2"></form> id=12 id=13', ("Content-Type", "text/html"))
    finished, _ = run(
        echo,
        write_scenario,
        '  when: GET /page\n  extract: csrf from regex "name=\\"csrf\\" value=\\"([^\\"]+)\\""\n'
        '  extract: first from regex "id=\\\\d+"\n'
        '  then: regex "id=(\\\\d+)" == "12"\n  then: regex "id=(\\\\d+)" < 20\n'
        "  when: POST /next?c={{csrf}}&f={{first}}\n",
    )
    assert finished.status == "passed", finished.message
    assert echo.seen[-1].path == "/next?c=tok-9f2&f=id=12"


def test_regex_no_match_fails_the_step_quoting_the_body(echo, write_scenario):
    echo.answer("/page", "nothing here")
    finished, _ = run(echo, write_scenario, '  when: GET /page\n  then: regex "id=(\\\\d+)" exists\n')
    assert finished.status == "failed"
    assert finished.message.endswith(
        'expected regex "id=(\\\\d+)" to exist, regex matched nothing in the body (body: nothing here)'
    )


def test_xpath_reads_text_lists_numbers_strings_and_booleans(echo, write_scenario):
    echo.answer("/pets.xml", PET_XML, XML)
    finished, events = run(
        echo,
        write_scenario,
        '  when: GET /pets.xml\n  then: xpath "/pets/pet[1]/name" == "Rex"\n'
        '  then: xpath "//name" == ["Rex", "Tom"]\n  then: xpath "count(//pet)" == 2\n'
        '  then: xpath "//pet/@id" contains "8"\n  then: xpath "boolean(//tag)" == true\n'
        '  then: xpath "string(//pet[2]/name)" startsWith "T"\n  then: xpath "//name" hasSize 2\n'
        "  extract: id from xpath \"string(//pet[name='Tom']/@id)\"\n  when: GET /pets/{{id}}\n",
    )
    assert finished.status == "passed", finished.message
    assert echo.seen[-1].path == "/pets/8"
    checked = [e for e in events if isinstance(e, AssertionChecked)]
    assert checked[2].actual == 2  # a whole number reads 2


def test_xpath_no_match_names_the_closest_element_names(echo, write_scenario):
    echo.answer("/pets.xml", PET_XML, XML)
    finished, _ = run(echo, write_scenario, '  when: GET /pets.xml\n  extract: n from xpath "//pets/pet/nme"\n')
    assert finished.status == "failed"
    assert finished.message.endswith(
        'cannot extract n from xpath "//pets/pet/nme": xpath selected no node; the closest element names are name'
    )


def test_xpath_on_a_body_that_is_not_xml_says_what_it_is(echo, write_scenario):
    echo.answer("/json", '{"a": 1}', ("Content-Type", "application/json"))
    finished, _ = run(echo, write_scenario, '  when: GET /json\n  then: xpath "/a" exists\n')
    assert finished.status == "failed"
    assert finished.message.endswith('xpath "/a": xpath needs an XML body; the body is JSON (application/json)')


def test_xml_bomb_fails_its_step_in_one_line(echo, write_scenario):
    lol = ['<!ENTITY lol0 "lol">'] + [f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10}">' for i in range(1, 10)]
    bomb = f'<?xml version="1.0"?><!DOCTYPE lolz [{"".join(lol)}]><lolz>&lol9;</lolz>'
    echo.answer("/bomb", bomb, XML)
    finished, _ = run(echo, write_scenario, '  when: GET /bomb\n  then: xpath "string(/lolz)" == "x"\n')
    assert finished.status == "failed"
    assert "\n" not in finished.message
    assert "declares entities in its DOCTYPE; they are refused" in finished.message


def test_external_entity_is_never_read(echo, write_scenario, tmp_path: Path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    xxe = f'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file://{secret}">]><r>&x;</r>'
    echo.answer("/xxe", xxe, XML)
    finished, events = run(echo, write_scenario, '  when: GET /xxe\n  extract: leaked from xpath "string(/r)"\n')
    assert finished.status == "failed"
    assert "TOP-SECRET" not in finished.message
    # and were the DOCTYPE check bypassed, the parser itself resolves no entity
    from lxml import etree

    from scenario_core.run.events import ResponseReceived
    from scenario_core.run.response_sources import _DECLARATION

    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    tree = etree.fromstring(_DECLARATION.sub("", xxe), parser)
    assert "TOP-SECRET" not in "".join(tree.itertext())
    assert ResponseReceived  # the runtime path above is the one under test


def test_external_dtd_is_never_fetched(echo, write_scenario):
    echo.answer("/dtd", f'<!DOCTYPE r SYSTEM "{echo.url}/evil.dtd"><r>ok</r>', XML)
    finished, _ = run(echo, write_scenario, '  when: GET /dtd\n  then: xpath "string(/r)" == "ok"\n')
    assert finished.status == "passed", finished.message
    assert [s.path for s in echo.seen] == ["/dtd"]  # no request for the DTD


@pytest.mark.parametrize(
    "line, message",
    [
        ('  then: regex "(" exists\n', "invalid regular expression"),
        ('  then: xpath "//[" exists\n', "invalid XPath"),
        ("  then: xpath /a exists\n", "xpath takes a JSON string"),
        ('  extract: x from regex "a" trailing\n', "unexpected text after"),
        ("  then: cookie exists\n", "expected an operator after 'cookie exists'"),
    ],
)
def test_sources_written_wrong_are_located_errors(write_scenario, line, message):
    path = write_scenario("scenario: s\n  when: GET http://127.0.0.1:1/\n" + line)
    try:
        (file,) = load_valid([str(path)])
        errors = list(file.local_errors)
    except InvalidFileError as raised:
        errors = list(raised.diagnostics)
    assert errors and errors[0].location.line == 3
    assert message in errors[0].message
    assert RequestSent  # imported for the module's other tests
