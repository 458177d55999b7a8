"""Text preparation: odd Unicode, truncation, and what is not worth extracting."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge_engine.extract.regex import RegexTier
from knowledge_engine.extract.text import prepare, worth_extracting
from knowledge_engine.model.records import Message


def test_plain_text_is_unchanged() -> None:
    assert prepare("Hello Berlin, tab\there\nnext line", 100) == ("Hello Berlin, tab\there\nnext line", False)


def test_control_characters_removed_newlines_and_tabs_kept() -> None:
    text, cut = prepare("a\x00b\x07c\td\ne\x1bf\x7fg\x9fh", 100)
    assert (text, cut) == ("abc\td\nefgh", False)


def test_carriage_returns_and_line_separators_become_newlines() -> None:
    assert prepare("a\r\nb\rc\u2028d\u2029e", 100)[0] == "a\nb\nc\nd\ne"


def test_zero_width_and_bidi_controls_removed() -> None:
    text = "Ali\u200bce \ufeffmet \u202eBob\u202c and \u2066Eve\u2069\u00ad."
    assert prepare(text, 100)[0] == "Alice met Bob and Eve."


def test_zwj_emoji_and_zwnj_scripts_kept() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    persian = "می\u200cخواهم"
    assert prepare(family + " " + persian, 100)[0] == family + " " + persian


def test_rtl_text_kept() -> None:
    text = "שלום עולם and مرحبا بالعالم"
    assert prepare(text, 100)[0] == text


def test_lone_surrogates_replaced_and_pairs_joined() -> None:
    text, _ = prepare("bad \ud800 half, pair \ud83d\ude00 ok", 100)
    assert text == "bad \ufffd half, pair \U0001f600 ok"
    text.encode("utf-8")  # now encodable


def test_nfc_normalisation() -> None:
    assert prepare("Zoe\u0308 Mu\u0308ller", 100)[0] == "Zoë Müller"


def test_truncation_flag_and_word_boundary() -> None:
    text = "word " * 100
    out, cut = prepare(text, 52)
    assert cut is True
    assert len(out) <= 52 and out.endswith("word")
    assert prepare("x" * 10, 10) == ("x" * 10, False)
    out, cut = prepare("y" * 200, 50)  # no space to back off to: hard cut
    assert (out, cut) == ("y" * 50, True)


def test_prepare_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError):
        prepare("x", 0)
    with pytest.raises(TypeError):
        prepare(b"bytes", 10)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", False),
        ("   \n\t ", False),
        ("🎉🔥👍", False),
        ("!!! ... ???", False),
        ("🎉 — ✨ — 🚀", False),
        ("ok", True),
        ("42", True),
        ("東京", True),
        ("مرحبا", True),
        ("🎉 party at Anna's", True),
    ],
)
def test_worth_extracting(text: str, expected: bool) -> None:
    assert worth_extracting(text) is expected


def test_odd_unicode_goes_through_the_regex_tier() -> None:
    raw = "\x00Meet\u200b Anna Berg\ud800 at anna@example.com \u202e2024-03-05\u202c \U0001f600"
    text, _ = prepare(raw, 1000)
    (out,) = RegexTier().extract([Message(id="u", text=text)])
    kinds = {(m.value, m.type) for m in out.mentions}
    assert {("Anna Berg", "unknown"), ("anna@example.com", "email"), ("2024-03-05", "date")} <= kinds


@pytest.mark.slow
def test_one_megabyte_message_is_extracted_without_error() -> None:
    raw = "Anna met Bob at Acme GmbH on 2024-03-05 and paid $20. " * 20_000
    assert len(raw) > 1_000_000
    text, cut = prepare(raw, 32768)
    assert cut and len(text) <= 32768
    (out,) = RegexTier().extract([Message(id="big", text=raw)])
    assert len(out.mentions) > 0


# --------------------------------------------------------------------------- properties

_ODD_CHARS = ["\x00", "\x1b", "\x7f", "\x85", "\u200b", "\u200d", "\u202e", "\ufeff", "\ud800", "\udc00"]
_SCRIPTS = ["é", "e\u0301", "ß", "Ä", "ש", "م", "東", "😀", "\u2028", "\r"]
_ODD_ALPHABET = st.sampled_from([*"aAzZ09 .,@/:-$€'\n\t", *_ODD_CHARS, *_SCRIPTS])
_texts = st.one_of(st.text(max_size=300), st.lists(_ODD_ALPHABET, max_size=300).map("".join))


@settings(max_examples=300, deadline=None)
@given(text=_texts, limit=st.integers(min_value=1, max_value=400))
def test_prepare_properties(text: str, limit: int) -> None:
    out, cut = prepare(text, limit)
    assert len(out) <= limit
    out.encode("utf-8")  # no lone surrogates survive
    assert not any(ord(c) < 32 and c not in "\t\n" for c in out)
    assert "\u200b" not in out and "\ufeff" not in out and "\u202e" not in out
    assert prepare(out, limit) == (out, False)  # idempotent once cut
    if not cut:
        assert len(prepare(text, 10_000)[0]) == len(out)


@settings(max_examples=300, deadline=None)
@given(text=_texts)
def test_regex_tier_never_fails_and_spans_are_consistent(text: str) -> None:
    prepared, _ = prepare(text, 10_000)
    (out,) = RegexTier().extract([Message(id="p", text=prepared)])
    spans = sorted((m.start, m.end) for m in out.mentions)
    for m in out.mentions:
        assert m.value and 0 <= m.start < m.end <= len(prepared)
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans))


def test_every_odd_character_is_unprintable() -> None:
    """prepare's fast path skips the odd-character scan for printable text: exact only if so."""
    from knowledge_engine.extract.text import _ODD

    odd = [chr(c) for c in range(0x110000) if _ODD.match(chr(c))]
    assert odd and not any(c.isprintable() for c in odd)
