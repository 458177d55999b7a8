"""The regex tier's shortcuts give the same mentions as the plain patterns would.

The tier skips patterns that cannot match (a pre-check per message) and finds proper-noun offsets
without match objects; these tests hold the shortcuts to the patterns themselves.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge_engine.extract.regex import (
    ORGANIZATION,
    PATTERNS,
    PROPER_NOUN,
    PROPER_NOUN_ASCII,
    _needs_other_patterns,
    _runs,
    find_mentions,
)

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


_ASCII_PIECES = st.sampled_from(
    [
        "A",
        "Ann",
        "I",
        "O'Neil",
        "Jean-Luc",
        "McD",
        "x",
        "a",
        "_",
        "9",
        "'",
        "-",
        "@",
        "/",
        ".",
        "#",
        "&",
        " ",
        "  ",
        "\n",
        "\t",
        ",",
        "s",
        "Co",
        "LLC",
        "ABC",
        "Q3",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_ASCII_PIECES, max_size=30).map("".join))
def test_the_ascii_pattern_finds_the_same_runs_on_ascii_text(text: str) -> None:
    assert [m.span() for m in PROPER_NOUN_ASCII.finditer(text)] == [
        m.span() for m in PROPER_NOUN.finditer(text)
    ]


_OTHER_PIECES = st.sampled_from(
    [
        "a",
        "B",
        " ",
        ".",
        "@",
        "x",
        "com",
        "www",
        "WWW",
        "Ww",
        "://",
        "http",
        "1",
        "٣",
        "2024-03-05",
        "$",
        "€5",
        "12",
        "/",
        ":",
        "-",
        "iPhone",
        "GPT",
        "EUR",
        "Mar",
        "é",
        "3.5",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_OTHER_PIECES, max_size=20).map("".join))
def test_the_precheck_lets_every_other_pattern_through(text: str) -> None:
    others = [p for name, p in PATTERNS.items() if name not in ("proper_noun", "organization")]
    if any(p.search(text) for p in others):
        assert _needs_other_patterns(text), text


@pytest.mark.parametrize(
    "text",
    [
        "see http://example.org now",
        "or ftp://files.example.org",
        "at www.example.org",
        "AT WWW.EXAMPLE.ORG",
        "mail bob@example.org",
        "on 5 May",
        "cost ١٢ EUR",
        "Émile paid €5",
        "Zoë: see https://example.org",
    ],
)
def test_the_precheck_lets_links_mail_and_digits_through(text: str) -> None:
    assert _needs_other_patterns(text)
    assert any(m.type != "unknown" for m in find_mentions(text))
