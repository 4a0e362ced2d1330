"""Reading `cookie NAME`, `body`, `regex "PATTERN"` and `xpath "EXPR"` from a response
(docs/spec/requests.md#response-sources), for `extract:` and `then:` alike.

XML is read safely (docs/spec/requests.md#safe-xml): libxml2 through lxml with no entity
resolution, no DTD loading, no network and no huge-tree mode, and a document whose DOCTYPE
declares entities is refused before parsing, so neither an external entity (a file read) nor an
expansion bomb can happen. Every problem is one line."""

from __future__ import annotations

import difflib
import math
import re
from typing import TYPE_CHECKING, Iterator, Mapping, Protocol

from scenario_core.run.comparison import MATCH_SECONDS, MISSING
from scenario_core.run.events import ResponseReceived

if TYPE_CHECKING:
    from scenario_core.language.nodes.assertions import SourceAssertion
    from scenario_core.run.comparison import Outcome


class XmlElement(Protocol):
    """What is read of an lxml element (lxml has no type information)."""

    @property
    def tag(self) -> object: ...  # a str, or a function for a comment or processing instruction

    def iter(self) -> Iterator[XmlElement]: ...


_DECLARATION = re.compile(r"\A\s*<\?xml[^>]*\?>")
_ENTITY = re.compile(r"<!ENTITY")
_NAME = re.compile(r"[A-Za-z_][\w.-]*")
# XPath 1.0's functions and axes: words of an expression that are not element names.
_XPATH_WORDS = frozenset(
    "and or div mod text node comment processing-instruction last position count id local-name namespace-uri name "
    "string concat starts-with contains substring-before substring-after substring string-length normalize-space "
    "translate boolean not true false lang number sum floor ceiling round ancestor ancestor-or-self attribute child "
    "descendant descendant-or-self following following-sibling namespace parent preceding preceding-sibling self".split()
)


class SourceFailure(Exception):
    """The source cannot be read from this response at all (not XML, a refused DOCTYPE, a
    pattern stopped by its time bound): the step fails with this one line."""


def read(kind: str, argument: str, response: ResponseReceived, time_limit: float = MATCH_SECONDS) -> tuple[object, str]:
    """(value, subject) — value MISSING with `subject` then saying what is there instead."""
    if kind == "cookie":
        return _cookie(argument, response)
    if kind == "text":
        return response.body, "body"
    if kind == "regex":
        return _regex(argument, response, time_limit)
    return _xpath(argument, response)


def _cookie(name: str, response: ResponseReceived) -> tuple[object, str]:
    found: list[str] = []
    for header, value in response.headers:
        if header.lower() != "set-cookie":
            continue
        pair = value.split(";", 1)[0]
        cookie, equals, cookie_value = pair.partition("=")
        if equals and cookie.strip() == name:
            return cookie_value.strip(), ""
        if equals:
            found.append(cookie.strip())
    if not found:
        return MISSING, f"the response set no cookie {name} (it has no Set-Cookie header)"
    close = difflib.get_close_matches(name, found, 1)
    hint = f"; did you mean {close[0]}?" if close else ""
    return MISSING, f"the response set no cookie {name}; it set {', '.join(found)}{hint}"


def _regex(pattern: str, response: ResponseReceived, time_limit: float) -> tuple[object, str]:
    import regex

    body = response.body
    try:
        match = regex.search(pattern, body, timeout=time_limit)
    except TimeoutError:
        raise SourceFailure(
            f"the regular expression {pattern!r} took over {time_limit:g} s on a {len(body)}-character body "
            "and was stopped; make it simpler"
        ) from None
    except regex.error as error:  # a pattern from a variable: checked here
        raise SourceFailure(f"invalid regular expression {pattern!r}: {error}") from None
    if match is None:
        snippet = " ".join(body.split())
        shown = snippet if len(snippet) <= 100 else snippet[:99] + "…"
        return MISSING, f"regex matched nothing in the body ({f'body: {shown}' if shown else 'the body is empty'})"
    if match.re.groups:
        return match.group(1) or "", ""
    return match.group(0), ""


