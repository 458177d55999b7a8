"""CLI commands on a workspace indexed on a Chroma *server* (chroma.url): the server going down, and
one workspace keeping one index however the command names it."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.engine import KnowledgeEngine
from tests.fixtures.chroma import _chroma_exe, _free_port, _wait_ready
from tests.test_cli_support import cli, secret_messages

pytestmark = pytest.mark.slow  # builds a workspace through the engine against a real server


@pytest.fixture
def private_server(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A `chroma run` of this test's own, so the test can stop it (the session server must stay up)."""
    port = _free_port()
    log = tmp_path / "chroma.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                _chroma_exe(),
                "run",
                "--path",
                str(tmp_path / "chroma-data"),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(url, proc, log)
        yield url, proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=30)


def _server_workspace(tmp_path: Path, url: str, agent: str = "default") -> tuple[Path, Path]:
    """(workspace folder, config file) of a workspace the engine built and synced on the server."""
    raw = {
        "chroma": {"url": url},
        "storage": {"writeDebounceMs": 0},
        "workspace": str(tmp_path / "ws-{agentId}"),
    }
    cfg_file = tmp_path / "config.json"
    cfg_file.write_text(json.dumps(raw))
    engine = KnowledgeEngine(load_config(raw))
    ws = engine.workspace(agent)
    engine.ingest(ws, secret_messages())
    assert engine.flush(timeout_s=120)
    engine.sync(ws)
    engine.stop(timeout_s=30)
    return ws.folder, cfg_file


def test_stats_index_with_the_server_down_is_one_clear_line(
    tmp_path: Path, private_server: tuple[str, subprocess.Popen[bytes]]
) -> None:
    url, proc = private_server
    folder, cfg = _server_workspace(tmp_path, url)
    code, out, err = cli("stats", "--index", "-w", str(folder), "-c", str(cfg), "--json")
    assert code == 0, err
    assert json.loads(out)["chroma_pending"]["pending"] == 0
    proc.terminate()
    proc.wait(timeout=30)
    code, out, err = cli("stats", "--index", "-w", str(folder), "-c", str(cfg), "--json")
    assert code == 1
    data = json.loads(out)  # the store counts are still reported
    assert data["facts"] > 0 and "cannot open Chroma" in data["chroma_pending"]["error"]
    assert err.startswith("error: the Chroma index cannot be read") and len(err.strip().splitlines()) == 1
    code, out, err = cli("stats", "--index", "-w", str(folder), "-c", str(cfg))
    assert code == 1 and "Traceback" not in out + err and "chroma_pending.error" in out
