"""Several engine processes ("nodes") on one PostgreSQL database are one knowledge base (issue 17 §2).

Each node is a fresh interpreter (tests/pg_node_process.py) with the plugin registered through the
reference host, its own workspace folder (its ingest journal) and the shared agent; it feeds its own
message stream through `message_received` and acknowledges each message once the hook returned. From
the database alone (an inspecting Workspace in this process) the tests check: no acknowledged message
lost, none stored twice, every message stating a shared fact is evidence on it (no lost update), a
fact written on one node is injected by another's `before_prompt_build`, and kill -9 of a node or a
PostgreSQL restart loses nothing acknowledged.
"""

from __future__ import annotations

import json
import os
import random
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import psycopg
import pytest

from knowledge_engine.config import load_config
from knowledge_engine.ingest.journal import IngestJournal
from knowledge_engine.ingest.queue import SPILL_NAME, IngestQueue, StoreUnavailable
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters
from knowledge_engine.store.workspace import Workspace
from knowledge_engine.validate import validate
from tests.fixtures.postgres import database_fixture, fresh_database, pg_server_in_tempdir
from tests.pg_node_process import SAME, NodeProc, text_for

DEADLINE_S = 180.0  # generous: a busy 2-core machine; nothing here asserts a duration


db_url = database_fixture("ke_nodes")


def node_config(url: str, folder: Path) -> dict[str, Any]:
    """A node's configuration: the shared database, its own folder, no embeddings (no model needed)."""
    return {
        "workspace": str(folder / "{agentId}"),
        "embeddings": {"enabled": False},
        "maintenance": {"enabled": False},
        "retrieval": {"cacheTtlMs": 0},
        "storage": {
            "backend": "postgres",
            "postgres": {"url": url},
            "writeDebounceMs": 200,
            "maxEvidence": 1000,  # every message stating the shared fact stays its evidence
        },
        "extraction": {"spacy": {"workers": 0}, "llm": {"enabled": False}},
    }


