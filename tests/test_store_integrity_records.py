"""Store files that are wrong but not corrupt: a bad record, a foreign or future document, a folder, a link.

A bad record is quarantined (kept verbatim, counted, restorable), never silently dropped. A file the
engine cannot read as its own is never written over: the CLI says so and exits non-zero, the host logs
one clear error, keeps what it learns in memory and its accepted messages in the ingest journal, and
merges everything into the file once it is fixed.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.model.records import Message
from knowledge_engine.store.workspace import Workspace
from tests.test_cli_support import cli, workspace_copy

HOST_CFG = {
    "storage": {"writeDebounceMs": 0},
    "embeddings": {"enabled": False},
    "retrieval": {"enabled": False},
    "maintenance": {"enabled": False},
}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return workspace_copy("sample", tmp_path)


def _doc(folder: Path, name: str = "facts.json") -> dict:
    return json.loads((folder / name).read_text())


def _write(folder: Path, doc: dict, name: str = "facts.json") -> None:
    (folder / name).write_text(json.dumps(doc))


def _facts_json(folder: Path, *args: str) -> list[dict]:
    code, out, err = cli("facts", "-w", str(folder), "--json", "--limit", "0", "--history", *args)
    assert code == 0, err
    return json.loads(out)


# ---------------------------------------------------------------------------------------------- bad record


def test_a_bad_record_is_quarantined_listed_around_and_survives_edits(ws: Path) -> None:
    doc = _doc(ws)
    n_good = len(doc["facts"])
    bad = {**doc["facts"][0], "id": "f-badbadbadbad0001", "confidence": "very"}
    doc["facts"].append(bad)
    _write(ws, doc)

    code, out, err = cli("facts", "-w", str(ws), "--json", "--limit", "0", "--history")
    assert code == 0, err
    listed = json.loads(out)
    assert len(listed) == n_good and bad["id"] not in {f["id"] for f in listed}
    assert "failed validation" in err and "quarantine" in err

    # two edits through the CLI rewrite facts.json: the bad record must be kept, verbatim
    target = next(f for f in listed if f["invalid_at"] is None)
    assert cli("edit", "-w", str(ws), "--fact", target["id"], "--valid-until", "2026-12-01")[0] == 0
    assert cli("edit", "-w", str(ws), "--fact", target["id"], "--still-valid")[0] == 0
    after = _doc(ws)
    assert bad not in after["facts"]
    assert after["quarantined"] == [bad]

    stats = json.loads(cli("stats", "-w", str(ws), "--json")[1])
    assert stats["facts_quarantined"] == 1 and stats["facts"] == n_good
    code, out, _ = cli("validate", "-w", str(ws), "--json", "--no-index")
    report = json.loads(out)
    assert code != 0 and not report["ok"]
    assert any(p["kind"] == "schema" and "quarantined" in p["detail"] for p in report["problems"])

    # fixed by hand in the quarantined list, `validate --repair` puts it back
    after["quarantined"][0]["confidence"] = 0.9
    _write(ws, after)
    code, out, err = cli("validate", "-w", str(ws), "--json", "--no-index", "--repair")
    assert json.loads(out)["repaired"]["quarantine_restored"] == 1, err
    assert bad["id"] in {f["id"] for f in _facts_json(ws)}
    assert "quarantined" not in _doc(ws)


def test_quarantine_is_kept_through_a_merge_with_another_writer(workspace: Path) -> None:
    cfg = load_config({"storage": {"writeDebounceMs": 0}})
    good = {"id": "f-1", "subject": "A", "predicate": "likes", "object": "B"}
    broken = {"id": "f-2", "subject": "A", "predicate": "likes", "object": "C", "relevance": "high"}
    _write(workspace, {"schema": 1, "facts": [good, broken]})
    host, other = Workspace(workspace, cfg), Workspace(workspace, cfg)
    assert host.facts.table.invalid_records == 1
    other.facts.add("X", "likes", "Y")
    other.flush()
    host.facts.add("P", "likes", "Q")
    host.flush()  # merges with other's write
    doc = _doc(workspace)
    assert doc["quarantined"] == [broken]
    assert {f["id"] for f in doc["facts"]} >= {"f-1"} and len(doc["facts"]) == 3


# ---------------------------------------------------------------------------------------------- foreign files


def _capital_key(folder: Path, outside: Path) -> None:
    doc = _doc(folder)
    doc["Facts"] = doc.pop("facts")
    _write(folder, doc)


def _future_schema(folder: Path, outside: Path) -> None:
    doc = _doc(folder)
    doc["schema"] = 2
    _write(folder, doc)


def _a_folder(folder: Path, outside: Path) -> None:
    (folder / "facts.json").unlink()
    (folder / "facts.json").mkdir()
    ((folder / "facts.json") / "note.txt").write_text("someone's folder")


def _link_out(folder: Path, outside: Path) -> None:
    outside.mkdir()
    shutil.move(str(folder / "facts.json"), outside / "facts.json")
    (folder / "facts.json").symlink_to(outside / "facts.json")


BREAKS: dict[str, tuple[Callable[[Path, Path], None], str]] = {
    "Facts key": (_capital_key, "no 'facts' list"),
    "schema 2": (_future_schema, "schema 2"),
    "folder": (_a_folder, "not a regular file"),
    "link out": (_link_out, "symbolic link"),
}


def _snapshot(folder: Path, outside: Path) -> dict[str, object]:
    """Everything a refused file consists of: its bytes (or listing), what a link points at, its backup."""
    path = folder / "facts.json"
    snap: dict[str, object] = {"link": os.readlink(path) if path.is_symlink() else None}
    snap["data"] = sorted(p.name for p in path.iterdir()) if path.is_dir() else path.read_bytes()
    bak = folder / "facts.json.bak"
    snap["bak"] = (bak.is_symlink(), bak.read_bytes() if bak.is_file() else None)
    if outside.exists():
        snap["outside"] = sorted((p.name, p.read_bytes()) for p in outside.iterdir())
    return snap


@pytest.mark.parametrize("case", list(BREAKS))
def test_cli_refuses_a_store_it_cannot_read_as_its_own(ws: Path, tmp_path: Path, case: str) -> None:
    breaker, reason = BREAKS[case]
    outside = tmp_path / "outside"
    exported = tmp_path / "export.jsonl"
    assert cli("export", "-w", str(ws), "--format", "jsonl", "--output", str(exported))[0] == 0
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        json.dumps({"id": "t1", "role": "user", "text": "Priya lives in Rotterdam."}) + "\n"
    )
    breaker(ws, outside)
    before = _snapshot(ws, outside)
    target = "f-0000000000000000"
    for args in (
        ("facts",),
        ("stats",),
        ("stats", "--json"),
        ("show", "person:maya"),
        ("edit", "--fact", target, "--still-valid"),
        ("validate", "--no-index"),
        ("ingest", str(transcript)),
        ("import", str(exported)),
    ):
        code, out, err = cli(*args, "-w", str(ws))
        assert code != 0, (args, out)
        assert "facts.json" in err and reason in err, (args, err)
        assert "Traceback" not in err
    assert _snapshot(ws, outside) == before
    assert not (ws / "facts.json.bak").is_symlink()


@pytest.mark.parametrize("case", ["Facts key", "schema 2", "link out"])
def test_host_never_overwrites_it_and_keeps_the_messages_until_it_is_fixed(
    ws: Path, tmp_path: Path, case: str, caplog: pytest.LogCaptureFixture
) -> None:
    breaker, reason = BREAKS[case]
    outside = tmp_path / "outside"
    kept_ids = {f["id"] for f in _doc(ws)["facts"]}
    breaker(ws, outside)
    before = _snapshot(ws, outside)
    t0 = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
    texts = ["Priya Raman works at Quillfeather Analytics.", "Priya Raman lives in Rotterdam."]
    msgs = [
        Message(
            id=f"fix-{i}",
            text=t,
            role="user",
            speaker="Ana",
            session="fx",
            timestamp=t0 + timedelta(minutes=i),
        )
        for i, t in enumerate(texts)
    ]

    caplog.set_level(logging.INFO)
    host = KnowledgeEngine(load_config(HOST_CFG))
    wsp = host.open_workspace(ws, "default")
    for m in msgs:
        assert host.submit(wsp, m)
    host.flush(timeout_s=60)  # the write is refused
    host.stop(timeout_s=30)
    assert _snapshot(ws, outside) == before
    told = [r for r in caplog.records if r.levelno >= logging.ERROR and "facts.json" in r.getMessage()]
    assert len([r for r in told if reason in r.getMessage()]) == 1, [r.getMessage() for r in told]
    assert not any("message hook failed" in r.getMessage() for r in caplog.records)
    journal = (ws / "ingest-journal.jsonl").read_text() + (
        (ws / "ingest-spill.jsonl").read_text() if (ws / "ingest-spill.jsonl").exists() else ""
    )
    assert all(m.id in journal for m in msgs)

    # the user repairs the file; the next start replays the journal into it: nothing was lost
    if case == "link out":
        (ws / "facts.json").unlink()
        shutil.move(str(outside / "facts.json"), ws / "facts.json")
    else:
        doc = _doc(ws)
        doc["schema"] = 1
        if "Facts" in doc:
            doc["facts"] = doc.pop("Facts")
        _write(ws, doc)
    again = KnowledgeEngine(load_config(HOST_CFG))
    again.open_workspace(ws, "default")
    assert again.flush(timeout_s=60)
    again.stop(timeout_s=30)
    final = _doc(ws)["facts"]
    assert kept_ids <= {f["id"] for f in final}
    assert {"Quillfeather Analytics", "Rotterdam"} <= {f["object"] for f in final}


def test_host_merges_into_the_file_once_it_is_fixed_while_running(ws: Path) -> None:
    kept_ids = {f["id"] for f in _doc(ws)["facts"]}
    _future_schema(ws, ws)
    wsp = Workspace(ws, load_config({"storage": {"writeDebounceMs": 0}}))
    wsp.facts.add("Priya", "likes", "tea")
    assert wsp.flush() is False and _doc(ws)["schema"] == 2
    doc = _doc(ws)
    doc["schema"] = 1
    _write(ws, doc)
    assert wsp.flush() is True
    final = {f["id"]: f for f in _doc(ws)["facts"]}
    assert kept_ids < set(final) and any(f["object"] == "tea" for f in final.values())


def test_an_unreadable_entities_file_is_refused_too(ws: Path) -> None:
    doc = _doc(ws, "entities.json")
    doc["Entities"] = doc.pop("entities")
    _write(ws, doc, "entities.json")
    before = (ws / "entities.json").read_bytes()
    for args in (
        ("entities",),
        ("stats",),
        ("facts", "--entity", "Maya"),
        ("edit", "--merge", "a", "--merge", "b"),
    ):
        code, _, err = cli(*args, "-w", str(ws))
        assert code != 0 and "entities.json" in err and "no 'entities' list" in err, (args, err)
    assert (ws / "entities.json").read_bytes() == before


def test_hooks_accept_messages_and_park_them_when_the_store_is_not_the_engines(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Through the real plugin and runner: no `message hook failed`, one clear error, nothing lost."""
    import asyncio

    from knowledge_engine.host import HookRunner, PluginApi
    from knowledge_engine.plugin import register

    folder = tmp_path / "agent-a"
    ws_dir = folder / "ke"
    ws_dir.mkdir(parents=True)
    foreign = json.dumps({"schema": 2, "facts": [{"id": "f-1", "future": True}]}).encode()
    (ws_dir / "facts.json").write_bytes(foreign)
    cfg = {
        "workspaceTemplate": "{workspaceDir}/ke",
        "workspaceRoot": str(tmp_path / "agents"),
        "storage": {"writeDebounceMs": 20},
        "embeddings": {"enabled": False},
        "maintenance": {"enabled": False},
    }
    ctx = {"agentId": "a", "sessionKey": "agent:a:main", "workspaceDir": str(folder)}
    texts = ["Priya Raman works at Quillfeather Analytics.", "Priya Raman lives in Rotterdam."]

    async def run_host() -> None:
        api = PluginApi("knowledge-engine", cfg)
        plugin = register(api)
        assert plugin is not None
        hooks = HookRunner(api.registrations)
        await hooks.run("session_start", {"sessionId": "a-1", "sessionKey": "agent:a:main"}, ctx)
        for i, text in enumerate(texts):
            event = {"content": text, "messageId": f"a-{i}", "sessionKey": "agent:a:main", "from": "u1"}
            await hooks.run("message_received", event, {"channelId": "t", "sessionKey": "agent:a:main"})
        await asyncio.to_thread(plugin.engine.flush, 60)
        await hooks.run("gateway_stop", {"reason": "test"}, {})
        plugin.engine.stop(5)

    caplog.set_level(logging.INFO)
    asyncio.run(run_host())
    assert (ws_dir / "facts.json").read_bytes() == foreign
    messages = [r.getMessage() for r in caplog.records]
    assert not any("hook failed" in m for m in messages), messages
    assert len([m for m in messages if "facts.json" in m and "schema 2" in m]) == 1
    parked = "".join(p.read_text() for p in ws_dir.glob("ingest-*.jsonl"))
    assert "a-0" in parked and "a-1" in parked
