"""`ingest`: encodings, what happened to every line (new, already stored, conflicting id), what the run
added, and the wait for the LLM tier (against the loopback Ollama server, made slow or hanging)."""

from __future__ import annotations

import codecs
import fcntl
import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest

from knowledge_engine.config import load_config
from knowledge_engine.model.records import Message
from knowledge_engine.store.workspace import Workspace
from tests.servers.ollama_server import FakeOllamaServer
from tests.test_cli_progress import run_piped, run_with_tty_stderr
from tests.test_cli_support import cli

T = "2026-03-02T09:{:02d}:00+00:00"
TEXTS = [
    "Nadia works at Vandelay Industries.",
    "Omar lives in Rotterdam.",
    "Priya moved to Montreal.",
    "Quentin likes Tarantino.",
    "Rosa works at Wayne Enterprises.",
    "Sven lives in Göteborg.",
    "Tariq moved to Zürich.",
    "Ulla likes Kafka.",
]


def line(i: int, text: str, id_: str | None = None, speaker: str = "Zoë") -> str:
    doc = {"id": id_ or f"m{i}", "role": "user", "speaker": speaker, "text": text, "timestamp": T.format(i)}
    return json.dumps(doc, ensure_ascii=False)


def transcript(path: Path, lines: list[str], encoding: str = "utf-8") -> Path:
    path.write_bytes(("\n".join(lines) + "\n").encode(encoding))
    return path


def stored_text(ws: Path, message_id: str) -> str | None:
    msg = Workspace(ws, load_config({})).messages.get(message_id)
    return None if msg is None else msg.text


# ------------------------------------------------------------------------------------------- encodings
def test_a_latin1_file_is_one_clear_error_naming_the_first_bad_byte(tmp_path: Path) -> None:
    ok = line(0, "Omar lives in Rotterdam.", speaker="Omar")  # ASCII: the same bytes in both encodings
    bad = line(1, "Ren\xe9 works at Caf\xe9 Noir.", speaker="Ren\xe9")
    path = transcript(tmp_path / "t.jsonl", [ok, bad], "latin-1")
    ws = tmp_path / "ws"
    code, _, err = cli("ingest", "-w", str(ws), str(path))
    assert code == 1, err
    offset = len(ok) + 1 + bad.index("\xe9")
    assert "not UTF-8 (looks like Latin-1?)" in err and f"byte offset {offset} (line 2)" in err, err
    assert "0xE9" in err and "not valid JSON" not in err
    assert not ws.exists()  # nothing was ingested, no workspace made