def start_nodes(tmp_path: Path, url: str, agent: str, n: int, first: int = 0) -> list[NodeProc]:
    """n nodes started side by side (each loads spaCy), node k in tmp_path/node<k>."""
    nodes: list[NodeProc | BaseException] = [RuntimeError("not started")] * n

    def one(k: int) -> None:
        folder = tmp_path / f"node{first + k}"
        folder.mkdir(exist_ok=True)
        try:
            nodes[k] = NodeProc(node_config(url, folder), agent, folder / "acked", folder / "stderr.log")
        except BaseException as exc:  # pragma: no cover - raised below with the node's log
            nodes[k] = exc

    threads = [threading.Thread(target=one, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k, node in enumerate(nodes):
        if isinstance(node, BaseException):
            log = (tmp_path / f"node{first + k}" / "stderr.log").read_text()[-3000:]
            raise AssertionError(f"node {first + k} did not start: {node}\n{log}")
    return [n_ for n_ in nodes if isinstance(n_, NodeProc)]


def inspector(tmp_path: Path, url: str, agent: str) -> Workspace:
    """The knowledge base as the database holds it (a workspace of this process, not a node's)."""
    return Workspace(tmp_path / "inspect" / agent, load_config(node_config(url, tmp_path / "inspect")), agent)


def flush_all(nodes: list[NodeProc]) -> None:
    for node in nodes:
        node.send(op="flush", timeout=DEADLINE_S)
    for node in nodes:
        assert node.result(DEADLINE_S + 30)["ok"], "a node could not write its store"


def wait_for(cond: Any, what: str, timeout: float = DEADLINE_S) -> float:
    """Poll until cond() is true; the wall-clock time it became true."""
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)
    return time.time()


def shared_fact_evidence(ws: Workspace) -> set[str]:
    """Message ids of the evidence on the one fact every `same` message states."""
    ws.refresh()
    found = [
        f
        for f in ws.facts.all()
        if f.predicate == "works-at" and "Dana Reyes" in f.subject and "Globex" in f.object
    ]
    assert found, "the shared fact is not in the store"
    return {e.message_id for f in found for e in f.evidence}


def check_consistent(ws: Workspace) -> None:
    """What the database holds is one knowledge base: references resolve, no fact twice, validate passes."""
    ws.refresh()
    facts, entities = ws.facts.all(), {e.id for e in ws.entities.all()}
    fact_ids = {f.id for f in facts}
    dangling = [f.id for f in facts for ref in (f.subject_id, f.object_id) if ref and ref not in entities]
    assert not dangling, f"facts naming missing entities: {dangling[:5]}"
    assert all(f.superseded_by in fact_ids for f in facts if f.superseded_by), "superseded_by -> missing fact"
    live = Counter(
        (f.subject.casefold(), f.predicate, f.object.casefold()) for f in facts if f.invalid_at is None
    )
    twice = [t for t, c in live.items() if c > 1]
    assert not twice, f"the same current fact stored more than once: {twice[:3]}"
    report = validate(ws, check_index=False)
    assert report.ok, report.to_dict()


def check_stored_once(ws: Workspace, acked: set[str], exact: bool = True) -> None:
    """Every acknowledged message is in the log once; `exact`: and nothing else is (a node killed after
    journalling a message but before acknowledging it may still have stored it)."""
    ids = [m.id for m in ws.messages.iter()]
    lost = acked - set(ids)
    assert not lost, f"{len(lost)} acknowledged messages lost, e.g. {sorted(lost)[:5]}"
    assert len(ids) == len(set(ids)) == ws.messages.count(), "a message is stored more than once"
    assert not exact or set(ids) == acked, f"not acknowledged but stored: {sorted(set(ids) - acked)[:5]}"


# ------------------------------------------------------------------------------------------ the tests
@pytest.mark.slow  # starts node processes that load spaCy (seconds each)
@pytest.mark.parametrize("n_nodes", [2, 4])
def test_nodes_on_one_database_lose_nothing_and_store_each_message_once(
    tmp_path: Path, db_url: str, n_nodes: int
) -> None:
    agent = f"shared{n_nodes}"
    nodes = start_nodes(tmp_path, db_url, agent, n_nodes)
    replayed = [[f"dup-{i}", text_for("stream", 1000 + i)] for i in range(20)]  # every node gets these
    try:
        for k, node in enumerate(nodes):  # own streams, concurrently
            node.send(op="feed", prefix=f"n{k}", start=0, stop=60, kind="stream")
        for node in nodes:
            node.result(DEADLINE_S)
        for k, node in enumerate(nodes):  # the same fact from every node at once: lost updates show here
            node.send(op="feed", prefix=f"same{k}", start=0, stop=30, kind="same")
        for node in nodes:
            node.result(DEADLINE_S)
        for node in nodes:  # one message replayed by every node
            node.send(op="feed", messages=replayed)
        for node in nodes:
            node.result(DEADLINE_S)
        flush_all(nodes)
        acked = [set(node.acked()) for node in nodes]
    finally:
        for node in nodes:
            node.stop()
    everything = set().union(*acked)
    assert all(len(a) == 60 + 30 + 20 for a in acked)
    ws = inspector(tmp_path, db_url, agent)
    try:
        check_stored_once(ws, everything)
        same = {m for m in everything if m.startswith("same")}
        missing = same - shared_fact_evidence(ws)
        assert not missing, f"lost updates: {len(missing)} of {len(same)} messages not evidence of the fact"
        check_consistent(ws)
        evidence = Counter(e.message_id for f in ws.facts.all() for e in f.evidence)
        assert any(m.startswith("dup-") for m in evidence), "the replayed messages left no knowledge"
        print(
            f"{n_nodes} nodes: messages={len(everything)} facts={len(ws.facts.all())} "
            f"shared-fact evidence={len(same)}"
        )
    finally:
        ws.close()


@pytest.mark.slow  # starts node processes that load spaCy (seconds each)
def test_a_fact_written_on_one_node_is_injected_by_another(tmp_path: Path, db_url: str) -> None:
    agent = "follow"
    a, b = start_nodes(tmp_path, db_url, agent, 2)
    prompt, needle = "Where does Zorblax Quint work?", "Hyperion Freight"
    try:
        assert needle not in json.dumps(b.call(op="prompts", questions=[prompt]))  # B has asked before
        in_db: list[float] = []

        def watch() -> None:
            with psycopg.connect(db_url, autocommit=True) as conn:
                sql = "SELECT 1 FROM ke_records WHERE agent = %s AND kind = 'facts' AND body::text LIKE %s"
                in_db.append(
                    wait_for(
                        lambda: conn.execute(sql, (agent, f"%{needle}%")).fetchone() is not None,
                        "the fact row",
                    )
                )

        watcher = threading.Thread(target=watch)
        watcher.start()
        # in the facts, not the conversation memory (which would show the message itself)
        b.send(op="prompt", prompt=prompt, needle=needle, section="Known Facts", timeout=DEADLINE_S)
        a.call(op="feed", messages=[["zq-1", f"Zorblax Quint works at {needle}."]])
        seen = b.result(DEADLINE_S + 30)
        watcher.join(DEADLINE_S + 30)
    finally:
        a.stop()
        b.stop()
    assert seen["found"], "node B never injected the fact node A wrote"
    assert in_db, "the fact never reached the database"
    print(
        f"follow delay: fact row in the database -> injected by node B: {seen['seen'] - in_db[0]:.3f} s "
        f"({seen['tries']} prompts)"
    )


@pytest.mark.slow  # starts node processes that load spaCy (seconds each)
def test_kill_9_of_a_node_mid_write_keeps_its_acknowledged_messages(tmp_path: Path, db_url: str) -> None:
    agent = "killed"
    seed = int(os.environ.get("KE_FAULT_SEED", time.time_ns() % 100000))
    rng = random.Random(seed)
    survivor, victim = start_nodes(tmp_path, db_url, agent, 2)
    acked_victim: set[str] = set()
    try:
        survivor.send(op="feed", prefix="s", start=0, stop=150, kind="stream", delay=0.01)
        for round_ in range(3):
            victim.send(op="feed", prefix=f"v{round_}", start=0, stop=10_000, kind="stream", delay=0.005)
            wait_for(lambda v=victim: len(v.acked()) >= len(acked_victim) + 20, "the victim's acks")
            time.sleep(rng.uniform(0.0, 0.5))  # the kill lands anywhere: extraction, a row write, a flush
            victim.kill()
            acked_victim.update(victim.acked())
            ws = inspector(tmp_path, db_url, agent)
            try:
                check_consistent(ws)  # consistent while a node is dead and its journal unreplayed
            finally:
                ws.close()
            (victim,) = start_nodes(tmp_path, db_url, agent, 1, first=1)  # same folder: the journal replays
        survivor.result(DEADLINE_S)
        flush_all([survivor, victim])
        acked_survivor = set(survivor.acked())
    finally:
        survivor.stop()
        victim.stop()
    ws = inspector(tmp_path, db_url, agent)
    try:
        check_stored_once(ws, acked_victim | acked_survivor, exact=False)
        check_consistent(ws)
    finally:
        ws.close()
    print(
        f"kill -9 figures: seed={seed} victim acknowledged={len(acked_victim)} survivor={len(acked_survivor)}"
    )


def retries(node: NodeProc) -> int:
    """How often the node's ingest found the store unavailable (and waited to try again)."""
    return int(node.call(DEADLINE_S, op="counters")["counters"].get("ingest.store_unavailable", 0))


@pytest.mark.slow  # starts node processes that load spaCy (seconds each)
def test_postgres_restarted_mid_ingest_loses_nothing_acknowledged(tmp_path: Path) -> None:
    agent = "restart"
    msgs = [[f"r-{i}", SAME if i % 3 == 0 else text_for("stream", i)] for i in range(240)]
    with pg_server_in_tempdir() as server:  # our own server: the session's is not stopped under others
        url = fresh_database(server.url, "ke_restart")
        (node,) = start_nodes(tmp_path, url, agent, 1)
        try:
            node.call(DEADLINE_S, op="feed", messages=msgs[:80], delay=0.01)
            server.stop()  # the node is still extracting and writing what it acknowledged
            node.call(DEADLINE_S, op="feed", messages=msgs[80:160], delay=0.01)  # acknowledged while down
            wait_for(lambda: retries(node) >= 2, "the node to find the store unavailable and wait")
            server.start()
            node.call(DEADLINE_S, op="feed", messages=msgs[160:], delay=0.01)
            flush_all([node])
            acked, waited = set(node.acked()), retries(node)
        finally:
            node.stop()
        ws = inspector(tmp_path, url, agent)
        try:
            assert len(acked) == len(msgs)
            check_stored_once(ws, acked)
            missing = {m for m in acked if int(m[2:]) % 3 == 0} - shared_fact_evidence(ws)
            assert not missing, f"the facts of {len(missing)} acknowledged messages were lost"
            check_consistent(ws)
        finally:
            ws.close()
            from knowledge_engine.store.postgres.connect import close_all

            close_all()  # before the server goes: no pool left retrying a deleted socket
    print(f"postgres restart: acknowledged={len(acked)} (80 while down), batches retried={waited}")


# ------------------------------------------------------------------ the ingest queue during an outage
def _queue(tmp_path: Path, process: Any) -> tuple[IngestQueue, IngestJournal]:
    journal = IngestJournal()
    return IngestQueue(process, 100, 8, journal), journal


def _msg(i: int) -> Message:
    return Message(id=f"q-{i}", text=f"message {i}", role="user", session="s")


def test_a_batch_the_store_cannot_take_waits_and_is_retried(tmp_path: Path) -> None:
    tries: list[int] = []

    def process(folder: Path, msgs: list[Message]) -> None:
        tries.append(len(msgs))
        if len(tries) < 3:
            raise StoreUnavailable("down", lambda: False)

    q, journal = _queue(tmp_path, process)
    try:
        q.submit(tmp_path, _msg(1))
        assert q.drain(60)
        assert tries == [1, 1, 1]
        assert journal.checkpoint(tmp_path) == (1, 0), "applied once the store took it"
    finally:
        q.stop(5)
        journal.close()


def test_a_batch_failing_while_the_store_answers_is_not_retried_forever(tmp_path: Path) -> None:
    tries: list[int] = []

    def process(folder: Path, msgs: list[Message]) -> None:
        tries.append(len(msgs))
        raise StoreUnavailable("poison", lambda: True)

    q, journal = _queue(tmp_path, process)
    failed = counters.get("ingest.failed")
    try:
        q.submit(tmp_path, _msg(2))
        assert q.drain(60)
        assert len(tries) == 3 and counters.get("ingest.failed") == failed + 1
        assert journal.checkpoint(tmp_path) == (1, 0), "counted and logged like any failing batch"
    finally:
        q.stop(5)
        journal.close()


def test_a_stop_while_the_store_is_down_parks_the_batch(tmp_path: Path) -> None:
    tries: list[int] = []

    def process(folder: Path, msgs: list[Message]) -> None:
        tries.append(len(msgs))
        raise StoreUnavailable("down", lambda: False)

    q, journal = _queue(tmp_path, process)
    try:
        q.submit(tmp_path, _msg(3))
        wait_for(lambda: len(tries) >= 2, "a retry", 60)
        q.stop(0.1)
        assert b'"q-3"' in (tmp_path / SPILL_NAME).read_bytes(), "parked for the next start"
        assert journal.checkpoint(tmp_path) == (1, 1), "still pending in the journal"
    finally:
        journal.close()
