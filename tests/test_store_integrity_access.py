"""Containment of a workspace: owner-only files, and one folder per agent id (no two ids share one)."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.model.records import Message
from knowledge_engine.store.workspace import Workspace, resolve_workspace_dir, safe_agent_id
from tests.test_cli_support import cli


@pytest.fixture
def default_umask() -> Iterator[None]:
    old = os.umask(0o022)  # the usual default: without care, files come out 0644 and folders 0755
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def _messages(n: int) -> list[Message]:
    t0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
    return [
        Message(
            id=f"p-{i}",
            text=f"Maya Lindqvist works at Helix Robotics in Lisbon (note {i}).",
            role="user",
            speaker="Ana",
            session="s1",
            timestamp=t0 + timedelta(minutes=i),
        )
        for i in range(n)
    ]


def _exposed(folder: Path) -> list[str]:
    """Everything under the folder that grants group or other users any access."""
    found = [] if _mode(folder) & 0o077 == 0 else ["."]
    for p in folder.rglob("*"):
        if not p.is_symlink() and _mode(p) & 0o077:
            found.append(f"{p.relative_to(folder)} {oct(_mode(p))}")
    return found


@pytest.mark.slow
def test_a_new_workspace_is_owner_only(tmp_path: Path, default_umask: None) -> None:
    root = tmp_path / "agents"
    cfg = load_config(
        {
            "workspaceRoot": str(root),
            "workspaceTemplate": "{workspaceDir}/knowledge-engine",
            "storage": {"writeDebounceMs": 0},
            "retrieval": {"enabled": False},
            "maintenance": {"enabled": False},
            # a dead loopback endpoint: the LLM tier's pending folder is created at start
            "extraction": {"llm": {"enabled": True, "endpoint": "http://127.0.0.1:9", "model": "m"}},
        }
    )
    engine = KnowledgeEngine(cfg)
    ws = engine.workspace("main", None)
    engine.ingest(ws, _messages(5))
    ws.flush()
    engine.sync(ws)  # embedded Chroma under the workspace
    folder = ws.folder
    engine.stop(timeout_s=30)
    assert folder == root / "main"
    assert _mode(folder) == 0o700
    for name in ("facts.json", "entities.json", "messages.sqlite3", ".store.lock"):
        assert _mode(folder / name) == 0o600, name
    for name in ("chroma", "llm-pending"):
        assert (folder / name).is_dir() and _mode(folder / name) == 0o700, name
    assert (folder / "facts.json.bak").exists() and _mode(folder / "facts.json.bak") == 0o600


def test_opening_an_existing_workspace_makes_it_owner_only(tmp_path: Path, default_umask: None) -> None:
    folder = tmp_path / "old-ws"
    (folder / "chroma" / "segment").mkdir(parents=True)
    (folder / "llm-pending").mkdir()
    (folder / "facts.json").write_text(json.dumps({"schema": 1, "facts": []}))
    (folder / "entities.json").write_text(json.dumps({"schema": 1, "entities": []}))
    (folder / "chroma" / "chroma.sqlite3").write_bytes(b"x")
    (folder / "chroma" / "segment" / "data_level0.bin").write_bytes(b"x")
    (folder / "llm-pending" / "batch-1.json").write_text("{}")
    (folder / "ingest-journal.jsonl").write_text("")
    for p in [folder, *folder.rglob("*")]:
        os.chmod(p, 0o755 if p.is_dir() else 0o644)
    (folder / "host-notes").mkdir()  # not the engine's (a template may share the host's folder)
    (folder / "AGENTS.md").write_text("x")
    os.chmod(folder / "AGENTS.md", 0o644)
    assert _exposed(folder)
    Workspace(folder, load_config({}))
    assert sorted(_exposed(folder)) == ["AGENTS.md 0o644", "host-notes 0o755"]
    assert _mode(folder / "chroma" / "segment") == 0o700 and _mode(folder / "facts.json") == 0o600
    assert _mode(folder / "ingest-journal.jsonl") == 0o600 and _mode(folder) == 0o700


def test_a_message_log_created_by_the_cli_is_owner_only(tmp_path: Path, default_umask: None) -> None:
    folder = tmp_path / "ws"
    folder.mkdir()
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        "\n".join(json.dumps({"id": m.id, "role": "user", "text": m.text}) for m in _messages(3)) + "\n"
    )
    code, _, err = cli("ingest", "-w", str(folder), str(transcript))
    assert code == 0, err
    assert _mode(folder) == 0o700
    for name in ("facts.json", "entities.json", "messages.sqlite3"):
        assert _mode(folder / name) == 0o600, name


# ---------------------------------------------------------------------------------------------- agent ids


def _old_escape(raw: str) -> str:
    """The earlier mapping's form for an escaped id: cleaned name, '-', 4-byte hash."""
    return "team_a-" + hashlib.blake2b(raw.encode(), digest_size=4).hexdigest()


def test_agent_ids_map_to_distinct_folders(tmp_path: Path) -> None:
    cfg = load_config({"workspaceRoot": str(tmp_path / "agents")})
    forged = _old_escape("team/a")  # a safe id chosen to equal the escaped form of "team/a"
    ids = ["team/a", forged, "team:a", "team_a", "team a", "../team_a", "default", "", "x" * 101]
    folders = {i: resolve_workspace_dir(cfg, i or None, None) for i in ids}
    assert folders[""] == folders["default"]  # no id means the default agent
    distinct = [i for i in ids if i != ""]
    assert len({folders[i] for i in distinct}) == len(distinct), folders
    for f in folders.values():
        assert f.parent == (tmp_path / "agents").resolve()  # nothing escapes the root


@pytest.mark.parametrize("simple", ["main", "default", "agent-1", "team_a", "a.b_c-9", "team_a-9e1f3725"])
def test_simple_ids_keep_their_folder(simple: str, tmp_path: Path) -> None:
    cfg = load_config({"workspaceRoot": str(tmp_path)})
    assert safe_agent_id(simple) == simple
    assert resolve_workspace_dir(cfg, simple, None) == (tmp_path / simple).resolve()


def test_two_agents_that_cleaned_alike_do_not_share_knowledge(tmp_path: Path) -> None:
    cfg = load_config(
        {
            "workspaceRoot": str(tmp_path / "agents"),
            "storage": {"writeDebounceMs": 0},
            "embeddings": {"enabled": False},
            "retrieval": {"enabled": False},
            "maintenance": {"enabled": False},
        }
    )
    engine = KnowledgeEngine(cfg)
    a = engine.workspace("team/a", None)
    b = engine.workspace(_old_escape("team/a"), None)
    assert a.folder != b.folder
    engine.ingest(a, _messages(1))
    engine.flush(timeout_s=60)
    engine.stop(timeout_s=30)
    assert len(a.facts) > 0 and len(Workspace(b.folder, cfg).facts) == 0
