"""The spaCy tier in worker processes: same results as in-process, split batches, crash recovery,
no processes left behind (engine stop, interpreter exit, parent killed), no re-run of a host script.

One two-worker pool is shared by the module (a worker takes ~2 s to load spaCy).
"""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from knowledge_engine.config import SpacyConfig, load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.extract.nlp import INSTALL_HINT
from knowledge_engine.extract.pipeline import ExtractionPipeline
from knowledge_engine.extract.spacy_ner import SpacyTier
from knowledge_engine.extract.workers import WorkerPoolClosed, resolve_workers, split_balanced
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "knowledge_engine" / "data" / "sample_conversation.jsonl"
LABELLED = ROOT / "tests" / "data" / "facts_labelled.jsonl"


def _messages(path: Path) -> list[Message]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [
        Message(id=str(r["id"]), text=r["text"], role=r.get("role", "user"), speaker=r.get("speaker"))
        for r in rows
    ]


def _gone(pid: int) -> bool:
    """Exited: no such process, or a zombie nobody has reaped yet (it runs no code)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def _wait_gone(pids: list[int], limit_s: float = 20.0) -> bool:
    deadline = time.monotonic() + limit_s
    while not all(_gone(p) for p in pids):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture(scope="module")
def pooled() -> Iterator[SpacyTier]:
    tier = SpacyTier(SpacyConfig(workers=2))
    assert tier.available, "the test environment must have the spaCy model installed"
    yield tier
    tier.close()


@pytest.fixture(scope="module")
def local() -> SpacyTier:
    return SpacyTier(SpacyConfig(workers=0))


# --------------------------------------------------------------------------- pure helpers


@given(st.lists(st.text(max_size=30), max_size=40), st.integers(min_value=1, max_value=6))
def test_split_keeps_every_message_in_order(texts: list[str], parts: int) -> None:
    msgs = [Message(id=str(i), text=t) for i, t in enumerate(texts)]
    chunks = split_balanced(msgs, parts)
    assert [m.id for c in chunks for m in c] == [m.id for m in msgs]
    if msgs:
        assert len(chunks) == min(parts, len(msgs))
        assert all(chunks)


def test_split_balances_text_length() -> None:
    msgs = [Message(id=str(i), text="x" * (400 if i < 10 else 10)) for i in range(100)]
    first, second = split_balanced(msgs, 2)
    assert len(first) < len(second)  # the long messages go to a shorter chunk
    weight = [sum(len(m.text) + 16 for m in chunk) for chunk in (first, second)]  # 16: per-message cost
    assert abs(weight[0] - weight[1]) <= 416  # within one message of even


def test_resolve_workers() -> None:
    assert resolve_workers(0) == 0
    assert resolve_workers(3) == 3
    cores = len(os.sched_getaffinity(0))
    auto = resolve_workers("auto")
    assert auto == (0 if cores < 2 else min(cores, 4))


def test_workers_config_is_validated() -> None:
    assert load_config({"extraction": {"spacy": {"workers": 2}}}).extraction.spacy.workers == 2
    assert load_config({}).extraction.spacy.workers == "auto"
    for bad in (-1, "many", 100, True):
        with pytest.raises(ValueError, match="workers"):
            load_config({"extraction": {"spacy": {"workers": bad}}})


# --------------------------------------------------------------------------- same results


@pytest.mark.slow
def test_pool_runs_in_other_processes(pooled: SpacyTier) -> None:
    pids = pooled.pids()
    assert len(pids) == 2 and len(set(pids)) == 2 and os.getpid() not in pids


@pytest.mark.parametrize("path", [SAMPLE, LABELLED], ids=["sample", "labelled"])
@pytest.mark.slow
def test_results_identical_to_in_process(pooled: SpacyTier, local: SpacyTier, path: Path) -> None:
    msgs = _messages(path)
    expected = _fresh(local).extract(msgs)
    assert sum(len(e.mentions) for e in expected) > 10 and sum(len(e.facts) for e in expected) > 10
    assert _fresh(pooled).extract(msgs) == expected
    for size in (1, 7):  # small batches too: one message, uneven splits
        _fresh(pooled)
        got = [ex for i in range(0, len(msgs), size) for ex in pooled.extract(msgs[i : i + size])]
        assert got == expected


def _fresh(tier: SpacyTier) -> SpacyTier:
    """The tier with its sessions' memory emptied: what a speaker named before ("my dad Carlos") names
    a later "my dad", so each run starts from the same memory."""
    tier.forget(lambda _name: True)
    return tier


@pytest.mark.slow
def test_one_batch_is_split_across_both_workers(pooled: SpacyTier) -> None:
    pool = pooled._pool
    assert pool is not None
    before = pool.served()
    msgs = [Message(id=str(i), text=f"Alice Johnson moved to London in {2000 + i}.") for i in range(40)]
    out = pooled.extract(msgs)
    after = pool.served()
    assert [e.message_id for e in out] == [m.id for m in msgs]
    assert all(a > b for a, b in zip(after, before, strict=True))
    assert sum(after) - sum(before) == 40


@pytest.mark.slow
def test_order_and_junk(pooled: SpacyTier, local: SpacyTier) -> None:
    texts = ["Alice Johnson lives in London.", "🎉🎉🎉", "", "Microsoft hired Bob Smith.", "   "] * 9
    msgs = [Message(id=f"j{i}", text=t, speaker="Ann") for i, t in enumerate(texts)]
    out = pooled.extract(msgs)
    assert [e.message_id for e in out] == [m.id for m in msgs]
    assert out == _fresh(local).extract(msgs)
    assert pooled.extract([]) == []


@pytest.mark.slow
def test_worker_counters_reach_the_parent(pooled: SpacyTier) -> None:
    small = SpacyTier(SpacyConfig(workers=2), max_chars=200)  # shares the module's pool
    before = counters.get("extract.spacy.cut")
    (out,) = small.extract([Message(id="big", text="Alice Johnson moved to London in 2020. " * 50)])
    small.close()
    assert counters.get("extract.spacy.cut") == before + 1
    assert max(m.end for m in out.mentions) <= 200
    assert len(pooled.pids()) == 2  # the module's reference keeps the shared pool running


# --------------------------------------------------------------------------- crashes


@pytest.mark.slow
def test_killed_worker_is_replaced_and_the_batch_retried(pooled: SpacyTier, local: SpacyTier) -> None:
    victim = pooled.pids()[0]
    os.kill(victim, signal.SIGKILL)
    assert _wait_gone([victim])
    replaced = counters.get("extract.spacy.workers.replaced")
    fallback = counters.get("extract.spacy.workers.fallback")
    msgs = _messages(SAMPLE)
    assert pooled.extract(msgs) == local.extract(msgs)
    assert counters.get("extract.spacy.workers.replaced") == replaced + 1
    assert counters.get("extract.spacy.workers.fallback") == fallback
    pids = pooled.pids()
    assert len(pids) == 2 and victim not in pids


def test_a_sigterm_to_the_process_group_leaves_the_workers_to_the_parent(local: SpacyTier) -> None:
    """A service manager or a terminal stopping the host signals its whole process group. The host stops
    gracefully and may still parse (a flush on stop); its workers must not die first, or the stop logs
    "spaCy workers failed to start" and parses in-process. The parent stops them (message, EOF, SIGKILL)."""
    tier = SpacyTier(SpacyConfig(workers=1))
    try:
        assert tier.available
        (victim,) = tier.pids()
        replaced = counters.get("extract.spacy.workers.replaced")
        os.kill(victim, signal.SIGTERM)
        msgs = _messages(SAMPLE)
        assert tier.extract(msgs) == local.extract(msgs)  # served by the same worker
        assert tier.pids() == [victim]
        assert counters.get("extract.spacy.workers.replaced") == replaced
    finally:
        tier.close()
    assert _wait_gone([victim])  # close still stops it


@pytest.mark.slow
def test_worker_failing_twice_falls_back_in_process(
    local: SpacyTier, caplog: pytest.LogCaptureFixture
) -> None:
    tier = SpacyTier(SpacyConfig(workers=1))  # its own pool: this test keeps killing it
    assert tier.available
    stop = threading.Event()
    killed: set[int] = set()

    def killer() -> None:
        while not stop.is_set():
            for pid in tier.pids():
                if pid not in killed:
                    killed.add(pid)
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.002)

    msgs = _messages(LABELLED)
    fallback = counters.get("extract.spacy.workers.fallback")
    thread = threading.Thread(target=killer)
    thread.start()
    try:
        out = tier.extract(msgs)
    finally:
        stop.set()
        thread.join()
    assert out == local.extract(msgs)
    assert counters.get("extract.spacy.workers.fallback") == fallback + 1
    assert len(killed) >= 2  # the worker and its replacement
    snippets = {m.text[:16] for m in msgs if len(m.text) >= 16}
    for record in caplog.records:  # logged without message text
        assert not any(s in record.getMessage() for s in snippets), record.getMessage()
    assert tier.extract(msgs[:5]) == local.extract(msgs[:5])  # the next batch gets a fresh worker
    assert len(tier.pids()) == 1
    pids = tier.pids()
    tier.close()
    assert _wait_gone(list(killed) + pids, 0.0)


# --------------------------------------------------------------------------- model missing


@pytest.mark.slow
def test_missing_model_is_regex_only_with_one_warning(caplog: pytest.LogCaptureFixture) -> None:
    name = f"no_such_model_{uuid.uuid4().hex[:8]}"
    caplog.set_level(logging.DEBUG, logger="knowledge_engine")
    tier = SpacyTier(SpacyConfig(model=name, workers=1))
    assert tier.available is False
    assert tier.pids() == []
    out = tier.extract([Message(id="a", text="Angela Merkel lives in Berlin.")])
    assert [(e.message_id, e.mentions, e.facts) for e in out] == [("a", [], [])]
    config = load_config({"extraction": {"spacy": {"model": name, "workers": 1}}}).extraction
    assert ExtractionPipeline(config).tier_names == ["regex"]
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1
    message = warnings[0].getMessage()
    assert name in message and INSTALL_HINT in message and "regex-only" in message


# --------------------------------------------------------------------------- shutdown


@pytest.mark.slow
def test_engine_stop_leaves_no_worker(tmp_path: Path) -> None:
    config = load_config(
        {
            "workspace": str(tmp_path / "ws"),
            "embeddings": {"enabled": False},
            "extraction": {"spacy": {"workers": 1, "facts": False}},  # its own pool
        }
    )
    engine = KnowledgeEngine(config)
    ws = engine.open_workspace(tmp_path / "ws")
    engine.ingest(ws, [Message(id="e1", text="Angela Merkel met Emmanuel Macron in Berlin.")])
    assert ws.entities.resolve("Emmanuel Macron") is not None
    (tier,) = [t for t in engine.pipeline.tiers if isinstance(t, SpacyTier)]
    pids = tier.pids()
    assert len(pids) == 1
    engine.stop(4.5)
    assert _wait_gone(pids, 0.0)


@pytest.mark.slow
def test_engine_stopped_during_warm_up_leaves_no_worker(tmp_path: Path) -> None:
    config = load_config(
        {
            "workspace": str(tmp_path / "ws"),
            "embeddings": {"enabled": False},
            "extraction": {"spacy": {"workers": 1, "facts": False}},
        }
    )
    engine = KnowledgeEngine(config)
    engine.warm_up()
    time.sleep(0.3)  # the warm-up thread is starting the worker now
    engine.stop(4.5)
    tiers = [t for t in engine.pipeline.tiers if isinstance(t, SpacyTier)]
    assert all(t.pids() == [] for t in tiers)


@pytest.mark.slow
def test_close_during_a_batch_kills_the_workers_and_the_batch_raises() -> None:
    tier = SpacyTier(SpacyConfig(workers=1, facts=False))
    assert tier.available
    pids = tier.pids()
    msgs = [Message(id=str(i), text=f"Alice Johnson moved to London in {i}.") for i in range(5000)]
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            tier.extract(msgs)
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    time.sleep(0.5)  # the worker is parsing now
    tier.close(1.0)
    thread.join(30)
    assert len(outcome) == 1 and isinstance(outcome[0], WorkerPoolClosed)
    assert _wait_gone(pids, 0.0)


@pytest.mark.slow
def test_a_batch_cut_by_engine_stop_is_a_stop_not_a_failure(caplog: pytest.LogCaptureFixture) -> None:
    """Engine stop closes the pool under the ingest worker's batch (already parked by then): the
    pipeline counts a stop, and no error or warning tells the operator a tier failed or a worker was lost."""
    config = load_config({"extraction": {"spacy": {"workers": 1, "facts": False}}})
    pipeline = ExtractionPipeline(config.extraction)
    spacy = next(t for t in pipeline.tiers if isinstance(t, SpacyTier))
    assert spacy.available
    msgs = [Message(id=str(i), text=f"Alice Johnson moved to London in {i}.") for i in range(5000)]
    stopped, failed = counters.get("extract.tier_stopped.spacy"), counters.get("extract.tier_failed.spacy")
    out: list[dict[str, object]] = []
    with caplog.at_level(logging.WARNING, logger="knowledge_engine"):
        thread = threading.Thread(target=lambda: out.append(pipeline.run(msgs)))
        thread.start()
        pool = spacy._pool
        deadline = time.monotonic() + 60
        while not (pool is not None and pool._lock.locked()) and time.monotonic() < deadline:
            time.sleep(0.01)  # until the worker has the batch
        spacy.close(1.0)
        thread.join(60)
    assert len(out) == 1  # the regex tier's results still came back
    assert counters.get("extract.tier_stopped.spacy") == stopped + 1
    assert counters.get("extract.tier_failed.spacy") == failed
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


_HOST_SCRIPT = """
import json, os, sys, time
sys.path.insert(0, {root!r})
with open({marker!r}, "a") as fh:  # no __main__ guard: a worker must never run this again
    fh.write(str(os.getpid()) + "\\n")