@pytest.mark.parametrize("bom", ["utf-8-sig", "utf-16", "utf-16-le", "utf-16-be"])
def test_utf8_with_a_bom_and_utf16_with_a_bom_are_decoded(tmp_path: Path, bom: str) -> None:
    lines = [line(i, t) for i, t in enumerate(TEXTS[5:7])]
    raw = ("\n".join(lines) + "\n").encode(bom.replace("-le", "").replace("-be", ""))
    if bom in ("utf-16-le", "utf-16-be"):  # an explicit BOM, then that byte order
        codec = bom
        raw = (codecs.BOM_UTF16_LE if bom.endswith("le") else codecs.BOM_UTF16_BE) + (
            "\n".join(lines) + "\n"
        ).encode(codec)
    path = tmp_path / "t.jsonl"
    path.write_bytes(raw)
    ws = tmp_path / "ws"
    code, out, err = cli("ingest", "-w", str(ws), str(path), "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["messages"] == 2 and result["skipped_lines"] == 0
    assert result["transcript"]["lines"] == 2
    assert stored_text(ws, "m0") == TEXTS[5] and stored_text(ws, "m1") == TEXTS[6]


def test_utf16_without_a_bom_is_said_so(tmp_path: Path) -> None:
    path = transcript(tmp_path / "t.jsonl", [line(0, "Omar lives in Rotterdam.")], "utf-16-le")
    code, _, err = cli("ingest", "-w", str(tmp_path / "ws"), str(path))
    assert code == 1 and "not UTF-8" in err and "without a byte-order mark" in err, err


def test_a_directory_is_a_directory_and_a_missing_file_not_found(tmp_path: Path) -> None:
    code, _, err = cli("ingest", "-w", str(tmp_path / "ws"), str(tmp_path))
    assert code == 1 and "is a directory" in err and "not found" not in err, err
    code, _, err = cli("ingest", "-w", str(tmp_path / "ws"), str(tmp_path / "nope.jsonl"))
    assert code == 1 and "not found" in err, err


# ------------------------------------------------------------------------------ what happened to each line
@pytest.mark.slow  # three ingest runs, each loading spaCy
def test_each_line_is_new_already_stored_or_a_reported_conflict(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    first = transcript(tmp_path / "a.jsonl", [line(0, TEXTS[0]), line(1, TEXTS[1])])
    code, out, err = cli("ingest", "-w", str(ws), str(first), "--json")
    assert code == 0, err
    before = json.loads(out)
    assert before["messages_new"] == 2 and before["facts_added"] == before["facts_total"]
    second = transcript(
        tmp_path / "b.jsonl",
        [
            line(0, TEXTS[0]),  # the same message again
            line(1, "Omar lives in Utrecht."),  # its id, another text
            line(2, TEXTS[4]),
            line(3, "Rosa lives in Gotham.", id_="m2"),  # the id of line 3 of this file, another text
            line(4, TEXTS[2]),
            "not json",
        ],
    )
    code, out, err = cli("ingest", "-w", str(ws), str(second), "--json")
    assert code == 3, err  # ingested, but lines were skipped
    result = json.loads(out)
    assert (result["messages"], result["messages_new"], result["messages_already_stored"]) == (3, 2, 1)
    assert result["messages_conflicting"] == 2 and result["skipped_lines"] == 3
    assert result["conflicts"] == [
        {"line": 2, "id": "m1", "first_line": None},
        {"line": 4, "id": "m2", "first_line": 3},
    ]
    assert result["errors"] == ["line 6: not valid JSON (invalid literal, expected 'null' at column 1)"]
    assert stored_text(ws, "m1") == TEXTS[1] and stored_text(ws, "m2") == TEXTS[4]  # the first text stays
    # what this run added, next to the totals (the totals alone were reported before)
    assert result["facts_total"] == before["facts_total"] + result["facts_added"]
    assert result["entities_total"] == before["entities_total"] + result["entities_added"]
    assert result["entities_added"] < result["entities_total"]
    stats = json.loads(cli("stats", "-w", str(ws), "--json")[1])
    assert (stats["facts"], stats["entities"]) == (result["facts_total"], result["entities_total"])

    code, _, err = cli("ingest", "-w", str(ws), str(second))  # the same, for people
    assert code == 3
    assert "line 2: id 'm1' is already in the workspace before this run with a different text" in err
    assert "line 4: id 'm2' is already in line 3 of this file with a different text" in err
    assert "0 new, 3 already stored; 3 lines skipped (2 with a conflicting id)" in err
    assert "added 0 entities and 0 facts" in err


# ------------------------------------------------------------------------------------------ the LLM tier
def llm_config(tmp_path: Path, url: str) -> Path:
    """Batches leave when full (4 messages), never by a quiet timer."""
    cfg = {
        "storage": {"writeDebounceMs": 0},
        "embeddings": {"enabled": False},
        "extraction": {
            "spacy": {"facts": False},  # the model's facts are then the only ones of these messages
            "llm": {
                "enabled": True,
                "endpoint": url,
                "batchSize": 4,
                "cooldownMs": 600_000,
                "timeoutMs": 60_000,
                "retryBackoffMs": 10,
            },
        },
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    return path


def llm_fact_count(ws: Path) -> int:
    return sum(f.source == "llm" for f in Workspace(ws, load_config({})).facts.all())


def unlocked(path: Path) -> bool:
    """No process (this one included) holds the parked file's send lock."""
    with open(path, "rb") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(fh, fcntl.LOCK_UN)
        return True


def wait_for(cond: Callable[[], bool], timeout_s: float = 120.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def ingest_json(*args: str) -> tuple[int, dict[str, Any], str]:
    code, out, err = cli("ingest", *args, "--json")
    return code, (json.loads(out) if out.strip() else {}), err


@pytest.mark.slow
def test_ingest_waits_for_a_slow_llm_and_counts_its_facts(
    tmp_path: Path, ollama_server: FakeOllamaServer
) -> None:
    ollama_server.slow_seconds = 1.5  # every answer takes a while, as a local model's does
    ollama_server.default = "slow"
    ws = tmp_path / "ws"
    path = transcript(tmp_path / "t.jsonl", [line(i, t) for i, t in enumerate(TEXTS)])
    cfg = llm_config(tmp_path, ollama_server.url)
    code, result, err = ingest_json("-w", str(ws), "--config", str(cfg), str(path))
    assert code == 0, err
    assert len(ollama_server.calls()) == 2
    assert result["llm"] == {
        "waited": True,
        "delivered_batches": 2,
        "delivered_messages": 8,
        "pending_batches": 0,
        "failed_batches": 0,
        "failed_calls": 0,
    }
    assert llm_fact_count(ws) >= 8  # the model's facts are in the store, and in the counts
    assert result["facts_added"] == result["facts_total"] >= llm_fact_count(ws)


@pytest.mark.slow
def test_no_wait_parks_and_says_so_then_maintain_delivers_and_counts_truly(
    tmp_path: Path, ollama_server: FakeOllamaServer
) -> None:
    ollama_server.default = "hang"  # the model does not answer while ingest runs (until released)
    ollama_server.hang_seconds = 600
    ws = tmp_path / "ws"
    path = transcript(tmp_path / "t.jsonl", [line(i, t) for i, t in enumerate(TEXTS)])
    cfg = llm_config(tmp_path, ollama_server.url)
    code, result, err = ingest_json("-w", str(ws), "--config", str(cfg), str(path), "--no-wait-llm")
    assert code == 0, err
    assert result["llm"]["waited"] is False and result["llm"]["pending_batches"] == 2
    assert result["llm"]["delivered_batches"] == 0
    assert len(list((ws / "llm-pending").glob("batch-*.json"))) == 2

    more = [
        "Vera works at Initech.",
        "Walt lives in Albuquerque.",
        "Xia moved to Chengdu.",
        "Yusuf likes Rumi.",
    ]
    path2 = transcript(tmp_path / "t2.jsonl", [line(8 + i, t) for i, t in enumerate(more)])
    code, _, err = cli("ingest", "-w", str(ws), "--config", str(cfg), str(path2), "--llm-timeout", "0")
    assert code == 0, err
    assert "4 new, 0 already stored" in err
    assert "LLM tier: 3 batches parked in" in err and "maintain --once --job llm_retry" in err, err

    ollama_server.slow_seconds = 1.0  # answers now, slowly: the worker's own retry at start is under way
    ollama_server.default = "slow"
    ollama_server.release_hangs()
    # the ingest runs' abandoned calls now end and let go of the parked file they were retrying
    assert wait_for(lambda: all(unlocked(p) for p in (ws / "llm-pending").glob("batch-*.json")))
    calls = len(ollama_server.calls())
    code, out, err = cli(
        "maintain", "--once", "--job", "llm_retry", "-w", str(ws), "--config", str(cfg), "--json"
    )
    assert code == 0, err
    (record,) = json.loads(out)
    assert record["changed"] == {"delivered": 3, "pending": 0}  # it said 0 while its event said 2
    assert len(ollama_server.calls()) - calls == 3
    assert llm_fact_count(ws) >= 12


def test_maintain_llm_retry_counts_the_batches_its_process_delivered(
    tmp_path: Path, ollama_server: FakeOllamaServer
) -> None:
    """The tier's worker retries parked batches as soon as it starts; the job used to find them taken
    and report `"delivered": 0` while the worker's own event said they were delivered."""
    ws = tmp_path / "ws"
    pending = ws / "llm-pending"
    pending.mkdir(parents=True)
    for b in range(3):
        msgs = [
            Message(
                id=f"p{b}-{i}",
                text=TEXTS[b * 2 + i],
                speaker="Zoë",
                timestamp=datetime(2026, 3, 2, tzinfo=UTC),
            )
            for i in range(2)
        ]
        body = {
            "version": 1,
            "id": f"b{b}",
            "reason": "stopped",
            "content_failures": 0,
            "messages": [m.model_dump(mode="json") for m in msgs],
        }
        (pending / f"batch-0000000000000000000{b}-b{b}.json").write_bytes(orjson.dumps(body))
    ollama_server.slow_seconds = 1.0
    ollama_server.default = "slow"
    cfg = llm_config(tmp_path, ollama_server.url)
    code, out, err = cli(
        "maintain", "--once", "--job", "llm_retry", "-w", str(ws), "--config", str(cfg), "--json"
    )
    assert code == 0, err
    (record,) = json.loads(out)
    assert record["changed"] == {"delivered": 3, "pending": 0}
    assert len(ollama_server.calls()) == 3 and not list(pending.glob("batch-*"))
    assert llm_fact_count(ws) == 6


@pytest.mark.slow
def test_progress_on_a_terminal_only_and_the_summary_on_stderr(
    tmp_path: Path, ollama_server: FakeOllamaServer
) -> None:
    ollama_server.slow_seconds = 1.0
    ollama_server.default = "slow"
    cfg = llm_config(tmp_path, ollama_server.url)
    path = transcript(tmp_path / "t.jsonl", [line(i, t) for i, t in enumerate(TEXTS)])
    base = [sys.executable, "-m", "knowledge_engine.cli.app", "ingest", "--config", str(cfg), str(path)]
    code, out, err = run_with_tty_stderr([*base, "-w", str(tmp_path / "a")])
    assert code == 0, err
    assert "ingesting" in err and "8/8" in err  # the lines read
    assert "LLM tier: messages answered" in err and "LLM tier: 2 batches delivered (8 messages)" in err
    assert out == ""
    piped = run_piped([*base, "-w", str(tmp_path / "b"), "--json"])
    assert piped.returncode == 0, piped.stderr
    assert "ingesting" not in piped.stderr and "LLM tier" not in piped.stderr
    assert json.loads(piped.stdout)["llm"]["delivered_batches"] == 2


def test_with_the_model_down_ingest_still_ends_and_says_what_is_parked(
    tmp_path: Path, ollama_server: FakeOllamaServer
) -> None:
    ollama_server.default = "http500"
    ws = tmp_path / "ws"
    path = transcript(tmp_path / "t.jsonl", [line(i, t) for i, t in enumerate(TEXTS)])
    cfg = llm_config(tmp_path, ollama_server.url)
    code, _, err = cli("ingest", "-w", str(ws), "--config", str(cfg), str(path))
    assert code == 0, err  # the messages are in; the LLM's share waits on disk
    assert "LLM tier: 0 batches delivered (0 messages);" in err and "calls failed (see the log)" in err, err
    assert "LLM tier: 2 batches parked in" in err, err
    assert len(list((ws / "llm-pending").glob("batch-*.json"))) == 2


@pytest.mark.slow
def test_ctrl_c_while_waiting_for_the_llm_parks_the_rest_and_says_so(
    tmp_path: Path, ollama_server: FakeOllamaServer
) -> None:
    ollama_server.default = "hang"
    ollama_server.hang_seconds = 600
    cfg = llm_config(tmp_path, ollama_server.url)
    path = transcript(tmp_path / "t.jsonl", [line(i, t) for i, t in enumerate(TEXTS)])
    ws = tmp_path / "ws"
    cmd = [sys.executable, "-m", "knowledge_engine.cli.app", "ingest", "-w", str(ws), "--config", str(cfg)]
    master, slave = pty.openpty()
    env = {**os.environ, "COLUMNS": "200", "TERM": "xterm"}
    proc = subprocess.Popen([*cmd, str(path)], stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + 300
    try:
        while b"LLM tier: messages answered" not in seen and time.monotonic() < deadline:
            if select.select([master], [], [], 0.5)[0]:
                seen += os.read(master, 65536)
            assert proc.poll() is None, seen.decode(errors="replace")
        proc.send_signal(signal.SIGINT)  # the bar is up: it is waiting for the model
        while time.monotonic() < deadline and proc.poll() is None:
            if select.select([master], [], [], 0.5)[0]:
                try:
                    seen += os.read(master, 65536)
                except OSError:
                    break
        code = proc.wait(timeout=60)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    err = seen.decode(errors="replace")
    assert code == 0, err
    assert "LLM tier: 2 batches parked in" in err and "Traceback" not in err, err
    assert len(list((ws / "llm-pending").glob("batch-*.json"))) == 2
