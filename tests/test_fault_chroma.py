"""The Chroma server killed (SIGKILL) in the middle of a sync and restarted on the same data and port.

The engine keeps its index object (no restart of the engine): the next sync completes, and the
collection counts match the store exactly (no record lost, none duplicated, nothing pending).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.index import sync as sync_mod
from knowledge_engine.model.records import Message
from tests.fixtures.chroma import _chroma_exe, _free_port, _wait_ready
from tests.servers.ollama_server import FakeOllamaServer

N_FACTS = 3000
N_MESSAGES = 600


@dataclass
class KillableChroma:
    """A function-scoped `chroma run` that the test may kill and start again (same path, same port)."""

    root: Path
    port: int
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        log = self.root / "server.log"
        with log.open("ab") as out:
            self.proc = subprocess.Popen(
                [_chroma_exe(), "run", "--path", str(self.root / "data"), "--host", "127.0.0.1",
                 "--port", str(self.port)],
                stdout=out, stderr=subprocess.STDOUT, env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
            )
        _wait_ready(self.url, self.proc, log)

    def kill(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


@pytest.fixture
def killable_chroma(tmp_path: Path) -> Iterator[KillableChroma]:
    server = KillableChroma(tmp_path / "chroma-server", _free_port())
    server.root.mkdir()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.slow
def test_chroma_killed_mid_sync_then_restarted_next_sync_completes(
    tmp_path: Path, killable_chroma: KillableChroma
) -> None:
    ollama = FakeOllamaServer(embed_dim=16).start()
    try:
        cfg = load_config({
            "workspace": str(tmp_path / "ws"), "storage": {"writeDebounceMs": 0},
            "chroma": {"url": killable_chroma.url},
            "embeddings": {"provider": "ollama", "endpoint": ollama.url, "model": "nomic-embed-text",
                           "dimensions": 16, "maxRetries": 0, "timeoutMs": 5000},
        })
        engine = KnowledgeEngine(cfg)
        ws = engine.workspace("chroma-kill")
        for i in range(N_FACTS):
            ws.facts.add(f"Person {i}", "works-at", f"Company {i}")
        ws.messages.append_many(
            Message(id=f"m{i}", text=f"note {i} about the launch", role="user", session="s")
            for i in range(N_MESSAGES)
        )
        ws.flush()
        index = engine.chroma(ws)
        killed: list[int] = []

        def progress(done: int, total: int) -> None:
            if done >= 600 and not killed:
                killed.append(done)
                killable_chroma.kill()

        with pytest.raises(Exception):  # noqa: B017 - whatever the client raises for a dead server
            sync_mod.sync(index, ws.facts.all(), ws.messages.iter(), progress, chunk_size=200)
        assert killed, "the server must die in the middle of the sync"
        t0 = time.monotonic()
        killable_chroma.start()
        t_up = time.monotonic()
        report = engine.sync(ws)  # the same engine and index object: no restart of the host
        # the chunks upserted before the kill stayed: they are not embedded again
        assert report.embedded <= N_FACTS + N_MESSAGES - 600
        assert index.count("facts") == len(ws.facts) == N_FACTS
        assert index.count("messages") == ws.messages.count() == N_MESSAGES
        status = sync_mod.status(index, ws.facts.all(), ws.messages.iter())
        assert status["pending"] == 0
        print(f"chroma kill figures: killed_after={killed[0]} restart_s={t_up - t0:.1f} "
              f"resync_s={time.monotonic() - t_up:.1f} embedded_after_restart={report.embedded}")
        again = engine.sync(ws)
        assert again.embedded == 0 and again.unchanged == N_FACTS + N_MESSAGES
        engine.stop(5)
    finally:
        ollama.stop()