from knowledge_engine.config import SpacyConfig
from knowledge_engine.extract.spacy_ner import SpacyTier
from knowledge_engine.model.records import Message
tier = SpacyTier(SpacyConfig(workers=2, facts=False))
(out,) = tier.extract([Message(id="x", text="Angela Merkel lives in Berlin.")])
print(json.dumps({{"pids": tier.pids(), "mentions": [m.value for m in out.mentions]}}), flush=True)
if {hang}:
    time.sleep(600)
"""


def _host(tmp_path: Path, hang: bool) -> tuple[subprocess.Popen[str], dict[str, list[str]], Path]:
    marker = tmp_path / "ran.txt"
    script = tmp_path / "host.py"
    script.write_text(_HOST_SCRIPT.format(root=str(ROOT), marker=str(marker), hang=hang))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line, "the host script died before reporting"
    return proc, json.loads(line), marker


@pytest.mark.slow
def test_host_script_without_main_guard_runs_once_and_exits_cleanly(tmp_path: Path) -> None:
    proc, report, marker = _host(tmp_path, hang=False)
    assert proc.wait(timeout=60) == 0
    assert {"Angela Merkel", "Berlin"} <= set(report["mentions"])
    assert len(report["pids"]) == 2
    assert marker.read_text().split() == [str(proc.pid)]
    assert _wait_gone([int(p) for p in report["pids"]], 0.0)  # atexit reaped them


@pytest.mark.slow
def test_workers_exit_when_the_parent_is_killed(tmp_path: Path) -> None:
    proc, report, _ = _host(tmp_path, hang=True)
    pids = [int(p) for p in report["pids"]]
    assert len(pids) == 2 and not any(_gone(p) for p in pids)
    proc.kill()
    proc.wait()
    assert _wait_gone(pids)
