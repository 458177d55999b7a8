"""`forget` while a host runs on the workspace: what it reports as done stays done (issue 13).

A real host process owns the workspace's pending work (journal, queue, spill, LLM inbox) and holds
records in memory; `forget` must reach all of it, through the host, so that neither the host's next
flush nor a replay after kill -9 brings the forgotten name or messages back.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from knowledge_engine.config import load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.model.records import Message
from tests.servers.ollama_server import FakeOllamaServer
from tests.test_cli_support import cli

pytestmark = pytest.mark.slow  # real processes and spaCy: outside the fast loop

NAME = "Zorblax Quint"

HOST = textwrap.dedent(
    """
    import json, sys
    from knowledge_engine.config import load_config
    from knowledge_engine.engine import KnowledgeEngine
    from knowledge_engine.model.records import Message

    engine = KnowledgeEngine(load_config(json.loads(sys.argv[1])))
    ws = engine.workspace("a")
    print("ready", flush=True)
    for line in sys.stdin:
        cmd = json.loads(line)
        op = cmd["op"]
        if op == "say":
            for mid, text in cmd["messages"]:
                engine.submit(ws, Message(id=mid, text=text, speaker="Ana", session="s1"))
        elif op == "drain":
            assert engine.queue.drain(300)
        elif op == "flush":
            assert engine.flush(300, sync=False)
        print("done", op, flush=True)
    """
)


class Host:
    """A host process driven over stdin; each command returns once the host has done it."""

    def __init__(self, tmp_path: Path, cfg: dict[str, Any]) -> None:
        script = tmp_path / "host.py"
        script.write_text(HOST)
        self.proc = subprocess.Popen(
            [sys.executable, str(script), json.dumps(cfg)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._line() == "ready"

    def _line(self) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, "the host process died"
        return line.strip()

    def send(self, op: str, **kw: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"op": op, **kw}) + "\n")
        self.proc.stdin.flush()
        assert self._line() == f"done {op}"

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.kill()


def config(tmp_path: Path, debounce_ms: int, llm_url: str | None = None) -> dict[str, Any]:
    cfg: dict[str, Any] = {
        "workspace": str(tmp_path / "{agentId}"),
        "storage": {"writeDebounceMs": debounce_ms},
        "embeddings": {"enabled": False},
        "retrieval": {"enabled": False},
        "maintenance": {"enabled": False},
        "extraction": {"spacy": {"workers": 0}},
    }
    if llm_url is not None:
        cfg["extraction"]["llm"] = {
            "enabled": True,
            "endpoint": llm_url,
            "batchSize": 3,
            "cooldownMs": 100,
            "maxRetries": 0,
            "failureThreshold": 1,
            "failureCooldownMs": 300,
        }
    return cfg


def files_with(folder: Path, needle: str) -> list[str]:
    """Every file whose bytes hold the needle in any letter case."""
    low = needle.lower().encode()
    return sorted(
        str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file() and low in p.read_bytes().lower()
    )


def test_the_running_hosts_next_flush_does_not_write_a_forgotten_entity_back(tmp_path: Path) -> None:
    folder = tmp_path / "a"
    host = Host(tmp_path, config(tmp_path, debounce_ms=600_000))  # writes only when told (or asked to forget)
    try:
        host.send(
            "say", messages=[["m1", f"{NAME} works at Initech in Boston."], ["m2", "Priya lives in Lisbon."]]
        )
        host.send("drain")
        host.send("flush")
        assert "entities.json" in files_with(folder, "zorblax")
        host.send("say", messages=[["m3", f"{NAME} moved to Berlin last week."]])
        host.send("drain")  # the host now holds the entity, updated, in memory only

        code, out, err = cli(
            "forget", "--entity", NAME, "-w", str(folder), "--yes", "--json", "--wait", "120"
        )
        assert code == 0, (out, err)
        report = json.loads(out)
        assert report["pending_applied_by"] == "host" and report["final"] is True
        assert report["remaining"] == []

        # "He" would have been the forgotten person, whom the session named last (m3)
        host.send("say", messages=[["m4", "He moved to Boston last week."], ["m5", "Omar works at Globex."]])
        host.send("drain")
        host.send("flush")  # before the fix: this flush wrote the entity back
        assert files_with(folder, "zorblax") == []
        entities = orjson.loads((folder / "entities.json").read_bytes())["entities"]
        values = {e["value"] for e in entities}
        assert {"Priya", "Omar"} <= values  # the rest of what the host knows is kept
        msgs = {
            m["id"]: m for m in json.loads(cli("messages", "-w", str(folder), "--json", "--limit", "0")[1])
        }
        assert msgs["m3"]["text"] == "[redacted] moved to Berlin last week."
        assert set(msgs) == {"m1", "m2", "m3", "m4", "m5"}
    finally:
        host.stop()


def test_forgotten_messages_are_not_replayed_after_kill_9(tmp_path: Path) -> None:
    folder = tmp_path / "a"
    cfg = config(tmp_path, debounce_ms=200)
    host = Host(tmp_path, cfg)
    forgotten, kept = set(), set()
    try:
        host.send("say", messages=[["m0", f"{NAME} works at Initech in Boston."]])
        host.send("drain")
        host.send("flush")
        burst = []
        for i in range(1500):  # far more than the host extracts during the forget: most are still pending
            if i % 4 == 0:
                burst.append([f"b{i}", f"{NAME} called about invoice {i}."])
                forgotten.add(f"b{i}")
            else:
                burst.append([f"b{i}", f"Note {i}: Dana met Priya at Initech."])
                kept.add(f"b{i}")
        host.send("say", messages=burst)  # every one accepted (journalled) when this returns

        code, out, err = cli(
            "forget",
            "--entity",
            NAME,
            "--delete-messages",
            "-w",
            str(folder),
            "--yes",
            "--json",
            "--wait",
            "120",
        )
        report = json.loads(out) if out.lstrip().startswith("{") else {}
        assert code == 0, (report.get("remaining"), report.get("pending_applied_by"), err)  # which file
        assert report["pending_applied_by"] == "host" and report["final"] is True
        assert report["pending"]["dropped"] > 0  # the host still held forgotten messages: the race was run
    finally:
        host.kill()  # kill -9 while it still works through the burst

    engine = KnowledgeEngine(load_config(cfg))
    try:
        ws = engine.workspace("a")
        assert engine.flush(300, sync=False)
        stored = {m.id for m in ws.messages.iter()}
        assert not stored & forgotten  # none replayed from the journal or spill file
        assert kept <= stored  # and nothing else lost
        assert not [e for e in ws.entities.all() if "zorblax" in e.value.lower()]
    finally:
        engine.stop(10)
    assert files_with(folder, "zorblax") == []


def _parked_batch(folder: Path, messages: list[Message]) -> Path:
    pending = folder / "llm-pending"
    pending.mkdir(parents=True, exist_ok=True)
    path = pending / "batch-00000000000000000001-aaaaaaaa.json"
    body = {
        "version": 1,
        "id": "00000000000000000001-aaaaaaaa",
        "reason": "cooling_down",
        "content_failures": 0,
        "messages": [m.model_dump(mode="json") for m in messages],
    }
    path.write_bytes(orjson.dumps(body))
    return path


def _llm_evidence(ws: Any) -> set[str]:
    return {e.message_id for f in ws.facts.all() if f.source == "llm" for e in f.evidence}


def test_a_parked_llm_batch_keeps_its_other_messages(tmp_path: Path, ollama_server: FakeOllamaServer) -> None:
    folder = tmp_path / "a"
    engine = KnowledgeEngine(load_config(config(tmp_path, debounce_ms=0)))
    ws = engine.workspace("a")
    engine.ingest(ws, [Message(id="m0", text=f"{NAME} works at Initech in Boston.", speaker="Ana")])
    engine.stop(10)
    ts = "2025-01-01T10:00:00Z"
    batch = _parked_batch(
        folder,
        [
            Message.model_validate({"id": "p1", "text": f"{NAME} works at Hooli.", "timestamp": ts}),
            Message.model_validate({"id": "p2", "text": "Nadia works at Vandelay.", "timestamp": ts}),
            Message.model_validate({"id": "p3", "text": "Omar lives in Lisbon.", "timestamp": ts}),
        ],
    )

    code, out, err = cli(
        "forget", "--entity", NAME, "--delete-messages", "-w", str(folder), "--yes", "--json"
    )
    assert code == 0, (out, err)
    assert json.loads(out)["pending_applied_by"] == "this process"
    left = orjson.loads(batch.read_bytes())["messages"]
    assert [m["id"] for m in left] == ["p2", "p3"]  # only the forgotten message left the batch

    engine = KnowledgeEngine(load_config(config(tmp_path, debounce_ms=0, llm_url=ollama_server.url)))
    try:
        ws = engine.workspace("a")
        deadline = time.monotonic() + 60
        while not {"p2", "p3"} <= _llm_evidence(ws) and time.monotonic() < deadline:
            engine.flush(5, sync=False)
            time.sleep(0.05)
        assert {"p2", "p3"} <= _llm_evidence(ws)
        assert "p1" not in _llm_evidence(ws)
    finally:
        engine.stop(10)
    assert files_with(folder, "zorblax") == []


def test_a_host_redacts_its_parked_batches_and_inbox_message_by_message(
    tmp_path: Path, ollama_server: FakeOllamaServer
) -> None:
    folder = tmp_path / "a"
    ollama_server.default = "http500"  # the LLM is down: the host parks its batches
    cfg = config(tmp_path, debounce_ms=100, llm_url=ollama_server.url)
    host = Host(tmp_path, cfg)
    try:
        host.send("say", messages=[["m0", f"{NAME} works at Initech in Boston."]])
        host.send("drain")
        host.send("flush")
        host.send(
            "say",
            messages=[
                ["q1", f"{NAME} works at Hooli."],
                ["q2", "Nadia works at Vandelay."],
                ["q3", "Omar lives in Lisbon."],
            ],
        )
        host.send("drain")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            parked = [orjson.loads(p.read_bytes()) for p in (folder / "llm-pending").glob("batch-*.json")]
            if any(m["id"] == "q1" for b in parked for m in b["messages"]):
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the host never parked the batch")

        code, out, err = cli(
            "forget", "--entity", NAME, "-w", str(folder), "--yes", "--json", "--wait", "120"
        )
        assert code == 0, (out, err)
        assert json.loads(out)["pending_applied_by"] == "host"
        assert files_with(folder, "zorblax") == []

        ollama_server.default = "ok"  # the LLM is back: the others get their LLM facts
        deadline = time.monotonic() + 90
        got: set[str] = set()
        while time.monotonic() < deadline:
            host.send("flush")
            applied = orjson.loads((folder / "facts.json").read_bytes())["meta"]["applied"]
            got = {key.split("|")[0] for key in applied if key.endswith("|llm")}  # LLM extraction stored
            if {"q2", "q3"} <= got:
                break
            time.sleep(0.1)
        assert {"q2", "q3"} <= got, got
        host.send("flush")
        assert files_with(folder, "zorblax") == []
    finally:
        host.stop()


LOCK_HOLDER = textwrap.dedent(
    """
    import fcntl, os, sys, time
    fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    print("locked", flush=True)
    time.sleep(float(sys.argv[2]))  # an owner that never answers forget requests, then exits
    """
)


def _store_with_name(tmp_path: Path) -> Path:
    engine = KnowledgeEngine(load_config(config(tmp_path, debounce_ms=0)))
    ws = engine.workspace("a")
    engine.ingest(ws, [Message(id="m0", text=f"{NAME} works at Initech in Boston.", speaker="Ana")])
    engine.stop(10)
    return tmp_path / "a"


def _hold_lock(folder: Path, seconds: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", LOCK_HOLDER, str(folder / ".ingest.lock"), str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


def test_an_owner_that_does_not_answer_makes_forget_say_not_final(tmp_path: Path) -> None:
    folder = _store_with_name(tmp_path)
    holder = _hold_lock(folder, 600)
    try:
        code, out, err = cli("forget", "--entity", NAME, "-w", str(folder), "--yes", "--json", "--wait", "1")
        assert code == 5, (out, err)
        report = json.loads(out)
        assert report["pending_applied_by"] == "host_timeout" and report["final"] is False
        assert report["entities"] == 1  # what it could do, it did: the stores are clean
        assert list((folder / "forget-requests").iterdir()) == []  # the request (it names it) is withdrawn
        code, _, err = cli("forget", "--entity", NAME, "-w", str(folder), "--yes", "--wait", "1")
        assert code == 1 and "no entity" in err
    finally:
        holder.kill()
        holder.wait()


def test_an_owner_that_exits_while_forget_waits_leaves_the_work_to_forget(tmp_path: Path) -> None:
    folder = _store_with_name(tmp_path)
    journal = folder / "ingest-journal.jsonl"
    journal.write_bytes(
        Message(id="j1", text=f"Call {NAME} back", speaker="Ana").model_dump_json().encode()
        + b"\n"
        + Message(id="j2", text="Buy milk", speaker="Ana").model_dump_json().encode()
        + b"\n"
    )
    holder = _hold_lock(folder, 1.5)  # stops (without answering) while forget waits for it
    try:
        code, out, err = cli(
            "forget", "--entity", NAME, "-w", str(folder), "--yes", "--json", "--wait", "120"
        )
    finally:
        holder.wait()
    assert code == 0, (out, err)
    report = json.loads(out)
    assert report["pending_applied_by"] == "this process" and report["final"] is True
    waiting = [json.loads(x) for x in journal.read_text().splitlines()]
    assert [(m["id"], m["text"]) for m in waiting] == [("j1", "Call [redacted] back"), ("j2", "Buy milk")]
    assert files_with(folder, "zorblax") == []


def test_a_request_taken_by_a_host_that_died_is_answered_by_the_next_owner(tmp_path: Path) -> None:
    from knowledge_engine.ingest.redact import ForgetRequest

    folder = _store_with_name(tmp_path)
    reqdir = folder / "forget-requests"
    reqdir.mkdir()
    ent = next(
        e
        for e in orjson.loads((folder / "entities.json").read_bytes())["entities"]
        if "Zorblax" in e["value"]
    )
    request = ForgetRequest(id="r1", terms=[NAME], entity_ids=[ent["id"]])
    (reqdir / "r1.taken").write_text(request.model_dump_json())  # the owner was killed while applying it
    engine = KnowledgeEngine(load_config(config(tmp_path, debounce_ms=0)))
    try:
        engine.workspace("a")
        deadline = time.monotonic() + 60
        while not (reqdir / "r1.done").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert orjson.loads((reqdir / "r1.done").read_bytes())["pending"]["examined"] >= 0
        assert not (reqdir / "r1.taken").exists()
        assert "entities.json" not in files_with(folder, "zorblax")
    finally:
        engine.stop(10)


STORE_JOB = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from knowledge_engine.config import load_config
    from knowledge_engine.maintenance.runs import maintenance_dir, wait_lock
    from knowledge_engine.model.records import utcnow
    from knowledge_engine.store.workspace import Workspace

    folder = Path(sys.argv[1])
    ws = Workspace(folder, load_config({}))
    with wait_lock(maintenance_dir(folder) / "meta.lock", 60):  # as a maintenance store job runs
        ws.refresh()
        for ent in ws.entities.all():  # what decay does: every record changed in memory
            ent.importance *= 0.9
            ent.updated_at = utcnow()
            ws.entities.table.put(ent)
        print("holding", flush=True)
        sys.stdin.readline()
        ws.entities.table.flush()
        ws.facts.table.flush()
    """
)


