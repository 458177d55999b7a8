"""The message log: idempotent append, reads and filters, BM25 search, retention, redaction, odd input."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from knowledge_engine.config import MemoryConfig
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters
from knowledge_engine.store.messages import MESSAGES_FILE, MessageLog, MessageLogError

T0 = datetime(2026, 1, 1, tzinfo=UTC)
FILLER = [
    "we walked along the river in the morning",
    "lunch was a sandwich and some soup",
    "the printer on floor three is jammed again",
    "my sister visited over the weekend",
    "the train was late by twenty minutes",
    "please water the plants on friday",
    "the new chairs arrived in the office",
    "rain is expected for most of the week",
    "the kids played football after school",
    "dinner reservations are at eight tonight",
]


def msg(i: int | str, text: str, **kw: object) -> Message:
    fields: dict[str, object] = {"timestamp": T0 + timedelta(minutes=int(i) if str(i).isdigit() else 0)}
    fields.update(kw)
    return Message(id=str(i), text=text, **fields)


@pytest.fixture
def log(workspace: Path) -> Iterator[MessageLog]:
    with MessageLog(workspace) as opened:
        yield opened


def fill(log: MessageLog, start: int = 1000) -> None:
    log.append_many(msg(start + i, t) for i, t in enumerate(FILLER))


def ids(results: list[tuple[Message, float]]) -> list[str]:
    return [m.id for m, _ in results]


# ------------------------------------------------------------------ append and read


def test_workspace_dir_opens_the_default_file(workspace: Path, log: MessageLog) -> None:
    assert log.path == workspace / MESSAGES_FILE
    log.append(msg(1, "hello"))
    assert (workspace / MESSAGES_FILE).exists()


def test_append_is_idempotent_on_id(log: MessageLog) -> None:
    assert log.append(msg(1, "first version")) is True
    assert log.append(msg(1, "second version")) is False
    assert log.get("1").text == "first version"  # type: ignore[union-attr]
    assert log.append_many([msg(1, "again"), msg(2, "new"), msg(2, "dup in batch"), msg(3, "new")]) == 2
    assert log.count() == 3


def test_roundtrip_keeps_every_field(log: MessageLog) -> None:
    ts = datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=UTC)
    m = Message(id="x", text="hi", role="assistant", session="s1", speaker="Bot", agent_id="a1", timestamp=ts)
    log.append(m)
    assert log.get("x") == m
    assert log.get("missing") is None


def test_naive_timestamp_is_utc(log: MessageLog) -> None:
    log.append(Message(id="n", text="x", timestamp=datetime(2026, 1, 1, 12, 0)))
    assert log.get("n").timestamp == datetime(2026, 1, 1, 12, 0, tzinfo=UTC)  # type: ignore[union-attr]


def test_get_many_keeps_the_requested_order(log: MessageLog) -> None:
    log.append_many([msg(1, "a"), msg(2, "b"), msg(3, "c")])
    assert [m.id for m in log.get_many(["3", "nope", "1", "3"])] == ["3", "1"]
    assert len(log.get_many([str(i) for i in range(2000)])) == 3


def test_iter_filters_order_and_paging(log: MessageLog) -> None:
    msgs = [
        msg(i, f"m{i}", session="s1" if i % 2 else "s2", role="user" if i % 3 else "assistant")
        for i in range(1, 1301)
    ]
    log.append_many(reversed(msgs))  # arrival order differs from event time
    got = list(log.iter())
    assert [m.id for m in got] == [str(i) for i in range(1, 1301)]
    assert [m.id for m in log.iter(order="desc", limit=3)] == ["1300", "1299", "1298"]
    assert len(list(log.iter(limit=777))) == 777
    s1 = list(log.iter(session="s1"))
    assert len(s1) == 650 and all(m.session == "s1" for m in s1)
    since = T0 + timedelta(minutes=1201)
    assert [m.id for m in log.iter(since=since)] == [str(i) for i in range(1201, 1301)]
    assert log.count(since=since) == 100
    assert log.count(until=since) == 1200
    assert log.count(role="assistant") == 433 == len(list(log.iter(role="assistant")))
    assert log.count(session="s2", role="assistant") == len(list(log.iter(session="s2", role="assistant")))
    with pytest.raises(ValueError):
        list(log.iter(order="sideways"))  # type: ignore[arg-type]


def test_roles_from_config_are_kept_others_counted(workspace: Path) -> None:
    before = counters.get("memory.role_skipped")
    with MessageLog.from_config(workspace, MemoryConfig(roles=["user"])) as log:
        assert log.append(msg(1, "kept", role="user"))
        assert not log.append(msg(2, "dropped", role="tool"))
        assert log.count() == 1
    assert counters.get("memory.role_skipped") == before + 1


# ------------------------------------------------------------------ search


def test_more_matching_terms_rank_higher(log: MessageLog) -> None:
    fill(log)
    log.append_many(
        [
            msg(1, "the solar panel inverter failed on the roof today"),
            msg(2, "the solar lamp in the garden is broken today sadly"),
        ]
    )
    results = log.search("solar panel inverter")
    assert ids(results)[:2] == ["1", "2"]
    assert results[0][1] > results[1][1] > 0


def test_rare_terms_weigh_more(log: MessageLog) -> None:
    fill(log)
    log.append_many([msg(10 + i, f"invoice number {i} was paid in full") for i in range(6)])
    log.append(msg(1, "the zebra exhibit at the zoo was closed"))
    results = log.search("invoice zebra")
    assert ids(results)[0] == "1"
    assert len(results) == 7


def test_stop_words_case_stemming_diacritics(log: MessageLog) -> None:
    fill(log)
    log.append(msg(1, "Deployed the Halcyon release to the café server"))
    assert ids(log.search("what do you remember about HALCYON?")) == ["1"]
    assert ids(log.search("deploying")) == ["1"]
    assert ids(log.search("cafe")) == ["1"]
    assert log.search("what do you remember about the") == []


def test_phrase_and_prefix(log: MessageLog) -> None:
    fill(log)
    log.append_many([msg(1, "the cat sat on the mat"), msg(2, "the mat sat under the cat")])
    assert ids(log.search('"cat sat"')) == ["1"]
    assert set(ids(log.search("cat sat"))) == {"1", "2"}
    log.append(msg(3, "quarterly revenue grew"))
    assert ids(log.search("reven*")) == ["3"]


def test_search_filters(log: MessageLog) -> None:
    log.append_many(
        [
            msg(1, "budget review", session="a", role="user"),
            msg(2, "budget review", session="b", role="assistant"),
            msg(3, "budget review", session="a", role="assistant"),
        ]
    )
    fill(log)
    assert ids(log.search("budget", session="a", role="assistant")) == ["3"]
    assert set(ids(log.search("budget", since=T0 + timedelta(minutes=2)))) == {"2", "3"}
    assert ids(log.search("budget", until=T0 + timedelta(minutes=2))) == ["1"]
    assert len(log.search("budget", limit=2)) == 2


INJECTIONS = [
    'foo" OR "bar',
    "NEAR(a b)",
    "text:secret",
    "*",
    '"',
    ")",
    "AND",
    "-x",
    "{text}:secret",
    "secret*",
]


@pytest.mark.parametrize("attack", INJECTIONS)
def test_injection_never_raises_nor_overmatches(log: MessageLog, attack: str) -> None:
    fill(log)
    log.append_many(
        [
            msg(1, "foo is here"),
            msg(2, "bar is here"),
            msg(3, "the secret code"),
            msg(4, "plain text only"),
            msg(5, "near the a b station"),
            msg(6, "x marks the spot"),
        ]
    )
    errors = counters.get("memory.search_error")
    found = {m.id: m.text for m, _ in log.search(attack)}
    assert counters.get("memory.search_error") == errors
    expected = {
        'foo" OR "bar': {"1", "2"},
        "NEAR(a b)": set(),
        "text:secret": {"3", "4"},
        "*": set(),
        '"': set(),
        ")": set(),
        "AND": set(),
        "-x": set(),
        "{text}:secret": {"3", "4"},
        "secret*": {"3"},
    }[attack]
    assert set(found) == expected


def test_search_of_empty_log_and_empty_query(log: MessageLog) -> None:
    assert log.search("anything") == []
    log.append(msg(1, "anything at all"))
    assert log.search("") == []
    assert log.search("   the of and  ") == []


# ------------------------------------------------------------------ delete, redact, retention


def test_delete_and_delete_session(log: MessageLog) -> None:
    log.append_many(
        [msg(1, "alpha one", session="s"), msg(2, "alpha two", session="s"), msg(3, "alpha three")]
    )
    assert log.delete(["1", "nope"]) == 1
    assert log.get("1") is None
    assert ids(log.search("one")) == []
    assert log.delete_session("s") == 1
    assert ids(log.search("alpha")) == ["3"]


def test_redact_by_ids_and_by_predicate(log: MessageLog) -> None:
    fill(log)
    log.append_many(
        [
            msg(1, "Alice Moreau called about the lease"),
            msg(2, "Alice Moreau signed it"),
            msg(3, "Bob called too"),
        ]
    )
    assert log.redact(["3"], "[redacted]") == ["3"]
    assert log.get("3").text == "[redacted]"  # type: ignore[union-attr]
    assert log.search("bob") == []
    changed = log.redact(lambda m: "Moreau" in m.text, lambda t: t.replace("Alice Moreau", "[person]"))
    assert sorted(changed) == ["1", "2"]
    assert log.search("moreau") == [] and log.search("alice") == []
    assert ids(log.search("lease")) == ["1"]
    assert log.get("1").text == "[person] called about the lease"  # type: ignore[union-attr]
    assert log.redact(["1"], lambda t: t) == []  # unchanged text is not reported


def test_retention_by_age(log: MessageLog) -> None:
    log.append_many([msg(i, f"note {i}", timestamp=T0 + timedelta(days=i)) for i in range(10)])
    deleted = log.retain(max_age_days=3, now=T0 + timedelta(days=9, hours=1))
    assert sorted(deleted) == [str(i) for i in range(7)]  # day 6 is older than the cutoff (day 6, 1 am)
    assert [m.id for m in log.iter()] == ["7", "8", "9"]
    assert log.retain(max_age_days=0, max_count=0) == []


def test_retention_by_count_drops_oldest_events(log: MessageLog) -> None:
    log.append_many([msg(i, f"note {i}", timestamp=T0 + timedelta(days=10 - i)) for i in range(10)])
    deleted = log.retain(max_count=4, now=T0)
    assert sorted(deleted, key=int) == ["4", "5", "6", "7", "8", "9"]
    assert log.count() == 4
    assert log.search("note", limit=50) and all(int(m.id) < 4 for m, _ in log.search("note", limit=50))


def test_retention_by_age_and_count(log: MessageLog) -> None:
    log.append_many([msg(i, f"note {i}", timestamp=T0 + timedelta(days=i)) for i in range(10)])
    deleted = log.retain(max_age_days=5.5, max_count=2, now=T0 + timedelta(days=10))
    assert len(deleted) == 8 and len(set(deleted)) == 8
    assert [m.id for m in log.iter()] == ["8", "9"]


# ------------------------------------------------------------------ odd input


def test_one_megabyte_message(log: MessageLog) -> None:
    big = ("lorem ipsum dolor " * 60000)[:1_000_000] + " needleword"
    assert log.append(msg(1, big))
    assert log.get("1").text == big  # type: ignore[union-attr]
    fill(log)
    assert ids(log.search("needleword")) == ["1"]


def test_nul_bytes_survive(log: MessageLog) -> None:
    text = "before\x00after\x00tail"
    log.append(msg(1, text))
    assert log.get("1").text == text  # type: ignore[union-attr]
    fill(log)
    assert ids(log.search("after tail")) == ["1"]  # "after" is a stop word, the word after the NUL is not


def test_odd_unicode_roundtrips_and_is_searchable(log: MessageLog) -> None:
    text = "東京 会議 🙂 \u202emirrored\u202c zero\u200bwidth Ελληνικά naïve ＦＵＬＬ"
    log.append(msg(1, text, speaker="Zoë 🙂", session="s:ü"))
    got = log.get("1")
    assert got is not None and got.text == text and got.speaker == "Zoë 🙂"
    fill(log)
    assert ids(log.search("ελληνικά")) == ["1"]
    assert ids(log.search("naive")) == ["1"]
    assert ids(log.search("東京")) == ["1"]


def test_lone_surrogate_is_replaced_and_counted(log: MessageLog) -> None:
    before = counters.get("memory.text_sanitized")
    assert log.append(msg(1, "broken \ud800 text"))
    assert log.get("1").text == "broken \ufffd text"  # type: ignore[union-attr]
    assert counters.get("memory.text_sanitized") == before + 1


def test_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "messages.sqlite3"
    bad.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(MessageLogError, match="cannot open message log"):
        MessageLog(bad)


def test_newer_schema_is_refused(workspace: Path) -> None:
    with MessageLog(workspace) as log:
        log.conn.execute("PRAGMA user_version = 99")
    with pytest.raises(MessageLogError, match="newer"):
        MessageLog(workspace)


def test_closed_log_raises_clearly(workspace: Path) -> None:
    log = MessageLog(workspace)
    log.close()
    log.close()
    with pytest.raises(MessageLogError, match="closed"):
        log.count()


# ------------------------------------------------------------------ query planning


def test_common_words_are_pruned_beyond_the_match_budget(workspace: Path) -> None:
    with MessageLog(workspace, match_budget=50) as log, MessageLog(workspace, match_budget=0) as exact:
        log.append_many(msg(100 + i, f"status update number {i} for the weekly report") for i in range(200))
        log.append_many(
            [
                msg(1, "weekly report mentions the aurora borealis"),
                msg(2, "aurora seen last night"),
                msg(3, "photos of the aurora over the lake"),
            ]
        )
        before = counters.get("memory.search_terms_pruned")
        pruned = log.search("aurora weekly report", limit=50)
        assert counters.get("memory.search_terms_pruned") == before + 2
        assert sorted(ids(pruned)) == ["1", "2", "3"]  # rows matching only the common words are not scored
        full = exact.search("aurora weekly report", limit=50)
        assert len(full) == 50  # without a budget every 'weekly'/'report' row matches
        # the pruned words match nearly every row, so their IDF (and their share of the score) is ~0
        assert ids(full)[:3] == ids(pruned) == ["2", "1", "3"]
        assert [round(s, 3) for _, s in full[:3]] == [round(s, 3) for _, s in pruned]


def test_only_the_newest_rows_are_scored_when_every_word_is_common(workspace: Path) -> None:
    with MessageLog(workspace, match_budget=50) as log, MessageLog(workspace, match_budget=0) as exact:
        log.append_many(msg(i, f"weekly report number {i}") for i in range(1, 201))
        before = counters.get("memory.search_newest_only")
        got = log.search("weekly report", limit=100)
        assert counters.get("memory.search_newest_only") == before + 1
        # 200 rows match; the budget of 50 scores only the newest 50 of them
        assert sorted(ids(got), key=int) == [str(i) for i in range(151, 201)]
        assert len(exact.search("weekly report", limit=100)) == 100  # no budget: the whole log
        log.append_many([msg(500, "weekly report on the aurora")])
        assert ids(log.search("aurora", limit=10)) == ["500"]  # a rare word searches everything


def test_phrase_queries_and_small_logs_are_never_pruned(workspace: Path) -> None:
    with MessageLog(workspace, match_budget=50) as log:
        log.append_many(msg(100 + i, f"weekly report {i}") for i in range(30))
        before = counters.get("memory.search_terms_pruned")
        assert len(log.search("weekly report", limit=100)) == 30  # 30 rows <= budget: nothing to prune
        log.append_many(msg(200 + i, f"weekly report again {i}") for i in range(60))
        assert len(log.search('"weekly report" again', limit=100)) == 90
        assert counters.get("memory.search_terms_pruned") == before


def test_session_filter_with_interleaved_sessions(log: MessageLog) -> None:
    log.append_many(
        msg(i, f"harbour crane inspection {i}", session="a" if i % 40 == 0 else "b") for i in range(1, 201)
    )
    got = log.search("crane", session="a", limit=100)
    assert sorted(ids(got), key=int) == ["40", "80", "120", "160", "200"]
    assert log.search("crane", session="nope") == []
    assert len(log.search("crane", session="b", role="user", limit=500)) == 195


def test_index_drift_is_detected_and_repaired(log: MessageLog) -> None:
    fill(log)
    log.append(msg(1, "original wording"))
    assert log.check_index() is True
    log.conn.execute("DROP TRIGGER messages_au")  # simulate a writer that bypassed the index
    log.conn.execute("UPDATE messages SET text = 'replacement wording' WHERE id = '1'")
    assert log.check_index() is False
    assert ids(log.search("replacement")) == []
    log.rebuild_index()
    assert log.check_index() is True
    assert ids(log.search("replacement")) == ["1"]
    assert log.search("original") == []


def test_zero_limit_returns_nothing(log: MessageLog) -> None:
    log.append(msg(1, "budget"))
    assert log.search("budget", limit=0) == []
    assert len(log.search("budget", limit=10**9)) == 1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.text(max_size=120))
def test_any_query_never_errors(log: MessageLog, query: str) -> None:
    if log.count() == 0:
        fill(log)
        log.append_many(msg(50 + i, f"foo bar near text secret {i}") for i in range(5))
    errors = counters.get("memory.search_error")
    for m, score in log.search(query) + log.search(query, session="x", role="user", since=T0):
        assert isinstance(m, Message) and score >= 0
    assert counters.get("memory.search_error") == errors


def test_speakers_lists_each_name_once(log: MessageLog) -> None:
    log.append_many([msg(1, "hi", speaker="Ann"), msg(2, "yo", speaker="Bo"), msg(3, "ok", speaker="Ann")])
    log.append_many([msg(4, "anonymous")])
    assert sorted(log.speakers()) == ["Ann", "Bo"]
    assert len(log.speakers(limit=1)) == 1
