"""The store contract on both backends (issue 17): one suite, parametrized over the file store and the
PostgreSQL store. A "node" is a Workspace; on files the nodes of one agent share its folder (lock +
merge), on PostgreSQL they share the database (row versions + merge). Real PostgreSQL, one fresh
database for this module; each test uses its own agent ids."""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest

from knowledge_engine.config import load_config
from knowledge_engine.model.extraction import Extraction, FactCandidate, Mention
from knowledge_engine.model.records import Evidence, Fact, Message
from knowledge_engine.observe import counters
from knowledge_engine.store.postgres import connect
from knowledge_engine.store.postgres.connect import StoreDatabaseError
from knowledge_engine.store.workspace import Workspace
from tests.fixtures.postgres import PgHandle, database_fixture

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
MakeNode = Callable[..., Workspace]


pg_db = database_fixture("ke_store_backends")


def _config(backend: str, url: str = "") -> Any:
    storage: dict[str, Any] = {"writeDebounceMs": 0, "maxEvidence": 1000, "maxMentions": 1000}
    if backend == "postgres":
        storage |= {"backend": "postgres", "postgres": {"url": url, "followMs": 0}}
    return load_config({"storage": storage})


@pytest.fixture(params=["files", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def node(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MakeNode]:
    """node(name, agent) -> a Workspace of `agent` as one node sees it."""
    url = request.getfixturevalue("pg_db") if backend == "postgres" else ""
    cfg = _config(backend, url)
    run = uuid.uuid4().hex[:8]
    made: list[Workspace] = []

    def make(name: str = "n1", agent: str = "a") -> Workspace:
        aid = f"{agent}-{run}"
        folder = tmp_path / (aid if backend == "files" else f"{aid}-{name}")
        ws = Workspace(folder, cfg, aid)
        made.append(ws)
        return ws

    yield make
    for ws in made:
        ws.close()


def ev(mid: str, minutes: int = 0) -> Evidence:
    return Evidence(message_id=mid, session="s1", role="user", timestamp=T0 + timedelta(minutes=minutes))


def by_text(ws: Workspace) -> dict[str, Fact]:
    return {f.text(): f for f in ws.facts.all()}


def test_facts_added_reinforced_and_superseded_survive_a_reload(node: MakeNode) -> None:
    ws = node()
    leeds, status = ws.facts.add("Ann", "lives-in", "Leeds", evidence=[ev("m1")], now=T0)
    assert status == "new"
    _, status = ws.facts.add(
        "Ann", "lives-in", "Leeds", evidence=[ev("m2", 1)], now=T0 + timedelta(minutes=1)
    )
    assert status == "reinforced"
    york, _ = ws.facts.add("Ann", "lives-in", "York", evidence=[ev("m3", 2)], now=T0 + timedelta(minutes=2))
    assert ws.flush()

    again = by_text(node("n2"))
    assert [e.message_id for e in again["Ann lives in Leeds"].evidence] == ["m1", "m2"]
    assert again["Ann lives in Leeds"].superseded_by == york.id
    assert again["Ann lives in Leeds"].invalid_at is not None
    assert again["Ann lives in York"].invalid_at is None
    assert leeds.id in {f.id for f in node("n3").facts.history(york.id)}


def test_entities_with_aliases_resolve_after_a_reload(node: MakeNode) -> None:
    ws = node()
    org = ws.entities.observe("Northwind Logistics", "organization", "spacy", ev("m1"))
    assert ws.entities.observe("Northwind", "organization", "spacy", ev("m2")).id == org.id
    ws.flush()

    other = node("n2")
    found = other.entities.resolve("Northwind")
    assert found is not None and found.id == org.id
    assert "Northwind" in found.aliases and found.count == 2
    assert [m.message_id for m in found.mentions] == ["m1", "m2"]


def test_a_delete_leaves_a_tombstone_and_reaches_the_other_node(node: MakeNode) -> None:
    a, b = node("n1"), node("n2")
    keep, _ = a.facts.add("Ann", "likes", "tea", evidence=[ev("m1")])
    gone, _ = a.facts.add("Ann", "likes", "coffee", evidence=[ev("m2")])
    a.flush()
    b.refresh()
    assert {f.id for f in b.facts.all()} == {keep.id, gone.id}

    assert b.facts.forget(gone.id)
    b.flush()
    a.refresh()
    assert a.facts.get(gone.id) is None and gone.id in a.facts.table.tombstones
    fresh = node("n3")
    assert {f.id for f in fresh.facts.all()} == {keep.id}
    assert gone.id in fresh.facts.table.tombstones
    # a later write of the node that had it does not bring it back
    a.facts.add("Ann", "likes", "tea", evidence=[ev("m3")])
    a.flush()
    assert {f.id for f in node("n4").facts.all()} == {keep.id}


def test_a_record_stated_again_after_its_delete_is_kept(node: MakeNode) -> None:
    """A delete is older news than a later put of the same id on the same node, even when the put
    carries an older time (a message from the past): following its own tombstone does not undo it."""
    ws = node()
    fact, _ = ws.facts.add("Ann", "likes", "tea", evidence=[ev("m1")], now=T0)
    ws.flush()
    ws.facts.forget(fact.id)
    ws.flush()
    ws.facts.add("Ann", "likes", "tea", evidence=[ev("m2", 1)], now=T0 + timedelta(minutes=1))
    ws.refresh()
    assert ws.facts.get(fact.id) is not None
    ws.flush()
    again = node("n2").facts.get(fact.id)
    assert again is not None and [e.message_id for e in again.evidence] == ["m2"]


def test_an_update_to_a_record_another_node_deleted_and_made_again_is_merged(node: MakeNode) -> None:
    a, b = node("n1"), node("n2")
    fact, _ = a.facts.add("Ann", "likes", "tea", evidence=[ev("m1")])
    a.flush()
    b.refresh()
    b.facts.forget(fact.id)
    b.flush()
    b.facts.add("Ann", "likes", "tea", evidence=[ev("m3", 2)])  # made again: its row starts over
    b.flush()
    a.facts.add("Ann", "likes", "tea", evidence=[ev("m2", 1)])  # a has seen neither
    a.flush()

    final = node("n3").facts.get(fact.id)
    assert final is not None
    assert {"m2", "m3"} <= {e.message_id for e in final.evidence}


def test_a_fact_written_by_one_node_is_seen_by_the_other_after_refresh(node: MakeNode, backend: str) -> None:
    a, b = node("n1"), node("n2")
    b.facts.query(subject="Ben")  # b's indexes are built before a writes
    sig = (b.facts.table.generation, b.facts.table.version)
    fact, _ = a.facts.add("Ben", "works-at", "Acme", evidence=[ev("m1")])
    a.entities.observe("Ben Ortiz", "person", "spacy", ev("m1"))
    a.flush()

    b.refresh()
    assert [f.id for f in b.facts.query(subject="Ben")] == [fact.id]
    assert b.entities.resolve("Ben Ortiz") is not None
    if backend == "postgres":  # followed as changes, not reloaded: derived indexes update incrementally
        assert b.facts.table.changed_since(*sig) == {fact.id}


def test_two_nodes_writing_at_once_lose_no_update(node: MakeNode, backend: str) -> None:
    nodes = [node("n1"), node("n2")]
    per_node = 30
    errors: list[BaseException] = []

    def write(i: int, ws: Workspace) -> None:
        try:
            for k in range(per_node):
                mid = f"n{i}-m{k}"
                with ws.write_lock:
                    ws.facts.add("Team", "uses", "Slack", evidence=[ev(mid, k)], source="spacy")
                    ws.facts.add(f"Node{i}", "counts", str(k), evidence=[ev(mid, k)])
                    ws.entities.observe("Slack", "product", "spacy", ev(mid, k))
                if k % 3 == 2:
                    ws.flush()
                if k % 5 == 4:
                    ws.refresh()
            ws.flush()
        except BaseException as exc:  # pragma: no cover - the assertion below shows it
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(i, ws)) for i, ws in enumerate(nodes)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    for ws in nodes:
        ws.flush()

    final = node("n3")
    facts = by_text(final)
    shared = Counter(e.message_id for e in facts["Team uses Slack"].evidence)
    expected = {f"n{i}-m{k}" for i in range(2) for k in range(per_node)}
    assert set(shared) == expected and max(shared.values()) == 1  # every message once
    assert len(facts) == 1 + 2 * per_node
    if backend == "postgres":  # the file store's entity merge is newer-wins; the database merges counts
        slack = final.entities.resolve("Slack")
        assert slack is not None
        assert {m.message_id for m in slack.mentions} == expected
        assert slack.count == 2 * per_node


def test_a_message_applied_once_is_recognised_after_a_restart(node: MakeNode) -> None:
    msg = Message(id="m1", text="Dana works at Acme", session="s1", timestamp=T0)
    found = Extraction(
        message_id="m1",
        mentions=[Mention(value="Dana", type="person", tier="spacy")],
        facts=[FactCandidate(subject="Dana", predicate="works-at", object="Acme", tier="spacy")],
    )
    ws = node()
    assert ws.apply(msg, [found]) == (1, 1)
    ws.flush()

    again = node("n2")
    assert again.was_applied("m1", "spacy")
    assert again.apply(msg, [found]) == (0, 0)  # a replay (journal) counts nothing twice
    dana = again.entities.resolve("Dana")
    assert dana is not None and dana.count == 1


def test_two_agents_share_nothing(node: MakeNode) -> None:
    a, b = node("n1", agent="alice"), node("n1", agent="bob")
    fa, _ = a.facts.add("Ann", "likes", "tea", evidence=[ev("m1")])
    b.facts.add("Bob", "likes", "chess", evidence=[ev("m1")])
    a.entities.observe("Ann Smith", "person", "spacy", ev("m1"))
    a.flush()
    b.flush()
    b.facts.forget(b.facts.all()[0].id)
    b.flush()

    again_a, again_b = node("n2", agent="alice"), node("n2", agent="bob")
    assert [f.id for f in again_a.facts.all()] == [fa.id]
    assert again_b.facts.all() == [] and again_b.entities.all() == []
    assert again_b.entities.resolve("Ann Smith") is None


def _store_bad_record(ws: Workspace, backend: str, good: Fact) -> None:
    bad = {"id": "broken", "subject": "X"}  # no predicate, no object: fails validation
    if backend == "files":
        path = ws.folder / "facts.json"
        doc = orjson.loads(path.read_bytes())
        doc["facts"].append(bad)
        path.write_bytes(orjson.dumps(doc))
        return
    with connect.connection(ws.config.storage.postgres) as conn:
        conn.execute(
            "INSERT INTO ke_records (agent, kind, id, body, updated_at)"
            " VALUES (%s, 'facts', 'broken', %s, now())",
            (ws.agent_id, orjson.dumps(bad).decode()),
        )


def test_a_record_that_fails_validation_is_quarantined_not_lost(node: MakeNode, backend: str) -> None:
    ws = node()
    good, _ = ws.facts.add("Ann", "likes", "tea", evidence=[ev("m1")])
    ws.flush()
    _store_bad_record(ws, backend, good)
    before = counters.get("store.quarantined")

    loaded = node("n2")
    assert [f.id for f in loaded.facts.all()] == [good.id]
    assert loaded.facts.table.invalid_records == 1
    assert loaded.facts.table.quarantined[0]["id"] == "broken"
    loaded.facts.add("Ann", "likes", "cake", evidence=[ev("m2")])
    loaded.flush()
    again = node("n3")  # kept through a write and a reload, and counted once
    assert again.facts.table.invalid_records == 1 and len(again.facts) == 2
    assert counters.get("store.quarantined") >= before + 1
    assert again.facts.table.drop_quarantined(lambda raw: raw.get("id") == "broken") == 1
    again.flush()
    assert node("n4").facts.table.invalid_records == 0


# ---------------------------------------------------------------------- postgres only
@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
def test_a_supersession_holds_against_a_concurrent_reinforcement(node: MakeNode) -> None:
    a, b = node("n1"), node("n2")
    leeds, _ = a.facts.add("Ann", "lives-in", "Leeds", evidence=[ev("m1")], now=T0)
    a.flush()
    b.refresh()
    york, _ = a.facts.add("Ann", "lives-in", "York", evidence=[ev("m2", 5)], now=T0 + timedelta(minutes=5))
    a.flush()
    # b has not seen York: it reinforces Leeds from the version before the move
    b.facts.add("Ann", "lives-in", "Leeds", evidence=[ev("m3", 6)], now=T0 + timedelta(minutes=6))
    b.flush()

    final = node("n3")
    old = final.facts.get(leeds.id)
    assert old is not None and old.superseded_by == york.id and old.invalid_at is not None
    assert [e.message_id for e in old.evidence] == ["m1", "m3"]
    b.refresh()  # and the node that reinforced it adopts the merged version
    mine = b.facts.get(leeds.id)
    assert mine is not None and mine.superseded_by == york.id


def test_an_applied_message_reaches_another_node_without_waiting_for_the_file_debounce(
    pg_db: str, tmp_path: Path
) -> None:
    """The default writeDebounceMs (15 s) coalesces rewrites of a whole file; on the shared store the
    write comes within followMs, so another node sees the fact well within the debounce."""
    cfg = load_config({"storage": {"backend": "postgres", "postgres": {"url": pg_db, "followMs": 100}}})
    agent = f"soon-{uuid.uuid4().hex[:8]}"
    a, b = Workspace(tmp_path / "a", cfg, agent), Workspace(tmp_path / "b", cfg, agent)
    msg = Message(id="m1", text="Dana works at Acme", session="s1", timestamp=T0)
    found = Extraction(
        message_id="m1",
        facts=[FactCandidate(subject="Dana", predicate="works-at", object="Acme", tier="spacy")],
    )
    assert a.apply(msg, [found]) == (0, 1)
    deadline = time.monotonic() + 10  # well below the 15 s file debounce
    while not b.facts.query(subject="Dana"):
        assert time.monotonic() < deadline, "the fact did not reach the other node"
        b.follow()
        time.sleep(0.05)
    a.close()
    b.close()


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
def test_follow_adopts_other_nodes_changes_at_most_every_follow_ms(node: MakeNode, tmp_path: Path) -> None:
    a, b = node("n1"), node("n2")
    slow = Workspace(tmp_path / "slow", b.config.model_copy(deep=True), b.agent_id)
    slow.config.storage.postgres.follow_ms = 600_000
    fact, _ = a.facts.add("Cy", "likes", "jazz", evidence=[ev("m1")])
    a.flush()

    b.follow()  # followMs 0: every time
    assert b.facts.get(fact.id) is not None
    slow.follow()  # loaded just now: not again within followMs
    assert slow.facts.get(fact.id) is None
    slow.refresh()  # an explicit refresh (CLI commands) always looks
    assert slow.facts.get(fact.id) is not None
    slow.close()


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
def test_a_removal_on_one_node_is_not_undone_by_anothers_concurrent_update(node: MakeNode) -> None:
    """What forget does to a fact (its evidence of a forgotten message removed) holds against a node
    that reinforced the same fact from the version before: the merge is three-way, not a union."""
    a, b = node("n1"), node("n2")
    fact, _ = a.facts.add("Ann", "likes", "tea", evidence=[ev("m1"), ev("m2", 1)])
    a.entities.observe("Ann Smith", "person", "spacy", ev("m1"))
    a.flush()
    b.refresh()
    ent = a.entities.resolve("Ann Smith")
    assert ent is not None
    mine = a.facts.get(fact.id)
    assert mine is not None
    mine.evidence = [e for e in mine.evidence if e.message_id != "m1"]  # as forget does
    a.facts.table.put(mine)
    ent.mentions, ent.aliases = [], []
    a.entities.table.put(ent)
    a.flush()
    b.facts.add("Ann", "likes", "tea", evidence=[ev("m3", 2)])  # from the version that still had m1
    b.entities.observe("Ann Smith", "person", "spacy", ev("m3", 2))
    b.flush()

    final = node("n3")
    kept = final.facts.get(fact.id)
    assert kept is not None and [e.message_id for e in kept.evidence] == ["m2", "m3"]
    ann = final.entities.resolve("Ann Smith")
    assert ann is not None and [m.message_id for m in ann.mentions] == ["m3"] and ann.count == 2


def test_a_database_error_on_flush_keeps_the_changes_and_retries(
    pg_db: str, pg_server: PgHandle, tmp_path: Path
) -> None:
    ws = Workspace(tmp_path / "w", _config("postgres", pg_db), f"down-{uuid.uuid4().hex[:8]}")
    ws.facts.add("Ann", "likes", "tea", evidence=[ev("m1")])
    pg_server.stop()
    try:
        assert ws.flush() is False
        assert ws.flush_errors >= 1 and ws.facts.table.has_changes
        follows = counters.get("store.follow_errors")
        ws.follow()  # before a prompt: logged and counted, never raised; the prompt is answered anyway
        assert counters.get("store.follow_errors") > follows
        assert [f.text() for f in ws.facts.all()] == ["Ann likes tea"]
    finally:
        pg_server.start()
    deadline = datetime.now(UTC) + timedelta(seconds=30)
    while not ws.flush():
        assert datetime.now(UTC) < deadline, "the flush never succeeded after the restart"
    assert ws.flush_errors == 0 and not ws.facts.table.has_changes
    assert [f.text() for f in Workspace(tmp_path / "w2", ws.config, ws.agent_id).facts.all()] == [
        "Ann likes tea"
    ]


def test_loading_with_the_database_unreachable_is_a_clear_error(tmp_path: Path) -> None:
    url = "postgresql://nobody:secret@127.0.0.1:1/none?connect_timeout=1"
    cfg = load_config({"storage": {"backend": "postgres", "postgres": {"url": url, "connectTimeoutMs": 500}}})
    with pytest.raises(StoreDatabaseError) as err:
        Workspace(tmp_path / "w", cfg, "a")
    assert "127.0.0.1:1/none" in str(err.value) and "secret" not in str(err.value)
