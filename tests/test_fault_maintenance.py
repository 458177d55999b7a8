"""SIGTERM during `knowledge-engine maintain --once` while the Chroma sync of a big store runs.

Each signal lands at a random moment of the sync (the longest job). After every stop the store loads
and `validate --no-index` passes; the chunks already synced stay synced; the final run completes every
job and `validate` (with the Chroma drift check) passes. The store jobs under SIGTERM/SIGKILL are
covered by tests/test_maintenance_scheduler.py.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.maintenance.runs import job_running_elsewhere, read_runs
from knowledge_engine.model.records import Message
from knowledge_engine.store.workspace import Workspace
from tests.servers.ollama_server import FakeOllamaServer

ROOT = Path(__file__).resolve().parents[1]
N_FACTS = 3_000
N_MESSAGES = 1_000
ROUNDS = 3


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "knowledge_engine.cli.app", *args]


def make_store(folder: Path, cfg_path: Path) -> None:
    cfg = load_config(json.loads(cfg_path.read_text()))
    ws = Workspace(folder, cfg, "main")
    base = datetime(2025, 1, 1, tzinfo=UTC)
    for i in range(N_FACTS):
        ws.facts.add(f"Person {i}", "works-at", f"Company {i % 997}")
    ws.messages.append_many(
        Message(id=f"m{i}", text=f"note {i} on the launch plan", role="user", session="s",
                timestamp=base + timedelta(minutes=i))
        for i in range(N_MESSAGES)
    )
    ws.close()


def wait_for(cond: object, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():  # type: ignore[operator]
            return True
        time.sleep(0.02)
    return False


def validate_cli(folder: Path, cfg: Path, *extra: str) -> dict[str, object]:
    done = subprocess.run(cli("validate", "-w", str(folder), "-c", str(cfg), "--json", *extra), cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    report: dict[str, object] = json.loads(done.stdout)
    assert done.returncode == (0 if report["ok"] else 1)
    return report


@pytest.mark.slow
def test_sigterm_during_maintenance_sync_leaves_a_valid_store_and_the_next_run_completes(
    tmp_path: Path,
) -> None:
    ollama = FakeOllamaServer(embed_dim=16).start()
    folder = tmp_path / "ws"
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({
        "storage": {"maxFacts": 1_000_000},
        "embeddings": {"provider": "ollama", "endpoint": ollama.url, "model": "nomic-embed-text",
                       "dimensions": 16, "batchSize": 32},
    }))
    rng = random.Random(int(os.environ.get("KE_FAULT_SEED", time.time_ns() % 100000)))
    try:
        make_store(folder, cfg)
        outcomes = []
        maintain = cli("maintain", "--once", "-w", str(folder), "-c", str(cfg), "--json")
        for _ in range(ROUNDS):
            proc = subprocess.Popen(maintain, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True)
            try:
                syncing = lambda p=proc: job_running_elsewhere(folder, "sync") or p.poll() is not None  # noqa: E731
                assert wait_for(syncing, 300)
                time.sleep(rng.uniform(0.0, 1.0))
                proc.send_signal(signal.SIGTERM)
                _, err = proc.communicate(timeout=120)
            finally:
                if proc.poll() is None:
                    proc.kill()
            assert proc.returncode == 0, err[-2000:]
            outcomes.append(read_runs(folder)["sync"]["status"])
            report = validate_cli(folder, cfg, "--no-index")
            assert report["ok"], report
            assert report["checked"]["facts"] == N_FACTS  # type: ignore[index]
        assert "cancelled" in outcomes, f"no signal landed inside the sync: {outcomes}"
        final = subprocess.run(maintain, cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert final.returncode == 0, final.stderr[-2000:]
        records = json.loads(final.stdout)
        assert {r["job"]: r["status"] for r in records}["sync"] == "ok"
        assert all(r["status"] in ("ok", "skipped") for r in records), records
        report = validate_cli(folder, cfg)
        assert report["ok"], report
        assert report["checked"]["indexed"] == N_FACTS + N_MESSAGES  # type: ignore[index]
        print("sync outcomes under SIGTERM:", outcomes)
    finally:
        ollama.stop()