def test_forget_never_runs_across_a_maintenance_store_job(tmp_path: Path) -> None:
    """A decay that read the store before the forget would write the forgotten entity back after it."""
    folder = _store_with_name(tmp_path)
    cfg_file = tmp_path / "cfg.json"
    cfg_file.write_text(
        json.dumps({"embeddings": {"enabled": False}, "maintenance": {"lockTimeoutSeconds": 1}})
    )
    job = subprocess.Popen(
        [sys.executable, "-c", STORE_JOB, str(folder)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert job.stdout is not None and job.stdin is not None
    try:
        assert job.stdout.readline().strip() == "holding"
        code, out, err = cli("forget", "--entity", NAME, "-w", str(folder), "-c", str(cfg_file), "--yes")
        assert code == 5 and "maintenance job" in err, (out, err)  # said so, instead of being undone
        job.stdin.write("go\n")
        job.stdin.flush()
        assert job.wait(60) == 0
    finally:
        if job.poll() is None:
            job.kill()
    assert "entities.json" in files_with(folder, "zorblax")  # the job wrote its copy: still there
    code, out, err = cli("forget", "--entity", NAME, "-w", str(folder), "-c", str(cfg_file), "--yes")
    assert code == 0, (out, err)
    assert files_with(folder, "zorblax") == []
