"""The message log contract on both backends (issue 17): SQLite + FTS5 in a folder, and PostgreSQL
(`PgMessageLog` on a fresh database of the session server). One suite, parametrized: the same case
must hold for `MessageLog` and `PgMessageLog`, so retrieval, forget and the CLI work unchanged."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from knowledge_engine.config import EngineConfig, MemoryConfig, PostgresStorageConfig
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters
from knowledge_engine.store import backend
from knowledge_engine.store.keyword import build_query
from knowledge_engine.store.messages import MessageLog, MessageLogError
from knowledge_engine.store.postgres.connect import StoreDatabaseError
from knowledge_engine.store.postgres.messages import PgMessageLog, compose_tsquery, tsquery_parts
from tests.fixtures.postgres import database_fixture, files_holding, relation_files
from tests.messages_support import INJECTIONS, T0, fill, ids, msg

Log = Any  # MessageLog | PgMessageLog: the same public API
MakeLog = Callable[..., Log]
_serial = itertools.count()
pg_db = database_fixture("ke_messages_backends")


@pytest.fixture(scope="module")
def pg_store(pg_db: str) -> PostgresStorageConfig:
    """This module's fresh database (migrated on the pool's first open)."""
    return PostgresStorageConfig(url=pg_db)


@pytest.fixture(params=["files", "postgres"])
def make_log(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MakeLog]:
    """Opens a log of an agent (`name`) on the backend under test; every test has its own agents."""
    opened: list[Log] = []
    test_id = next(_serial)

    def make(name: str = "a", memory: MemoryConfig | None = None, **kw: Any) -> Log:
        mem = memory or MemoryConfig()
        if request.param == "files":
            made: Log = (
                MessageLog.from_config(tmp_path / name, mem) if memory else MessageLog(tmp_path / name, **kw)
            )
        else:
            cfg = request.getfixturevalue("pg_store")
            agent = f"t{test_id}-{name}"
            made = PgMessageLog.from_config(cfg, agent, mem) if memory else PgMessageLog(cfg, agent, **kw)
        opened.append(made)
        return made

    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
    yield make
    for made in opened:
        made.close()


@pytest.fixture
def log(make_log: MakeLog) -> Log:
    return make_log()


# ------------------------------------------------------------------ append and read


def test_append_is_idempotent_on_id(log: Log) -> None:
    assert log.append(msg(1, "first version")) is True
    assert log.append(msg(1, "second version")) is False
    assert log.get("1").text == "first version"
    assert log.append_many([msg(1, "again"), msg(2, "new"), msg(2, "dup in batch"), msg(3, "new")]) == 2
    assert log.get("2").text == "new"  # the first of a batch wins
    assert log.count() == 3


def test_a_message_replayed_by_two_nodes_is_stored_once(make_log: MakeLog) -> None:
    node1, node2 = make_log("a"), make_log("a")  # two handles on one agent's log
    batch = [msg(i, f"replayed turn {i}") for i in range(1, 21)]
    assert node1.append_many(batch[:15]) == 15
    assert node2.append_many(batch) == 5
    assert node1.count() == node2.count() == 20
    assert len(node2.search("replayed", limit=100)) == 20


def test_concurrent_overlapping_appends_store_each_message_once(make_log: MakeLog) -> None:
    batch = [msg(i, f"overlap {i}", timestamp=T0 + timedelta(seconds=i % 7)) for i in range(300)]
    nodes = [make_log("a") for _ in range(4)]
    added: list[int] = []
    errors: list[BaseException] = []

    def node(n: int) -> None:
        mine = batch[n * 50 :] + batch[: n * 50]  # each node replays the same turns in its own order
        mine = mine if n % 2 else mine[::-1]
        try:
            added.append(sum(nodes[n].append_many(mine[i : i + 100]) for i in range(0, 300, 100)))
        except BaseException as exc:  # pragma: no cover - the assertion shows it
            errors.append(exc)

    threads = [threading.Thread(target=node, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == [] and sum(added) == 300
    assert nodes[0].count() == 300 and len({m.id for m in nodes[1].iter()}) == 300


def test_roundtrip_keeps_every_field(log: Log) -> None:
    ts = datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=UTC)
    m = Message(id="x", text="hi", role="assistant", session="s1", speaker="Bot", agent_id="a1", timestamp=ts)
    log.append(m)
    assert log.get("x") == m
    assert log.get("missing") is None


def test_naive_timestamp_is_utc(log: Log) -> None:
    log.append(Message(id="n", text="x", timestamp=datetime(2026, 1, 1, 12, 0)))
    assert log.get("n").timestamp == datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def test_get_many_keeps_the_requested_order(log: Log) -> None:
    log.append_many([msg(1, "a"), msg(2, "b"), msg(3, "c")])
    assert [m.id for m in log.get_many(["3", "nope", "1", "3"])] == ["3", "1"]
    assert len(log.get_many([str(i) for i in range(2000)])) == 3


def test_iter_filters_order_and_paging(log: Log) -> None:
    msgs = [
        msg(i, f"m{i}", session="s1" if i % 2 else "s2", role="user" if i % 3 else "assistant")
        for i in range(1, 1301)
    ]
    log.append_many(reversed(msgs))  # arrival order differs from event time
    assert [m.id for m in log.iter()] == [str(i) for i in range(1, 1301)]
    assert [m.id for m in log.iter(order="desc", limit=3)] == ["1300", "1299", "1298"]
    assert len(list(log.iter(limit=777))) == 777
    s1 = list(log.iter(session="s1"))
    assert len(s1) == 650 and all(m.session == "s1" for m in s1)
    since = T0 + timedelta(minutes=1201)
    assert [m.id for m in log.iter(since=since)] == [str(i) for i in range(1201, 1301)]
    assert [m.id for m in log.iter(since=since, until=since + timedelta(minutes=3))] == [
        "1201",
        "1202",
        "1203",
    ]
    assert log.count(since=since) == 100
    assert log.count(until=since) == 1200
    assert log.count(role="assistant") == 433 == len(list(log.iter(role="assistant")))
    assert log.count(session="s2", role="assistant") == len(list(log.iter(session="s2", role="assistant")))
    with pytest.raises(ValueError):
        list(log.iter(order="sideways"))


def test_equal_timestamps_iterate_in_arrival_order(log: Log) -> None:
    for i in (3, 1, 2):
        log.append(msg(f"x{i}", f"same time {i}", timestamp=T0))
    assert [m.id for m in log.iter()] == ["x3", "x1", "x2"]
    assert [m.id for m in log.iter(order="desc")] == ["x2", "x1", "x3"]


def test_roles_from_config_are_kept_others_counted(make_log: MakeLog) -> None:
    before = counters.get("memory.role_skipped")
    log = make_log(memory=MemoryConfig(roles=["user"]))
    assert log.append(msg(1, "kept", role="user"))
    assert not log.append(msg(2, "dropped", role="tool"))
    assert log.count() == 1
    assert counters.get("memory.role_skipped") == before + 1


def test_two_agents_share_nothing(make_log: MakeLog) -> None:
    a, b = make_log("a"), make_log("b")
    a.append_many([msg(1, "alpha secret plan", session="s", speaker="Ann"), msg(2, "alpha other")])
    b.append_many([msg(1, "beta public note", session="s", speaker="Bo")])
    assert a.get("1").text == "alpha secret plan" and b.get("1").text == "beta public note"
    assert b.search("secret alpha") == [] and ids(a.search("beta public")) == []
    assert (a.count(), b.count()) == (2, 1)
    assert b.speakers() == ["Bo"] and [m.id for m in b.iter()] == ["1"]
    assert b.delete_session("s") == 1 and a.count(session="s") == 1
    assert b.delete(["2"]) == 0 and a.get("2") is not None
    assert b.retain(max_count=0, max_age_days=1, now=T0 + timedelta(days=30)) == []
    assert a.count() == 2


# ------------------------------------------------------------------ search


def test_more_matching_terms_rank_higher(log: Log) -> None:
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


def test_rare_terms_weigh_more(log: Log) -> None:
    fill(log)
    log.append_many([msg(10 + i, f"invoice number {i} was paid in full today, invoice") for i in range(6)])
    log.append(msg(1, "the zebra exhibit at the zoo was closed for the whole afternoon today"))
    results = log.search("invoice zebra")
    assert ids(results)[0] == "1"
    assert len(results) == 7


def test_stop_words_case_stemming_diacritics(log: Log) -> None:
    fill(log)
    log.append(msg(1, "Deployed the Halcyon release to the café server"))
    assert ids(log.search("what do you remember about HALCYON?")) == ["1"]
    assert ids(log.search("deploying")) == ["1"]
    assert ids(log.search("cafe")) == ["1"]
    assert ids(log.search("CAFÉ")) == ["1"]
    assert log.search("what do you remember about the") == []


def test_phrase_and_prefix(log: Log) -> None:
    fill(log)
    log.append_many([msg(1, "the cat sat on the mat"), msg(2, "the mat sat under the cat")])
    assert ids(log.search('"cat sat"')) == ["1"]
    assert set(ids(log.search("cat sat"))) == {"1", "2"}
    assert ids(log.search('"cat sat" mat')) == ["1"]
    log.append(msg(3, "quarterly revenue grew"))
    assert ids(log.search("reven*")) == ["3"]


def test_search_filters(log: Log) -> None:
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
    assert log.search("budget", session="nope") == []


HOSTILE = [*INJECTIONS, "OR", "-", ":", "NEAR(", "'", "\\", "foo:*", "a & b | !c", "<->", "'secret':*"]


@pytest.mark.parametrize("attack", HOSTILE)
def test_hostile_query_never_raises_nor_overmatches(log: Log, attack: str) -> None:
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
    found = {m.id for m, _ in log.search(attack)}
    assert counters.get("memory.search_error") == errors
    expected = {
        'foo" OR "bar': {"1", "2"},
        "text:secret": {"3", "4"},
        "{text}:secret": {"3", "4"},
        "secret*": {"3"},
        "foo:*": {"1"},
        "'secret':*": {"3"},
    }.get(attack, set())
    assert found == expected


def test_unicode_query_text(log: Log) -> None:
    text = "東京 会議 🙂 \u202emirrored\u202c zero\u200bwidth Ελληνικά naïve ＦＵＬＬ"
    log.append(msg(1, text, speaker="Zoë 🙂", session="s:ü"))
    got = log.get("1")
    assert got is not None and got.text == text and got.speaker == "Zoë 🙂"
    fill(log)
    assert ids(log.search("ελληνικά")) == ["1"]
    assert ids(log.search("naive")) == ["1"]
    assert ids(log.search("東京")) == ["1"]
    for odd in ("🙂", "\u202e", "\u200b", "\ud800", "Zoë's", "ﬁ"):
        assert isinstance(log.search(odd), list)


def test_search_of_empty_log_and_empty_query(log: Log) -> None:
    assert log.search("anything") == []
    log.append(msg(1, "anything at all"))
    assert log.search("") == []
    assert log.search("   the of and  ") == []


def test_session_filter_with_interleaved_sessions(log: Log) -> None:
    log.append_many(
        msg(i, f"harbour crane inspection {i}", session="a" if i % 40 == 0 else "b") for i in range(1, 201)
    )
    got = log.search("crane", session="a", limit=100)
    assert sorted(ids(got), key=int) == ["40", "80", "120", "160", "200"]
    assert log.search("crane", session="nope") == []
    assert len(log.search("crane", session="b", role="user", limit=500)) == 195


def test_common_words_are_pruned_beyond_the_match_budget(make_log: MakeLog) -> None:
    log, exact = make_log("a", match_budget=50), make_log("a", match_budget=0)
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
    assert ids(full)[:3] == ids(pruned)  # the same rows lead, in the same order
    if isinstance(log, MessageLog):  # BM25: the pruned words match nearly every row, so their IDF
        assert ids(pruned) == ["2", "1", "3"]  # (and their share of the score) is ~0; ts_rank has no IDF
        assert [round(s, 3) for _, s in full[:3]] == [round(s, 3) for _, s in pruned]


def test_only_the_newest_rows_are_searched_when_every_word_is_common(make_log: MakeLog) -> None:
    log, exact = make_log("a", match_budget=50), make_log("a", match_budget=0)
    log.append_many(msg(i, f"weekly report number {i}") for i in range(1, 201))
    before = counters.get("memory.search_newest_only")
    got = log.search("weekly report", limit=100)
    assert counters.get("memory.search_newest_only") == before + 1
    # 200 rows match; the budget of 50 scores only the newest 50 of them
    assert sorted(ids(got), key=int) == [str(i) for i in range(151, 201)]
    assert len(exact.search("weekly report", limit=100)) == 100  # no budget: the whole log
    log.append_many([msg(500, "weekly report on the aurora")])
    assert ids(log.search("aurora", limit=10)) == ["500"]  # a rare word searches everything


def test_phrase_queries_and_small_logs_are_never_pruned(make_log: MakeLog) -> None:
    log = make_log("a", match_budget=50)
    log.append_many(msg(100 + i, f"weekly report {i}") for i in range(30))
    before = counters.get("memory.search_terms_pruned")
    assert len(log.search("weekly report", limit=100)) == 30  # 30 rows <= budget: nothing to prune
    log.append_many(msg(200 + i, f"weekly report again {i}") for i in range(60))
    assert len(log.search('"weekly report" again', limit=100)) == 90
    assert counters.get("memory.search_terms_pruned") == before


def test_zero_limit_returns_nothing(log: Log) -> None:
    log.append(msg(1, "budget"))
    assert log.search("budget", limit=0) == []
    assert len(log.search("budget", limit=10**9)) == 1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.text(max_size=120))
def test_any_query_never_errors(log: Log, query: str) -> None:
    if log.count() == 0:
        fill(log)
        log.append_many(msg(50 + i, f"foo bar near text secret {i}") for i in range(5))
    errors = counters.get("memory.search_error")
    for m, score in log.search(query) + log.search(query, session="x", role="user", since=T0):
        assert isinstance(m, Message) and score >= 0
    assert counters.get("memory.search_error") == errors


def test_speakers_lists_each_name_once(log: Log) -> None:
    log.append_many([msg(1, "hi", speaker="Ann"), msg(2, "yo", speaker="Bo"), msg(3, "ok", speaker="Ann")])
    log.append_many([msg(4, "anonymous")])
    assert sorted(log.speakers()) == ["Ann", "Bo"]
    assert len(log.speakers(limit=1)) == 1


def test_has_text_near_finds_one_turn_seen_twice(log: Log) -> None:
    log.append(msg(1, "the same words", session="s", role="user"))
    at = T0 + timedelta(minutes=1, seconds=3)
    assert log.has_text_near("s", "user", "the same words", at, 5.0)
    assert not log.has_text_near("s", "user", "the same words", at, 1.0)
    assert not log.has_text_near("s", "assistant", "the same words", at, 5.0)
    assert not log.has_text_near(None, "user", "the same words", at, 5.0)
    log.append(msg(2, "no session", role="user"))
    assert log.has_text_near(None, "user", "no session", T0 + timedelta(minutes=2), 1.0)


# ------------------------------------------------------------------ delete, redact, retention


def test_delete_and_delete_session(log: Log) -> None:
    log.append_many(
        [msg(1, "alpha one", session="s"), msg(2, "alpha two", session="s"), msg(3, "alpha three")]
    )
    assert log.delete(["1", "nope"]) == 1
    assert log.get("1") is None
    assert ids(log.search("one")) == []
    assert log.delete_session("s") == 1
    assert ids(log.search("alpha")) == ["3"]
    assert log.append(msg(1, "alpha one again"))  # a deleted id can be stored anew


def test_redact_by_ids_and_by_predicate(log: Log) -> None:
    fill(log)
    log.append_many(
        [
            msg(1, "Alice Moreau called about the lease"),
            msg(2, "Alice Moreau signed it"),
            msg(3, "Bob called too"),
        ]
    )
    assert log.redact(["3"], "[redacted]") == ["3"]
    assert log.get("3").text == "[redacted]"
    assert log.search("bob") == []
    changed = log.redact(lambda m: "Moreau" in m.text, lambda t: t.replace("Alice Moreau", "[person]"))
    assert sorted(changed) == ["1", "2"]
    assert log.search("moreau") == [] and log.search("alice") == []
    assert ids(log.search("lease")) == ["1"]
    assert log.get("1").text == "[person] called about the lease"
    assert log.redact(["1"], lambda t: t) == []  # unchanged text is not reported
    assert log.check_index() is True


def test_retention_by_age(log: Log) -> None:
    log.append_many([msg(i, f"note {i}", timestamp=T0 + timedelta(days=i)) for i in range(10)])
    deleted = log.retain(max_age_days=3, now=T0 + timedelta(days=9, hours=1))
    assert sorted(deleted) == [str(i) for i in range(7)]  # day 6 is older than the cutoff (day 6, 1 am)
    assert [m.id for m in log.iter()] == ["7", "8", "9"]
    assert log.retain(max_age_days=0, max_count=0) == []


def test_retention_by_count_drops_oldest_events(log: Log) -> None:
    log.append_many([msg(i, f"note {i}", timestamp=T0 + timedelta(days=10 - i)) for i in range(10)])
    deleted = log.retain(max_count=4, now=T0)
    assert sorted(deleted, key=int) == ["4", "5", "6", "7", "8", "9"]
    assert log.count() == 4
    assert log.search("note", limit=50) and all(int(m.id) < 4 for m, _ in log.search("note", limit=50))


def test_retention_by_age_and_count(log: Log) -> None:
    log.append_many([msg(i, f"note {i}", timestamp=T0 + timedelta(days=i)) for i in range(10)])
    deleted = log.retain(max_age_days=5.5, max_count=2, now=T0 + timedelta(days=10))
    assert len(deleted) == 8 and len(set(deleted)) == 8
    assert [m.id for m in log.iter()] == ["8", "9"]


def test_vacuum_and_index_check(log: Log) -> None:
    fill(log)
    log.append(msg(1, "to be forgotten"))
    log.delete(["1"])
    assert log.vacuum() is True
    assert log.check_index() is True
    log.rebuild_index()
    assert log.count() == len([m for m in log.iter()]) > 0
    assert log.stats()["messages"] == log.count()


# ------------------------------------------------------------------ odd input


def test_one_megabyte_message(log: Log) -> None:
    big = ("lorem ipsum dolor " * 60000)[:1_000_000] + " needleword"
    assert log.append(msg(1, big))
    assert log.get("1").text == big
    fill(log)
    assert ids(log.search("needleword")) == ["1"]


def test_nul_bytes_survive(log: Log) -> None:
    text = "before\x00after\x00tail"
    log.append(msg(1, text))
    assert log.get("1").text == text
    fill(log)
    assert ids(log.search("after tail")) == ["1"]  # "after" is a stop word, the word after the NUL is not
    assert log.has_text_near(None, "user", text, T0 + timedelta(minutes=1), 1.0)
    assert not log.has_text_near(None, "user", "before after tail", T0 + timedelta(minutes=1), 1.0)


def test_lone_surrogate_is_replaced_and_counted(log: Log) -> None:
    before = counters.get("memory.text_sanitized")
    assert log.append(msg(1, "broken \ud800 text"))
    assert log.get("1").text == "broken \ufffd text"
    assert counters.get("memory.text_sanitized") == before + 1


def test_closed_log_raises_clearly(make_log: MakeLog) -> None:
    log = make_log()
    log.close()
    log.close()
    with pytest.raises(MessageLogError, match="closed"):
        log.count()


# ------------------------------------------------------------------ postgres only


def test_workspace_messages_follow_the_backend(pg_store: PostgresStorageConfig, tmp_path: Path) -> None:
    config = EngineConfig.model_validate(
        {"storage": {"backend": "postgres", "postgres": {"url": pg_store.url}}}
    )
    made = backend.message_log(config, tmp_path, "ws-agent")
    assert isinstance(made, PgMessageLog) and made.agent == "ws-agent"
    assert made.append(msg(1, "stored in the database"))
    assert not (tmp_path / "messages.sqlite3").exists()


def test_tsquery_is_built_from_quoted_lexemes_only() -> None:
    required, optional = tsquery_parts(build_query("\"cat sat\" 'x' foo:* a&b|c !bar <-> reven*"))
    assert required == ["'cat' <-> 'sat'"]
    assert optional == ["'foo'", "'bar'", "'reven':*"]
    assert compose_tsquery(required, optional) == (
        "('cat' <-> 'sat') & (('cat' <-> 'sat') | ('foo') | ('bar') | ('reven':*))"
    )


def test_unreachable_database_is_a_clear_error_without_the_password(tmp_path: Path) -> None:
    url = f"postgresql://ke:hunter2@/nodb?host={tmp_path}&port=1"
    cfg = PostgresStorageConfig(url=url, connect_timeout_ms=500)
    with pytest.raises(StoreDatabaseError) as err:
        PgMessageLog(cfg, "a")
    assert "hunter2" not in str(err.value) and "nodb" in str(err.value)
    assert isinstance(err.value, StoreDatabaseError)


def test_forget_leaves_no_trace_in_the_table_files(pg_store: PostgresStorageConfig) -> None:
    log = PgMessageLog(pg_store, "forget-scan")
    secret = "zanzibarquokka" + "x" * 5
    big = " ".join(f"{secret}{i}" for i in range(3000))  # long enough to be TOASTed
    log.append_many([msg(1, f"the password is {secret}"), msg(2, big), msg(3, "kept words")])
    with psycopg.connect(pg_store.url, autocommit=True) as conn:
        conn.execute("CHECKPOINT")  # write the pages to the files
        files = relation_files(conn, "ke_messages")
        assert files_holding(files, [secret.encode()])
        assert log.delete(["1", "2"]) == 2
        conn.execute("CHECKPOINT")
        assert files_holding(files, [secret.encode()])  # a DELETE alone leaves the bytes
        assert log.vacuum()
        conn.execute("CHECKPOINT")
        after = relation_files(conn, "ke_messages")
    assert files_holding(after, [secret.encode()]) == []
    assert files_holding(after, [b"zanzibarquokka"]) == []  # nor its lexeme in the GIN index
    assert ids(log.search("kept")) == ["3"]


def test_vacuum_gives_up_behind_a_long_transaction(pg_store: PostgresStorageConfig) -> None:
    log = PgMessageLog(pg_store.model_copy(update={"statement_timeout_ms": 300}), "vacuum-busy")
    log.append(msg(1, "held open by a reader"))
    before = counters.get("memory.vacuum_lock_busy")
    with psycopg.connect(pg_store.url) as reader:  # not autocommit: its SELECT keeps a lock until rollback
        reader.execute("SELECT count(*) FROM ke_messages").fetchone()
        assert log.vacuum() is False
        reader.rollback()
    assert counters.get("memory.vacuum_lock_busy") == before + 1
    assert log.vacuum() is True
    assert log.count() == 1 and ids(log.search("reader")) == ["1"]  # still usable afterwards


def test_the_local_source_searches_the_shared_log(pg_store: PostgresStorageConfig, tmp_path: Path) -> None:
    from knowledge_engine.engine import KnowledgeEngine
    from knowledge_engine.model.retrieval import RetrievalRequest
    from knowledge_engine.retrieve.sources.local import LocalSource, newest_time

    config = EngineConfig.model_validate(
        {
            "workspaceTemplate": "{workspaceDir}/ke",
            "workspaceRoot": str(tmp_path / "agents"),
            "embeddings": {"enabled": False},
            "extraction": {"llm": {"enabled": False}},
            "storage": {"backend": "postgres", "postgres": {"url": pg_store.url}},
        }
    )
    engine = KnowledgeEngine(config)
    try:
        ws = engine.workspace("local-source", str(tmp_path))
        ws.messages.append_many(
            [
                msg(1, "Thanks Alice, the harbour crane inspection went fine", speaker="Bob"),
                msg(2, "I repaired the harbour crane myself", speaker="Alice"),
            ]
        )
        found = LocalSource(engine, ws).search_sync(RetrievalRequest(query="harbour crane"), semantic=False)
        assert {i.id for i in found if i.kind == "memory"} == {"1", "2"}
        assert newest_time(ws) == T0 + timedelta(minutes=2)
    finally:
        engine.stop(10)


def test_a_bulk_append_refreshes_the_planner_statistics(pg_store: PostgresStorageConfig) -> None:
    log = PgMessageLog(pg_store, "bulk-analyze")
    before = counters.get("memory.analyzed")
    log.append_many(msg(i, f"bulk row {i}") for i in range(999))
    assert counters.get("memory.analyzed") == before  # below the first step
    log.append(msg(5000, "the thousandth row"))
    assert counters.get("memory.analyzed") == before + 1
    with psycopg.connect(pg_store.url, autocommit=True) as conn:
        row = conn.execute("SELECT last_analyze FROM pg_stat_user_tables WHERE relname = 'ke_messages'")
        assert row.fetchone()[0] is not None  # type: ignore[index]
    log.append_many(msg(6000 + i, f"more {i}") for i in range(199))
    assert counters.get("memory.analyzed") == before + 1  # the next step is 1,000 rows (or 20%) further
