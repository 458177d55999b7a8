"""The FTS5 query builder: stop words, case, phrases, prefixes, caps, and no syntax from user text."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge_engine.store.keyword import QueryBuilder, build_query, quote


def _fts() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='porter unicode61 remove_diacritics 2')")
    return conn


def test_stop_words_fillers_and_case_are_dropped() -> None:
    q = build_query("What do you REMEMBER about the Halcyon Project? Tell me, I think...")
    assert q.terms == ("halcyon", "project")
    assert q.expression == '"halcyon" OR "project"'


def test_only_stop_words_and_short_tokens_is_empty() -> None:
    for text in ["", "   ", "the and of", "a b c", "?!...", "AND", "OR NOT", "*", '"', ")", "-x", "I"]:
        assert build_query(text).empty, text


def test_duplicates_collapse() -> None:
    assert build_query("budget Budget BUDGET").terms == ("budget",)


def test_phrase_is_required_and_other_words_only_rank() -> None:
    q = build_query('"solar panel" inverter')
    assert q.phrases == ("solar panel",)
    assert q.terms == ("inverter",)
    assert q.expression == '"solar panel" AND ("solar panel" OR "inverter")'


def test_phrase_keeps_its_stop_words() -> None:
    assert build_query('"the cat sat"').expression == '"the cat sat"'


def test_unbalanced_quote_is_a_separator() -> None:
    q = build_query('foo" OR "bar')  # the quotes pair up as the phrase " OR " which has no words
    assert q.expression == '"foo" OR "bar"'
    assert build_query('budget "review').expression == '"budget" OR "review"'


def test_prefix_needs_three_characters() -> None:
    assert build_query("deplo*").expression == '"deplo" *'
    assert build_query("de*").expression == '"de"'
    assert build_query("x*").empty


def test_term_cap_and_huge_input() -> None:
    words = " ".join(f"word{i}" for i in range(10000))
    q = build_query(words)
    assert len(q.terms) == 32 and q.truncated
    assert len(QueryBuilder(max_terms=5).build(words).terms) == 5
    assert build_query("budget " * 500_000).terms == ("budget",)


def test_extra_stop_words() -> None:
    assert QueryBuilder(extra_stop_words=["Halcyon"]).build("halcyon budget").terms == ("budget",)


def test_quote_doubles_embedded_quotes() -> None:
    assert quote('a"b') == '"a""b"'


def test_odd_unicode_is_tokenized() -> None:
    q = build_query("Café ＨＡＬＣＹＯＮ naïve 東京 \u200b\u202e zero\x00byte \ud800 🙂")
    assert "café" in q.terms and "halcyon" in q.terms and "東京" in q.terms
    assert "zero" in q.terms and "byte" in q.terms


RAW_ATTACKS = ['foo" OR "bar', "NEAR(a b)", "text:secret", "*", '"', ")", "AND", "-x", "{text}: x", "^start"]


@pytest.mark.parametrize("attack", RAW_ATTACKS)
def test_built_expressions_always_parse(attack: str) -> None:
    conn = _fts()
    conn.execute("INSERT INTO t(text) VALUES ('foo bar secret text start')")
    expr = build_query(attack).expression
    if expr:
        conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (expr,)).fetchall()


def test_raw_user_text_would_break_fts() -> None:
    """Control: the attacks are real FTS5 syntax errors when passed through unquoted."""
    conn = _fts()
    for attack in [")", "AND", '"', "*", "NEAR("]:
        with pytest.raises(sqlite3.OperationalError):
            conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (attack,)).fetchall()


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_builds_a_parsable_expression(text: str) -> None:
    expr = build_query(text).expression
    if expr:
        _fts().execute("SELECT rowid FROM t WHERE t MATCH ?", (expr,)).fetchall()


def test_keep_only_restricts_optional_parts_and_keeps_phrases() -> None:
    q = build_query("alpha beta gamm*")
    assert q.optional_parts() == ['"alpha"', '"beta"', '"gamm" *']
    assert q.keep_only(['"beta"', '"gamm" *']).expression == '"beta" OR "gamm" *'
    p = build_query('"solar panel" alpha beta')
    assert p.keep_only(['"beta"']).expression == '"solar panel" AND ("solar panel" OR "beta")'