def xml_tree(response: ResponseReceived) -> XmlElement:
    """The body as an lxml tree, read safely; SourceFailure saying what the body is otherwise.
    An HTML body (its Content-Type says html) is read by libxml2's HTML parser, which loads nothing."""
    from lxml import etree

    body = response.body
    media = (response.header("Content-Type") or "").lower()
    if not body.strip():
        raise SourceFailure("xpath needs an XML body; the response has none")
    if "html" in media:
        parser = etree.HTMLParser(no_network=True, huge_tree=False, remove_pis=True)
        tree: XmlElement | None = etree.fromstring(body, parser)
        if tree is None:
            raise SourceFailure("xpath could not read the HTML body")
        return tree
    if response.is_json:
        raise SourceFailure(f"xpath needs an XML body; the body is JSON ({media or 'no Content-Type'})")
    if _ENTITY.search(body):
        raise SourceFailure(
            "the XML body declares entities in its DOCTYPE; they are refused (an entity can read a file "
            "or expand without bound)"
        )
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False, dtd_validation=False
    )
    try:
        root: XmlElement = etree.fromstring(_DECLARATION.sub("", body, count=1), parser)
        return root
    except etree.XMLSyntaxError as error:
        detail = str(error).splitlines()[0] if str(error) else "not well-formed"
        kind = media or "no Content-Type"
        raise SourceFailure(f"xpath needs an XML body; the body ({kind}) is not XML: {detail}") from None


def _xpath(expression: str, response: ResponseReceived) -> tuple[object, str]:
    from lxml import etree

    tree = xml_tree(response)
    try:
        result = etree.XPath(expression, smart_strings=False)(tree)
    except etree.XPathError as error:
        raise SourceFailure(f"cannot evaluate xpath {expression!r}: {error}") from None
    if isinstance(result, bool):
        return result, ""
    if isinstance(result, float):
        return (int(result) if math.isfinite(result) and result.is_integer() else result), ""
    if isinstance(result, (str, bytes)):
        return str(result), ""
    values = [_node_text(node) for node in result]
    if not values:
        return MISSING, f"xpath selected no node; {_names_hint(expression, tree)}"
    return (values[0] if len(values) == 1 else values), ""


def _node_text(node: object) -> object:
    if isinstance(node, (str, bytes)):
        return str(node)
    if isinstance(node, tuple):  # a namespace node: (prefix, URI)
        return node[1]
    return "".join(node.itertext()) if hasattr(node, "itertext") else str(node)


def _names_hint(expression: str, tree: XmlElement) -> str:
    """The element names of the document closest to those the expression asks for."""
    names: list[str] = []
    namespaces: set[str] = set()
    for element in tree.iter():
        tag = element.tag
        if not isinstance(tag, str):
            continue
        if tag.startswith("{"):
            namespace, _, tag = tag[1:].partition("}")
            namespaces.add(namespace)
        if tag not in names:
            names.append(tag)
        if len(names) >= 200:
            break
    asked = [w for w in _NAME.findall(expression) if w not in _XPATH_WORDS and w not in names]
    close: list[str] = []
    for word in asked:
        close += [c for c in difflib.get_close_matches(word, names, 2) if c not in close]
    shown = ", ".join(close or names[:10])
    hint = f"the closest element names are {shown}" if close else f"the body's elements are {shown}"
    if namespaces:
        hint += f" (in namespace {sorted(namespaces)[0]}: select them with local-name(), as in //*[local-name()='x'])"
    return hint


def check_source(
    assertion: SourceAssertion, response: ResponseReceived, variables: Mapping[str, object], time_limit: float
) -> Outcome:
    """`then: cookie NAME OP V`, `regex "…" OP V`, `xpath "…" OP V`: a JSON path's operators on
    the value the source reads."""
    from scenario_core.language.templates import render_json
    from scenario_core.run.comparison import ORDER, SAME, Outcome, is_number, negation, verdict

    expected = render_json(assertion.expected, variables) if assertion.expected is not None else None
    subject = assertion.written
    try:
        actual, nothing = read(assertion.source, assertion.argument, response, time_limit)
    except SourceFailure as failure:
        return Outcome(False, expected, None, f"{subject}: {failure}", undecided=True)
    compared: object = SAME
    if isinstance(actual, str) and negation(assertion.operator)[1] in ORDER and is_number(expected):
        try:
            compared = float(actual)  # text read from the body: compared as a number when asked to be
        except ValueError:
            pass
    return verdict(
        subject,
        assertion.operator,
        actual,
        expected,
        (nothing, nothing),
        condition=False,
        time_limit=time_limit,
        compared=compared,
    )


def extract_source(
    kind: str, argument: str, written: str, name: str, response: ResponseReceived
) -> tuple[object, str | None]:
    """extract: NAME from cookie / body / regex / xpath: (value, None) or (None, why not)."""
    try:
        value, nothing = read(kind, argument, response)
    except SourceFailure as failure:
        return None, f"cannot extract {name} from {written}: {failure}"
    if value is MISSING:
        return None, f"cannot extract {name} from {written}: {nothing}"
    return value, None
