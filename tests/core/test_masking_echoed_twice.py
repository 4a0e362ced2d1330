"""Masking property: a secret sent in a JSON body that the server echoes back as a JSON
string (`"body": "{\\"t\\": \\"…\\"}"`) is escaped twice; before, a secret holding `"` or `\\`
showed there in full (the masker knew it once escaped, not twice). For any secret value, any
mix of escaping at either level and any number of echoes: the secret never shows, the JSON stays
valid, and the output stays within a constant factor of the input."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from scenario_core.report.masking import MASK, Masker
from scenario_core.support.secrets import LONG_SECRET_LENGTH

_CHARS = st.one_of(
    st.sampled_from(list('\\"\x00\x01\x1f\n\t /%+é😀\u2028')),
    st.characters(exclude_characters="•", exclude_categories=("Cs",)),
)


@settings(max_examples=200, deadline=None)
@given(
    secret=st.text(_CHARS, min_size=LONG_SECRET_LENGTH, max_size=60).filter(lambda s: s == s.strip()),
    inner_ascii=st.booleans(),
    outer_ascii=st.booleans(),
    echoes=st.integers(1, 20),
    noise=st.text(max_size=40),
)
def test_a_secret_echoed_in_a_json_string_is_masked_at_both_levels_in_linear_size(
    secret, inner_ascii, outer_ascii, echoes, noise
):
    masker = Masker()
    masker.learn_variable("apiToken", secret)
    sent = json.dumps({"t": secret, "noise": noise}, ensure_ascii=inner_ascii)
    echoed = json.dumps({"body": sent, "json": json.loads(sent)}, ensure_ascii=outer_ascii)
    text = "\n".join([echoed] * echoes)
    masked = masker.text(text)
    assert len(masked) <= len(MASK) * len(text) + len(MASK)
    for line in masked.split("\n"):
        shown = json.loads(line)  # still valid JSON, at both levels
        assert json.loads(shown["body"])["t"] == MASK and shown["json"]["t"] == MASK
    assert secret not in masked
    assert json.dumps(secret)[1:-1] not in masked and json.dumps(secret, ensure_ascii=False)[1:-1] not in masked
