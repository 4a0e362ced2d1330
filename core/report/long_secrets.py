"""Where learnt long secrets occur in text: LongSecrets finds every occurrence of any of them
(overlapping ones too) and masks their union; a secret's prefix cut short by a `…` as well.
Learning one costs O(1); a short text is scanned by a window index, a long one by trie-shaped
patterns built in geometric batches (at most log2(n) + 1 of them for n secrets)."""

from __future__ import annotations

import bisect
import re
from typing import Iterable

from scenario_core.support.secrets import ELLIPSIS, LONG_SECRET_LENGTH, MASK, MIN_SECRET_LENGTH

# A trie of secrets: each character maps to the node after it; "" marks the end of a secret.
_Trie = dict[str, "_Trie"]


def _trie_pattern(secrets: Iterable[str]) -> re.Pattern[str]:
    """One regex matching any of the secrets, shaped as a trie (`ab(?:cd|xy)`) so that matching
    costs about the same for 10 or 10,000 secrets; at each node the longer continuation is tried
    first, so a secret containing another is masked whole."""
    trie: _Trie = {}
    for secret in secrets:
        node = trie
        for char in secret:
            node = node.setdefault(char, {})
        node[""] = {}
    # Written pre-order into one list of fragments, iteratively (a secret can be thousands of
    # characters long): building a node's text from its child's would copy a chain of n
    # characters n times over. The stack holds nodes still to write and text written after them.
    out: list[str] = []
    stack: list[_Trie | str] = [trie]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        run = []  # a chain of nodes with one child each: one escaped run of characters
        while len(item) == 1 and "" not in item:
            (key, item), *_ = item.items()
            run.append(key)
        out.append(re.escape("".join(run)))
        branches = [(key, child) for key, child in item.items() if key]
        if not branches:
            continue
        later: list[_Trie | str] = ["(?:"]
        for i, (key, child) in enumerate(branches):
            later += ["|"] * (i > 0) + [re.escape(key), child]
        later.append(")?" if "" in item else ")")
        stack.extend(reversed(later))
    # A lookahead finds a match at every position, overlapping ones too: the longest secret
    # starting at each place, so the union of all occurrences gets masked.
    return re.compile(f"(?=({''.join(out)}))")


# Texts up to this long (messages, headers, summaries: nearly everything printed) are scanned
# by a window index and never wait for a pattern to compile; longer ones (bodies) use patterns.
_SHORT_TEXT = 4096


class LongSecrets:
    """Secrets found wherever they occur. Short texts: every LONG_SECRET_LENGTH-character window
    of the text is looked up among the secrets' first characters, so learning costs nothing and
    a run that learns a secret per scenario compiles nothing. Long texts: batches of patterns
    merged like a binary counter, each secret compiled into O(log n) patterns over a run and a
    text scanned by at most log2(n) + 1 of them. Either way the union of all matches is masked."""

    def __init__(self) -> None:
        self._batches: list[tuple[list[str], re.Pattern[str]]] = []
        self._pending: list[str] = []
        self._by_head: dict[str, list[str]] = {}  # first LONG_SECRET_LENGTH chars -> secrets, longest first
        # The same heads as a set: set.isdisjoint walks the smaller of two sets, but all of a dict.
        self._heads: set[str] = set()
        self._by_prefix: dict[str, list[str]] = {}  # for `…`: first MIN_SECRET_LENGTH chars -> secrets
        self.longest = 0

    def add(self, secret: str) -> None:
        self._pending.append(secret)
        same_head = self._by_head.setdefault(secret[:LONG_SECRET_LENGTH], [])
        self._heads.add(secret[:LONG_SECRET_LENGTH])
        bisect.insort(same_head, secret, key=lambda s: -len(s))  # longest first
        self._by_prefix.setdefault(secret[:MIN_SECRET_LENGTH], []).append(secret)
        self.longest = max(self.longest, len(secret))

    def __bool__(self) -> bool:
        return bool(self._batches or self._pending)

    def _patterns(self) -> list[re.Pattern[str]]:
        if self._pending:
            batch, self._pending = self._pending, []
            while self._batches and len(self._batches[-1][0]) <= len(batch):
                batch = self._batches.pop()[0] + batch
            self._batches.append((batch, _trie_pattern(batch)))
        return [pattern for _, pattern in self._batches]

    def sub(self, text: str) -> str:
        if len(text) <= _SHORT_TEXT:
            spans = self._window_spans(text)
        else:
            spans = sorted((m.start(), m.end(1)) for pattern in self._patterns() for m in pattern.finditer(text))
        if not spans:
            return text
        out, last_end, start, end = [], 0, *spans[0]
        for s, e in spans[1:]:
            if s <= end:  # overlapping or touching: one mask
                end = max(end, e)
                continue
            out += [text[last_end:start], MASK]
            last_end, start, end = end, s, e
        out += [text[last_end:start], MASK, text[end:]]
        return "".join(out)

    def _window_spans(self, text: str) -> list[tuple[int, int]]:
        """Where secrets occur in a short text: at each position, the longest secret starting
        there (a shorter one is inside it). In order of position."""
        heads, width = self._by_head, LONG_SECRET_LENGTH
        windows = {text[i : i + width] for i in range(len(text) - width + 1)}
        if windows.isdisjoint(self._heads):  # the common case, in O(len(text)): no secret here
            return []
        spans = []
        for i in range(len(text) - width + 1):
            for secret in heads.get(text[i : i + width], ()):
                if text.startswith(secret, i):
                    spans.append((i, i + len(secret)))
                    break
        return spans

    def clipped(self, text: str) -> str:
        """Messages clip long values with `…`: a secret cut there leaves a prefix that the
        whole-value search cannot see, so mask any learnt secret's prefix right before a `…`."""
        parts = text.split(ELLIPSIS)
        for i, part in enumerate(parts[:-1]):
            # Longest candidate first; each position costs one dict lookup, and only a position
            # where some secret starts is compared (a slice of the tail per position would make
            # this quadratic in the longest secret's length).
            for start in range(max(0, len(part) - self.longest + 1), len(part) - MIN_SECRET_LENGTH + 1):
                candidates = self._by_prefix.get(part[start : start + MIN_SECRET_LENGTH])
                if not candidates:
                    continue
                tail = part[start:]
                if any(len(s) > len(tail) and s.startswith(tail) for s in candidates):
                    parts[i] = part[:start] + MASK
                    break
        return ELLIPSIS.join(parts)
