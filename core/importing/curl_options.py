"""curl's command-line options, read as curl reads them: long options (`--header VALUE`), short
ones alone or run together (`-sSL`, `-XPOST`, `-HAccept:\\ x`), a value in the next word or
attached. Only what a scenario can say is kept; the rest is ignored (with a note when the option
is unknown to curl as well as to us)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import quote_plus

from scenario_core.importing.model import FilePart
from scenario_core.support.printable import visible

# Options that take a value (long names; short letters below). Their values are read, and all
# but the ones a scenario uses are ignored.
VALUE_OPTIONS = frozenset(
    """
    request header data data-raw data-binary data-ascii data-urlencode json form form-string user cookie url
    user-agent referer output max-time connect-timeout retry retry-delay retry-max-time proxy proxy-user cert
    cacert capath key key-type pass cookie-jar upload-file write-out range resolve connect-to interface
    local-port max-redirs max-filesize limit-rate speed-limit speed-time oauth2-bearer aws-sigv4 config
    dump-header trace trace-ascii stderr unix-socket abstract-unix-socket dns-servers doh-url ciphers
    tls-max expect100-timeout happy-eyeballs-timeout-ms keepalive-time netrc-file proto proto-redir
    proto-default preproxy socks4 socks4a socks5 socks5-hostname noproxy time-cond continue-at
    request-target service-name login-options sasl-authzid variable url-query output-dir create-file-mode
    hsts alt-svc etag-save etag-compare parallel-max
    """.split()
)
_SHORT_VALUES = {
    "X": "request",
    "H": "header",
    "d": "data",
    "F": "form",
    "u": "user",
    "b": "cookie",
    "A": "user-agent",
    "e": "referer",
    "o": "output",
    "m": "max-time",
    "x": "proxy",
    "U": "proxy-user",
    "E": "cert",
    "T": "upload-file",
    "c": "cookie-jar",
    "w": "write-out",
    "r": "range",
    "K": "config",
    "D": "dump-header",
    "C": "continue-at",
    "z": "time-cond",
    "Y": "speed-limit",
    "y": "speed-time",
    "P": "ftp-port",
    "Q": "quote",
    "t": "telnet-option",
}
_SHORT_FLAGS = {"I": "head", "G": "get"}
_KNOWN_SHORT_FLAGS = set("sSvikLfNnqjlORZMVh0123456#aBgp") | set(_SHORT_FLAGS)
# Flags a scenario has nothing to say about: read and ignored without a note.
FLAGS = frozenset(
    """
    compressed location location-trusted insecure silent show-error verbose include fail fail-with-body
    no-buffer http1.0 http1.1 http2 http2-prior-knowledge http3 http3-only globoff raw no-keepalive
    tcp-nodelay ipv4 ipv6 progress-bar no-progress-meter path-as-is tlsv1 tlsv1.0 tlsv1.1 tlsv1.2 tlsv1.3
    sslv2 sslv3 remote-name remote-name-all remote-time remote-header-name create-dirs anyauth basic digest
    ntlm negotiate junk-session-cookies post301 post302 post303 ssl ssl-reqd ssl-no-revoke compressed-ssh
    fail-early styled-output no-styled-output tr-encoding xattr disable disable-eprt disable-epsv
    proxy-insecure proxy-basic proxy-digest proxy-ntlm proxy-anyauth suppress-connect-headers
    retry-all-errors retry-connrefused head get next
    """.split()
)
_TEXT_TYPE = re.compile(r";type=[\w.+/-]+$")
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


@dataclass
class CurlOptions:
    """What the options of one command say, in the order given."""

    url: str | None = None
    request: str | None = None
    head: bool = False
    get: bool = False
    headers: list[tuple[str, str]] = field(default_factory=list)
    data: list[str] = field(default_factory=list)
    data_file: str | None = None
    json_data: str | None = None
    form_parts: list[tuple[str, str | FilePart]] = field(default_factory=list)
    user: str | None = None
    cookies: list[str] = field(default_factory=list)
    upload_file: str | None = None
    notes: list[str] = field(default_factory=list)

    @classmethod
    def parse(cls, words: list[str]) -> CurlOptions:
        options = cls()
        positional: list[str] = []
        at = 0
        only_positional = False
        while at < len(words):
            word = words[at]
            at += 1
            if only_positional or not word.startswith("-") or word == "-":
                positional.append(word)
            elif word == "--":
                only_positional = True
            elif word.startswith("--"):
                name = word[2:]
                if name.startswith("no-") and name[3:] in FLAGS:
                    continue
                if name in VALUE_OPTIONS:
                    if at >= len(words):
                        raise ValueError(f"--{name} needs a value")
                    options._option(name, words[at])
                    at += 1
                elif name in FLAGS:
                    options._flag(name)
                else:
                    options.notes.append(f"ignored {word}: an option scenario-tui does not import")
            else:
                at = options._short(word, words, at)
        urls = [p for p in positional if "://" in p] or positional
        if options.url is None and urls:
            options.url = urls[0]
        if len(positional) > 1:
            options.notes.append(f"the command names {len(positional)} URLs; imported {options.url} only")
        return options

    def _short(self, word: str, words: list[str], at: int) -> int:
        """A run of short options (`-sSL`, `-XPOST`); the index of the next word."""
        letters = word[1:]
        index = 0
        while index < len(letters):
            letter = letters[index]
            index += 1
            if letter in _SHORT_VALUES:
                value = letters[index:]
                if not value:
                    if at >= len(words):
                        raise ValueError(f"-{letter} needs a value")
                    value = words[at]
                    at += 1
                self._option(_SHORT_VALUES[letter], value)
                return at
            if letter in _SHORT_FLAGS:
                self._flag(_SHORT_FLAGS[letter])
            elif letter not in _KNOWN_SHORT_FLAGS:
                self.notes.append(f"ignored -{letter}: an option scenario-tui does not import")
        return at

    def _flag(self, name: str) -> None:
        if name == "head":
            self.head = True
        elif name == "get":
            self.get = True

    def _option(self, name: str, value: str) -> None:
        if name == "request":
            self.request = value
        elif name == "url":
            self.url = value
        elif name == "header":
            self._header(value)
        elif name in ("data", "data-ascii", "data-binary"):
            if value.startswith("@"):
                self._data_file(value[1:])
            else:
                self.data.append(value.replace("\r", "").replace("\n", "") if name != "data-binary" else value)
        elif name == "data-raw":
            self.data.append(value)
        elif name == "data-urlencode":
            head = value.split("=", 1)[0]
            if "=" not in value and "@" in value or "@" in head and "=" not in value:
                self.notes.append(
                    f"left out --data-urlencode {value}: it reads a file; write its content into the form"
                )
            else:
                self.data.append(_urlencoded(value))
        elif name == "json":
            if value.startswith("@"):
                self._data_file(value[1:])
            else:
                self.json_data = (self.json_data or "") + value
            self._default_header("Content-Type", "application/json")
            self._default_header("Accept", "application/json")
        elif name in ("form", "form-string"):
            self.form_parts.append(_form_part(value, literal=name == "form-string", notes=self.notes))
        elif name == "user":
            self.user = value if ":" in value else value + ":"
        elif name == "cookie":
            if "=" in value:
                self.cookies.append(value)
            else:
                self.notes.append(f"left out the cookie file {value}: give its cookies as a Cookie header")
        elif name == "upload-file":
            self.upload_file = value
        elif name == "oauth2-bearer":
            self.headers.append(("Authorization", f"Bearer {value}"))
        elif name == "user-agent":
            self.headers.append(("User-Agent", value))
        elif name == "referer":
            self.headers.append(("Referer", value))

    def _header(self, value: str) -> None:
        if value.startswith("@"):
            self.notes.append(f"left out the header file {value[1:]}")
            return
        if value.startswith(":"):  # an HTTP/2 pseudo-header (`:authority`) some browsers copied
            self.notes.append(f"left out the HTTP/2 pseudo-header {visible(value.split(':')[1])}")
            return
        name, colon, rest = value.partition(":")
        if not _HEADER_NAME.fullmatch(name.strip().removesuffix(";") if not colon else name.strip()):
            raise ValueError(f"-H {visible(value[:60])!r}: not a `Name: value` header")
        if not colon:
            if name.endswith(";"):  # `-H 'X-Empty;'`: a header sent empty
                self.headers.append((name[:-1].strip(), ""))
            return
        if rest.strip():  # `-H 'Accept:'` removes a header curl would send: nothing to write
            self.headers.append((name.strip(), rest.strip()))

    def _default_header(self, name: str, value: str) -> None:
        if not any(n.lower() == name.lower() for n, _ in self.headers):
            self.headers.append((name, value))

    def _data_file(self, path: str) -> None:
        if path == "-":
            self.notes.append("left out a body read from standard input (@-): write it into the file")
            return
        self.data_file = path

    def method(self) -> str:
        if self.request:
            return self.request.upper()
        if self.head:
            return "HEAD"
        if self.get:
            return "GET"
        if self.data or self.form_parts or self.data_file is not None or self.json_data is not None:
            return "POST"
        if self.upload_file is not None:
            return "PUT"
        return "GET"

    def query_fields(self) -> list[tuple[str, str]]:
        """`-G`: the data as query fields."""
        from urllib.parse import parse_qsl

        fields: list[tuple[str, str]] = []
        for piece in self.data:
            fields += parse_qsl(piece, keep_blank_values=True) if "=" in piece else [(piece, "")]
        return fields


def _urlencoded(value: str) -> str:
    """`--data-urlencode`'s forms: `content`, `=content`, `name=content` (the `@file` forms are
    left out with a note by the caller)."""
    name, equals, content = value.partition("=")
    if not equals:
        return quote_plus(value)
    if not name:
        return quote_plus(content)
    return f"{name}={quote_plus(content)}"


def _form_part(value: str, literal: bool, notes: list[str]) -> tuple[str, str | FilePart]:
    """`-F name=value`, `-F name=@path;type=image/png`, `-F name=<path`."""
    name, equals, content = value.partition("=")
    if not equals:
        raise ValueError(f"-F {value!r} is not name=value")
    if literal:
        return name, content
    if content.startswith(("@", "<")):
        pieces = content[1:].split(";")
        path = pieces[0].strip('"')
        media = next((p[len("type=") :] for p in pieces[1:] if p.startswith("type=")), None)
        if content.startswith("<"):
            notes.append(f"the part {name} is read from {path}: sent as a file part")
        return name, FilePart(path, media)
    if len(content) >= 2 and content[0] == '"' and content.endswith('"'):
        return name, content[1:-1]
    return name, _TEXT_TYPE.sub("", content)


def multipart_from_raw(data: str, content_type: str) -> list[tuple[str, str | FilePart]] | None:
    """A multipart body copied as raw data (Chrome's `--data-raw $'------WebKitFormBoundary…'`)
    read back into its parts; a file part (its bytes are never in the copy) names its filename.
    None when the data does not hold that content type's parts."""
    match = re.search(r'boundary="?([^";]+)"?', content_type, re.IGNORECASE)
    if match is None:
        return None
    delimiter = "--" + match.group(1)
    chunks = data.split(delimiter)
    if len(chunks) < 3:
        return None
    parts: list[tuple[str, str | FilePart]] = []
    for chunk in chunks[1:-1]:
        chunk = chunk[2:] if chunk.startswith("\r\n") else chunk.lstrip("\n")
        head, separator, body = chunk.partition("\r\n\r\n")
        if not separator:
            head, separator, body = chunk.partition("\n\n")
        disposition = re.search(r'content-disposition:[^\r\n]*?\bname="([^"]*)"', head, re.IGNORECASE)
        if disposition is None:
            return None
        filename = re.search(r'\bfilename="([^"]*)"', head, re.IGNORECASE)
        media = re.search(r"content-type:\s*([^\r\n;]+)", head, re.IGNORECASE)
        if filename is not None:
            parts.append(
                (disposition.group(1), FilePart(filename.group(1) or "file", media.group(1) if media else None))
            )
        else:
            parts.append((disposition.group(1), body[:-2] if body.endswith("\r\n") else body.rstrip("\n")))
    return parts
