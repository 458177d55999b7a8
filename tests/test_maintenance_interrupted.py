"""A maintenance run killed mid-job (kill -9) is recorded as interrupted: `stats` shows it at once, and
the job's next run writes it to the history before its own record. Before, a killed run left no record
at all (new-user pass 3)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from knowledge_engine.config import load_config
from knowledge_engine.maintenance.runs import INTERRUPTED, job_running_elsewhere, read_history, read_runs
from knowledge_engine.store.workspace import Workspace
from tests.fixtures.waiting import wait_for
from tests.servers.ollama_server import EMBED_PATHS, FakeOllamaServer

ROOT = Path(__file__).resolve().parents[1]


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "knowledge_engine.cli.app", *args]


def _stats(folder: Path, cfg: Path) -> dict[str, object]:
    done = subprocess.run(
        _cli("stats", "-w", str(folder), "-c", str(cfg), "--json"),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out: dict[str, object] = json.loads(done.stdout)
    return out


def test_a_killed_sync_is_recorded_as_interrupted(tmp_path: Path) -> None:
    ollama = FakeOllamaServer(embed_dim=16, default="hang", hang_seconds=120).start()
    folder = tmp_path / "ws"
    cfg = tmp_path / "config.json"
    cfg.write_text(
        json.dumps(
            {
                "embeddings": {
                    "provider": "ollama",
                    "endpoint": ollama.url,
                    "model": "nomic-embed-text",
                    "dimensions": 16,
                },
            }
        )
    )
    ws = Workspace(folder, load_config(json.loads(cfg.read_text())), "main")
    ws.facts.add("Maya", "works-at", "Northwind")
    ws.close()
    maintain = _cli("maintain", "--once", "-w", str(folder), "-c", str(cfg), "--json")
    proc = subprocess.Popen(maintain, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # The job takes its lock a moment before it writes its "running" marker: a kill in between is a
        # run that never started, so wait for the embedding request the sync makes inside its job.
        wait_for(
            "the sync to run (its embedding request hangs)",
            lambda: job_running_elsewhere(folder, "sync") and bool(ollama.calls(*EMBED_PATHS)),
        )
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=120)
        assert "sync" not in read_runs(folder)  # the killed run recorded nothing itself

        shown = _stats(folder, cfg)["maintenance"]
        assert shown["sync"]["status"] == INTERRUPTED  # type: ignore[index]
        assert shown["sync"]["pid"] == proc.pid  # type: ignore[index]

        ollama.default = "ok"
        ollama.release_hangs()
        again = subprocess.run(maintain, cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert again.returncode == 0, again.stderr[-2000:]
        syncs = [h for h in read_history(folder) if h["job"] == "sync"]
        assert [h["status"] for h in syncs] == [INTERRUPTED, "ok"]
        assert syncs[0]["pid"] == proc.pid
        assert _stats(folder, cfg)["maintenance"]["sync"]["status"] == "ok"  # type: ignore[index]
    finally:
        if proc.poll() is None:
            proc.kill()
        ollama.stop()
