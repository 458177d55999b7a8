"""sync (incremental and --rebuild), --help texts, and CLI writes merging with a running host's writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowledge_engine.cli.app import app
from knowledge_engine.config import load_config
from knowledge_engine.model.records import Evidence
from knowledge_engine.store.workspace import Workspace
from tests.test_cli_support import SECRET, cli, workspace_copy


@pytest.mark.slow
def test_sync_is_incremental_and_rebuild_embeds_everything(tmp_path: Path) -> None:
    ws = workspace_copy("sample", tmp_path)
    code, out, err = cli("sync", "-w", str(ws), "--json")
    assert code == 0, err
    first = json.loads(out)
    assert first["embedded"] == 0 and first["unchanged"] > 0  # the engine synced on flush
    host = Workspace(ws, load_config({}))
    host.facts.add("Maya", "likes", "climbing", source="manual", evidence=[Evidence(message_id="s4-01")])
    host.close()
    second = json.loads(cli("sync", "-w", str(ws), "--json")[1])
    assert second["per_kind"]["facts"]["embedded"] == 1
    stats = json.loads(cli("stats", "-w", str(ws), "--json", "--index")[1])
    assert stats["chroma_pending"]["pending"] == 0
    rebuilt = json.loads(cli("sync", "-w", str(ws), "--rebuild", "--json")[1])
    assert rebuilt["embedded"] == first["unchanged"] + 1


@pytest.mark.slow
def test_forget_while_the_host_holds_the_store(tmp_path: Path) -> None:
    """The host's later write keeps its own new fact and does not bring the forgotten one back."""
    ws = workspace_copy("secret", tmp_path)
    host = Workspace(ws, load_config({}))
    assert any(SECRET in f.subject for f in host.facts.all())
    code, _, err = cli("forget", "--entity", SECRET, "-w", str(ws), "--yes")
    assert code == 0, err
    host.facts.add("Carla Mendes", "likes", "tea", source="manual", evidence=[Evidence(message_id="z-05")])
    host.flush()
    host.close()
    after = Workspace(ws, load_config({}))
    texts = [f.text() for f in after.facts.all()]
    assert "Carla Mendes likes tea" in texts
    assert not any(SECRET in t for t in texts)
    assert after.entities.resolve(SECRET) is None


@pytest.mark.parametrize("command", [c.name or c.callback.__name__ for c in app.registered_commands])
def test_every_command_explains_itself(command: str) -> None:
    code, out, _ = cli(command, "--help")
    assert code == 0 and "Usage:" in out and len(out) > 200
