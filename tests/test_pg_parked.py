"""Parked LLM batches on the shared store (issue 17): a batch parked by one node is sent by another,
exactly once, even with two nodes retrying at once; a node killed while holding a claim does not
strand it (its lease ends). Real PostgreSQL, the loopback Ollama server, real LlmBatchers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import psycopg
import pytest
from typer.testing import CliRunner

from knowledge_engine.cli.app import app
from knowledge_engine.config import LlmConfig, PostgresStorageConfig, load_config
from knowledge_engine.extract.batcher import LlmBatcher
from knowledge_engine.extract.llm import LlmTier
from knowledge_engine.ingest.redact import ForgetRequest, Redactor
from knowledge_engine.llm.factory import make_client
from knowledge_engine.store.postgres.parked import PgParked
from knowledge_engine.store.workspace import Workspace
from tests.fixtures.postgres import database_fixture, files_holding, relation_files, store_config
from tests.servers.ollama_server import FakeOllamaServer
from tests.test_cli_ingest import TEXTS, line
from tests.test_cli_support import cli
from tests.test_llm_batcher import WAIT, Sink, wait_until
from tests.test_llm_tier import make_messages

pg_parked_db = database_fixture("ke_parked_test")
AGENT = "shared"

Node = Callable[..., tuple[LlmBatcher, Sink, PgParked]]


@pytest.fixture
def node(pg_parked_db: str, ollama_server: FakeOllamaServer, tmp_path: Path) -> Iterator[Node]:
    """A node: its own batcher, sink, local folder and claimer identity, on the one shared table."""
    with psycopg.connect(pg_parked_db, autocommit=True) as conn:
        conn.execute("DELETE FROM ke_parked")  # each test starts with nothing parked (_migrated made it)
    made: list[LlmBatcher] = []

    def factory(name: str, lease_s: float = 600.0, **kw: object) -> tuple[LlmBatcher, Sink, PgParked]:
        raw = {"endpoint": ollama_server.url, "enabled": True, "cooldownMs": 60000, "retryBackoffMs": 1, **kw}
        config = LlmConfig.model_validate(raw)
        parked = PgParked(PostgresStorageConfig(url=pg_parked_db), AGENT, lease_s=lease_s)
        sink = Sink()
        b = LlmBatcher(
            config,
            LlmTier(config, make_client(config)),
            tmp_path / name / "llm-pending",
            sink,
            lambda: [("Acme", "organization")],
            parked=parked,
        )
        made.append(b)
        return b, sink, parked

    yield factory
    for b in made:
        b.stop(1.0)


@pytest.fixture(scope="module", autouse=True)
def _migrated(pg_parked_db: str) -> None:
    PgParked(PostgresStorageConfig(url=pg_parked_db), AGENT).waiting()  # opens the pool: migrates


def park_on_a(node: Node, ollama_server: FakeOllamaServer, n: int, size: int) -> list[str]:
    """Node A parks every batch (the LLM answers 500) and stops: its disk is no longer involved."""
    ollama_server.default = "http500"
    a, a_sink, a_parked = node("a", batchSize=size, maxRetries=0, failureCooldownMs=600000)
    a.start()
    messages = make_messages(n)
    for m in messages:
        a.add(m)
    assert a.flush(WAIT)
    a.stop(1.0)
    assert a_sink.batches == []
    assert len(a_parked.waiting()) == -(-n // size)
    assert not list((Path(a._pending_dir)).glob("batch-*"))  # nothing parked on A's own disk
    return [m.id for m in messages]


def test_a_batch_parked_by_one_node_is_delivered_by_another_once(
    node: Node, ollama_server: FakeOllamaServer
) -> None:
    ids = park_on_a(node, ollama_server, 6, 2)
    ollama_server.default = "ok"
    calls = len(ollama_server.calls())
    b, b_sink, b_parked = node("b", batchSize=2)
    assert b.retry_pending() == 3
    assert Counter(b_sink.delivered_ids()) == Counter(ids)
    assert b_parked.waiting() == [] and b.stats()["pending_batches"] == 0
    assert len(ollama_server.calls()) - calls == 3
    assert b.retry_pending() == 0


def test_two_nodes_retrying_at_once_send_each_batch_once(node: Node, ollama_server: FakeOllamaServer) -> None:
    ids = park_on_a(node, ollama_server, 20, 2)
    ollama_server.default = "slow"  # each answer takes a while: the two passes overlap
    calls = len(ollama_server.calls())
    (b, b_sink, _), (c, c_sink, c_parked) = node("b", batchSize=2), node("c", batchSize=2)
    done: list[int] = []
    threads = [threading.Thread(target=lambda n=n: done.append(n.retry_pending())) for n in (b, c)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT * 4)
    delivered = b_sink.delivered_ids() + c_sink.delivered_ids()
    assert sorted(delivered) == sorted(ids)  # every message, none twice
    assert sum(done) == 10 and len(ollama_server.calls()) - calls == 10  # one LLM call per batch
    assert c_parked.waiting() == []


def test_a_live_claim_keeps_other_nodes_off(node: Node, ollama_server: FakeOllamaServer) -> None:
    park_on_a(node, ollama_server, 2, 2)
    ollama_server.default = "ok"
    b, b_sink, b_parked = node("b", batchSize=2)
    holder = PgParked(b_parked._cfg, AGENT)  # another node, in the middle of sending it
    (key,) = holder.waiting()
    assert holder.claim(key)
    assert b.retry_pending() == 0 and b_sink.batches == []
    holder.unclaim(key)  # it failed and gave the batch back
    assert b.retry_pending() == 1 and len(b_sink.delivered_ids()) == 2


CLAIMER = """
import sys, time
from knowledge_engine.config import PostgresStorageConfig
from knowledge_engine.store.postgres.parked import PgParked
from knowledge_engine.store.workspace import Workspace
p = PgParked(PostgresStorageConfig(url=sys.argv[1]), sys.argv[2], lease_s=float(sys.argv[3]))
(key,) = p.waiting()
assert p.claim(key)
print(p.node, flush=True)
time.sleep(3600)
"""


def test_a_node_killed_while_holding_a_claim_does_not_strand_the_batch(
    node: Node, ollama_server: FakeOllamaServer, pg_parked_db: str
) -> None:
    ids = park_on_a(node, ollama_server, 2, 2)
    ollama_server.default = "ok"
    proc = subprocess.Popen(
        [sys.executable, "-c", CLAIMER, pg_parked_db, AGENT, "2"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    try:
        assert proc.stdout is not None
        dead = proc.stdout.readline().strip()
        assert dead
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(WAIT)
    with psycopg.connect(pg_parked_db, autocommit=True) as conn:
        row = conn.execute("SELECT claimed_by FROM ke_parked WHERE agent = %s", (AGENT,)).fetchone()
    assert row == (dead,)  # the dead node still holds the claim
    b, b_sink, _ = node("b", batchSize=2)
    delivered = 0

    def retried() -> bool:
        nonlocal delivered
        delivered += b.retry_pending()
        if not delivered:
            time.sleep(0.2)  # poll interval while the dead node's lease runs out
        return delivered > 0

    assert wait_until(retried)
    assert delivered == 1 and Counter(b_sink.delivered_ids()) == Counter(ids)


def test_forget_removes_parked_messages_from_the_database(
    node: Node, ollama_server: FakeOllamaServer, pg_parked_db: str
) -> None:
    ollama_server.default = "http500"
    a, _, a_parked = node("a", batchSize=2, maxRetries=0, failureCooldownMs=600000)
    a.start()
    messages = make_messages(2)
    secret = messages[0].model_copy(update={"text": "Zorblax works at Acme."})
    for m in (secret, messages[1]):
        a.add(m)
    assert a.flush(WAIT)
    a.stop(1.0)
    tally = a_parked.forget(Redactor(ForgetRequest(id="f1", terms=["Zorblax"], delete_messages=True)), None)
    assert tally.dropped == 1
    with psycopg.connect(pg_parked_db, autocommit=True) as conn:
        bodies = [r[0] for r in conn.execute("SELECT body FROM ke_parked WHERE agent = %s", (AGENT,))]
    assert len(bodies) == 1 and "Zorblax" not in bodies[0] and messages[1].id in bodies[0]


def llm_store_config(tmp_path: Path, url: str, ollama: FakeOllamaServer) -> tuple[dict[str, Any], Path]:
    """The shared store with the LLM tier on (4 messages a batch, no quiet timer, no retry)."""
    cfg = store_config(url)
    cfg["extraction"] = {
        "spacy": {"facts": False},
        "llm": {
            "enabled": True,
            "endpoint": ollama.url,
            "batchSize": 4,
            "cooldownMs": 600_000,
            "maxRetries": 0,
            "retryBackoffMs": 10,
            "failureCooldownMs": 600_000,
        },
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    return cfg, path


def ingest_with_llm_down(tmp_path: Path, config: Path, ollama: FakeOllamaServer, agent: str) -> Path:
    """Node A ingests TEXTS (m0..m7) while the LLM answers 500: two batches parked, none on its disk."""
    path = tmp_path / "t.jsonl"
    path.write_text("".join(line(i, t) + "\n" for i, t in enumerate(TEXTS)))
    ollama.default = "http500"
    node_a = tmp_path / "node-a"
    code, out, err = cli(
        "ingest", "-w", str(node_a), str(path), "-c", str(config), "--agent", agent, "--no-wait-llm", "--json"
    )
    assert code == 0, err
    assert json.loads(out)["llm"]["pending_batches"] == 2
    assert not list(node_a.glob("llm-pending/batch-*"))  # parked in the database, not on A's disk
    return node_a


def test_maintain_on_another_node_delivers_what_a_node_parked_into_the_shared_store(
    tmp_path: Path, pg_parked_db: str, ollama_server: FakeOllamaServer
) -> None:
    """End to end through the CLI: node A ingests while the LLM is down (its batches parked in the
    database, none on its disk); node B, another folder, runs `maintain --job llm_retry` once the LLM
    is back: every batch sent once, and the LLM's facts are in the shared store for every node."""
    with psycopg.connect(pg_parked_db, autocommit=True) as conn:
        conn.execute("DELETE FROM ke_parked")
    cfg, config = llm_store_config(tmp_path, pg_parked_db, ollama_server)
    ingest_with_llm_down(tmp_path, config, ollama_server, AGENT)
    node_b = tmp_path / "node-b"
    ollama_server.default = "ok"
    calls = len(ollama_server.calls())
    node_b.mkdir()  # a node that never saw these messages
    code, out, err = cli("stats", "-w", str(node_b), "-c", str(config), "--agent", AGENT, "--json")
    assert code == 0, err
    assert json.loads(out)["llm_pending_batches"] == 2  # parked by node A, seen from node B
    code, out, err = cli(
        "maintain",
        "--once",
        "--job",
        "llm_retry",
        "-w",
        str(node_b),
        "-c",
        str(config),
        "--agent",
        AGENT,
        "--json",
    )
    assert code == 0, err
    (record,) = json.loads(out)
    assert record["changed"] == {"delivered": 2, "pending": 0}, record
    assert len(ollama_server.calls()) - calls == 2
    code, out, err = cli("stats", "-w", str(node_b), "-c", str(config), "--agent", AGENT, "--json")
    assert json.loads(out)["llm_pending_batches"] == 0
    ws = Workspace(tmp_path / "reader", load_config(cfg), AGENT)
    assert sum(f.source == "llm" for f in ws.facts.all()) == len(TEXTS)


