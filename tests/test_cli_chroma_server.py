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


def _collections(url: str) -> set[str]:
    from knowledge_engine.index.chroma import make_client

    return {c.name for c in make_client(Path("."), load_config({"chroma": {"url": url}})).list_collections()}


def test_one_workspace_one_index_however_it_is_named(tmp_path: Path, chroma_server: str) -> None:
    """The host indexed the workspace as agent `main`; naming the folder with --workspace (the agent
    unknown) or with --config --agent main must read the same collections, and read-only commands
    must not create any."""
    folder, cfg = _server_workspace(tmp_path, chroma_server, agent="main")
    before = _collections(chroma_server)
    by_folder = json.loads(cli("stats", "--index", "-w", str(folder), "-c", str(cfg), "--json")[1])
    by_agent = json.loads(cli("stats", "--index", "-c", str(cfg), "--agent", "main", "--json")[1])
    assert by_folder["workspace"] == by_agent["workspace"] == str(folder)
    assert by_folder["chroma_pending"]["synced"] == by_agent["chroma_pending"]["synced"] > 0
    assert by_folder["chroma_pending"]["pending"] == by_agent["chroma_pending"]["pending"] == 0
    code, out, err = cli("search", "Where does Zorblax work?", "-w", str(folder), "-c", str(cfg), "--json")
    assert code == 0, err
    hits = json.loads(out)
    assert any("vector" in i["scores"] for i in hits["facts"] + hits["messages"])  # found this index
    for args in (("context", "Where does Zorblax work?"), ("validate",)):
        code, _, err = cli(*args, "-w", str(folder), "-c", str(cfg), "--json")
        assert code == 0, err
    assert _collections(chroma_server) == before  # no empty `default` collections made on the side
    (
        folder / "chroma-index.json"
    ).unlink()  # an index made before the agent was recorded: found by its collections
    again = json.loads(cli("stats", "--index", "-w", str(folder), "-c", str(cfg), "--json")[1])
    assert again["chroma_pending"] == by_agent["chroma_pending"]
    assert not (folder / "chroma-index.json").exists()  # an inspection writes nothing
    assert cli("sync", "-w", str(folder), "-c", str(cfg))[0] == 0
    assert json.loads((folder / "chroma-index.json").read_text()) == {"agent_id": "main"}
    assert _collections(chroma_server) == before


def test_read_only_commands_never_create_collections(tmp_path: Path, chroma_server: str) -> None:
    """A workspace whose index does not exist yet: stats --index, context, search and validate
    report it as not synced; none of them creates the collections (only sync and the host do)."""
    folder, cfg = _server_workspace(tmp_path, chroma_server, agent="fresh")
    from knowledge_engine.index.chroma import make_client

    client = make_client(folder, load_config(json.loads(cfg.read_text())))
    for name in _collections(chroma_server):
        if name.startswith("knowledge-fresh-"):
            client.delete_collection(name)
    before = _collections(chroma_server)
    data = json.loads(cli("stats", "--index", "-c", str(cfg), "--agent", "fresh", "--json")[1])
    assert data["chroma_pending"]["synced"] == 0 and data["chroma_pending"]["pending"] > 0
    for args in (("context", "Where does Zorblax work?"), ("search", "Acme Corp"), ("validate",)):
        code, _, err = cli(*args, "-c", str(cfg), "--agent", "fresh", "--json")
        assert code == 0, (args, err)
    assert _collections(chroma_server) == before
    assert cli("sync", "-c", str(cfg), "--agent", "fresh")[0] == 0
    assert {n for n in _collections(chroma_server) if n.startswith("knowledge-fresh-")}
