"""The regex tier's shortcuts give the same mentions as the plain patterns would.

The tier skips patterns that cannot match (a pre-check per message) and finds proper-noun offsets
without match objects; these tests hold the shortcuts to the patterns themselves.
"""

from __future__ import annotations

import itertools

import pytest

from knowledge_engine.extract.regex import ORGANIZATION, PROPER_NOUN, _runs, find_mentions

_FORMS = """Inc Inc. Incorporated LLC L.L.C. LLP Ltd Ltd. Limited Corp Corp. Corporation Co. GmbH
gGmbH AG KGaA KG OHG UG e.V. SAS SARL SA S.A. SE PLC plc NV N.V. BV B.V. S.p.A. SpA Srl S.r.l. AB ASA
Oyj Oy A/S ApS K.K."""
SUFFIX_FORMS = [*_FORMS.split(), "Pty Ltd", "Pty\tLtd."]
SEPARATORS = (" ", ", ", "\t", ",\t")
TAILS = ("", ".", " now", "'s", "-x", ")")


@pytest.mark.parametrize("suffix", SUFFIX_FORMS)
def test_organization_precheck_lets_every_suffix_through(suffix: str) -> None:
    names = ("Acme", "Big Acme", "Procter & Gamble", "Jean-Luc")
    for name, sep, tail in itertools.product(names, SEPARATORS, TAILS):
        for text in (f"{name}{sep}{suffix}{tail}", f"we met {name}{sep}{suffix}{tail} today. Then"):
            expected = ORGANIZATION.search(text) is not None
            assert not expected or _runs(text)[1], text
            if expected:
                assert any(m.type == "organization" for m in find_mentions(text)), text


@pytest.mark.parametrize(
    "text",
    [
        "Don't worry, Don is here",  # "Don" first appears inside a skipped word
        "the #Ann tag, then Ann",  # ... after a character no run starts after
        "JoAnn and Ann met Ann",
        "x.Ann and Ann's cat",
        "Ann-Marie and Ann",
        "I told Ann I saw Ann Lee",
        "Ann's Ann",
    ],
)
def test_proper_noun_offsets_are_where_the_pattern_matches(text: str) -> None:
    starts = {m.start(): m.group() for m in PROPER_NOUN.finditer(text)}
    for start, run in _runs(text)[0]:
        assert starts.get(start) == run, (text, start, run)
    for m in find_mentions(text):
        assert text[m.start : m.end] == m.value or text[m.start :].startswith(m.value.split()[0]), (text, m)