FORGETFUL = "forgetful"  # an agent of its own: the messages are new to it


def test_forget_on_any_node_leaves_no_trace_of_a_parked_message(
    tmp_path: Path, pg_parked_db: str, ollama_server: FakeOllamaServer
) -> None:
    """A message parked by node A is forgotten from node B: gone from its batch row and, after the
    VACUUM FULL, from ke_parked's files (heap, TOAST, indexes); the batch's other messages stay parked."""
    with psycopg.connect(pg_parked_db, autocommit=True) as conn:
        conn.execute("DELETE FROM ke_parked")
    _, config = llm_store_config(tmp_path, pg_parked_db, ollama_server)
    ingest_with_llm_down(tmp_path, config, ollama_server, FORGETFUL)
    needles = [b"vandelay"]  # only in m0's text (lower case: the scan ignores letter case)
    with psycopg.connect(pg_parked_db, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
        assert files_holding(relation_files(conn, "ke_parked"), needles)
    node_b = tmp_path / "node-b"
    node_b.mkdir()
    code, out, err = cli(
        "forget",
        "--message",
        "m0",
        "-w",
        str(node_b),
        "-c",
        str(config),
        "--agent",
        FORGETFUL,
        "-y",
        "--json",
    )
    assert code == 0, err
    assert json.loads(out)["remaining"] == []
    with psycopg.connect(pg_parked_db, autocommit=True) as conn:
        bodies = [r[0] for r in conn.execute("SELECT body FROM ke_parked WHERE agent = %s", (FORGETFUL,))]
        conn.execute("CHECKPOINT")
        assert not files_holding(relation_files(conn, "ke_parked"), needles)
    ids = sorted(m["id"] for b in bodies for m in json.loads(b)["messages"])
    assert ids == [f"m{i}" for i in range(1, len(TEXTS))]


MOVER = "mover"  # an agent of its own for the migrate test


def test_migrate_carries_parked_batches_to_postgres_and_back_where_another_node_sends_them(
    tmp_path: Path, pg_parked_db: str, ollama_server: FakeOllamaServer
) -> None:
    """`migrate` copies parked batches (waiting, set aside as failed, corrupt) both ways byte for byte;
    on the database they are unclaimed, so a node of the target sends the waiting one."""
    src, back = tmp_path / "src", tmp_path / "back"
    pending = src / "llm-pending"
    pending.mkdir(parents=True)
    msgs = make_messages(3)
    body = orjson.dumps(
        {"version": 1, "id": "0001-a", "messages": [m.model_dump(mode="json") for m in msgs[:2]]}
    )
    failed = orjson.dumps({"version": 1, "id": "0002-b", "messages": [msgs[2].model_dump(mode="json")]})
    (pending / "batch-0001-a.json").write_bytes(body)
    (pending / "batch-0002-b.failed").write_bytes(failed)
    (pending / "batch-0003-c.corrupt").write_bytes(b'{"version": 1, "messages": [')
    parts = psycopg.conninfo.conninfo_to_dict(pg_parked_db)
    url = f"postgresql://{parts['user']}@/{parts['dbname']}?host={parts['host']}"  # migrate takes a URL
    out = CliRunner().invoke(app, ["migrate", "--from", str(src), "--to", url, "--agent", MOVER, "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["counts"]["llm_parked_batches"] == 3

    out = CliRunner().invoke(app, ["migrate", "--from", url, "--to", str(back), "--agent", MOVER, "--json"])
    assert out.exit_code == 0, out.output
    copied = {p.name: p.read_bytes() for p in (back / "llm-pending").iterdir()}
    assert copied == {p.name: p.read_bytes() for p in pending.iterdir()}

    ollama_server.default = "ok"
    config = LlmConfig.model_validate({"endpoint": ollama_server.url, "enabled": True, "batchSize": 2})
    sink = Sink()
    node_b = LlmBatcher(
        config, LlmTier(config, make_client(config)), tmp_path / "b" / "llm-pending", sink, lambda: [],
        parked=PgParked(PostgresStorageConfig(url=pg_parked_db), MOVER),
    )  # fmt: skip
    assert node_b.retry_pending() == 1 and sink.delivered_ids() == [msgs[0].id, msgs[1].id]
    assert node_b.stats()["failed_batches"] == 1
