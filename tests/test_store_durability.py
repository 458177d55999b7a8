"""Persistence guarantees: atomic files, corrupt-file recovery, no lost update across processes, kill -9."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.store.workspace import Workspace

CFG = load_config({"storage": {"writeDebounceMs": 0}})


def test_files_carry_a_schema_version_and_reload(workspace: Path) -> None:
    ws = Workspace(workspace, CFG)
    ws.facts.add("Maya", "likes", "jazz")
    ws.entities.observe("Maya", "person", "spacy")
    ws.flush()
    doc = json.loads((workspace / "facts.json").read_text())
    assert doc["schema"] == 1 and doc["facts"][0]["subject"] == "Maya"
    assert json.loads((workspace / "entities.json").read_text())["entities"][0]["value"] == "Maya"
    again = Workspace(workspace, CFG)
    assert len(again.facts) == 1 and len(again.entities) == 1


def test_corrupt_file_is_moved_aside_and_last_good_copy_loaded(
    workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ws = Workspace(workspace, CFG)
    ws.facts.add("A", "likes", "one")
    ws.flush()
    ws.facts.add("B", "likes", "two")
    ws.flush()  # facts.json.bak now holds the one-fact version
    (workspace / "facts.json").write_bytes(b'{"schema": 1, "facts": [{"id": "trunc')
    again = Workspace(workspace, CFG)
    assert {f.subject for f in again.facts.all()} == {"A"}
    assert list(workspace.glob("facts.json.corrupt-*")), "corrupt file must be kept aside"
    assert any("corrupt" in r.getMessage() for r in caplog.records)


def test_corrupt_store_is_never_overwritten_with_an_empty_one(workspace: Path) -> None:
    ws = Workspace(workspace, CFG)
    ws.facts.add("A", "likes", "one")
    ws.flush()
    (workspace / "facts.json.bak").unlink(missing_ok=True)
    garbage = b"\x00\x01 not json"
    (workspace / "facts.json").write_bytes(garbage)
    again = Workspace(workspace, CFG)
    assert len(again.facts) == 0
    again.facts.add("C", "likes", "three")
    again.flush()
    (kept,) = list(workspace.glob("facts.json.corrupt-*"))
    assert kept.read_bytes() == garbage


def test_invalid_records_are_skipped_not_fatal(workspace: Path) -> None:
    good = {"id": "f-1", "subject": "A", "predicate": "likes", "object": "B"}
    (workspace / "facts.json").write_text(json.dumps({"schema": 1, "facts": [good, {"id": 3}]}))
    ws = Workspace(workspace, CFG)
    assert [f.id for f in ws.facts.all()] == ["f-1"]
    assert ws.facts.table.invalid_records == 1


def test_newer_schema_is_refused_with_a_clear_error(workspace: Path) -> None:
    (workspace / "facts.json").write_text(json.dumps({"schema": 99, "facts": []}))
    before = (workspace / "facts.json").read_bytes()
    ws = Workspace(workspace, CFG)  # opens (the host keeps journalling) but never writes over the file
    assert ws.facts.table.unreadable is not None and "schema 99" in str(ws.facts.table.unreadable)
    ws.facts.add("A", "likes", "one")
    assert ws.flush() is False
    assert (workspace / "facts.json").read_bytes() == before


def test_two_writers_never_lose_each_others_updates(workspace: Path) -> None:
    host = Workspace(workspace, CFG)
    cli = Workspace(workspace, CFG)
    host.facts.add("Host", "likes", "one")
    cli.facts.add("Cli", "likes", "two")
    host.flush()
    cli.flush()
    third = Workspace(workspace, CFG)
    assert {f.subject for f in third.facts.all()} == {"Host", "Cli"}
    # a deletion by one is not undone by the other's next write
    victim = next(f for f in third.facts.all() if f.subject == "Host")
    third.facts.forget(victim.id)
    third.flush()
    host.facts.add("Host", "likes", "three")
    host.flush()
    final = {f.text() for f in Workspace(workspace, CFG).facts.all()}
    assert final == {"Cli likes two", "Host likes three"}


WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from knowledge_engine.config import load_config
    from knowledge_engine.store.workspace import Workspace
    folder, name, n = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    ws = Workspace(folder, load_config({"storage": {"writeDebounceMs": 0}}))
    for i in range(n):
        ws.facts.add(name, "counts", str(i))
        ws.flush()
    """
)


def test_two_processes_writing_concurrently_lose_nothing(workspace: Path, tmp_path: Path) -> None:
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    procs = [
        subprocess.Popen([sys.executable, str(script), str(workspace), who, "40"]) for who in ("host", "cli")
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    facts = Workspace(workspace, CFG).facts.all()
    assert len(facts) == 80
    assert {f.subject for f in facts} == {"host", "cli"}


KILLED = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from knowledge_engine.config import load_config
    from knowledge_engine.store.workspace import Workspace
    folder = Path(sys.argv[1])
    ws = Workspace(folder, load_config({"storage": {"writeDebounceMs": 0}}))
    i = len(ws.facts)
    while True:
        ws.facts.add("p", "counts", str(i))
        ws.entities.observe(f"Entity {i}", "concept", "regex")
        ws.flush()
        print(i, flush=True)  # acknowledged: flushed before this line
        i += 1
    """
)


@pytest.mark.slow
def test_kill_9_at_random_points_never_breaks_the_store(workspace: Path, tmp_path: Path) -> None:
    script = tmp_path / "killed.py"
    script.write_text(KILLED)
    acknowledged: set[str] = set()
    for round_ in range(20):
        proc = subprocess.Popen(
            [sys.executable, str(script), str(workspace)], stdout=subprocess.PIPE, text=True
        )
        assert proc.stdout is not None
        first = proc.stdout.readline()  # started and wrote at least once
        assert first.strip().isdigit()
        acknowledged.add(first.strip())
        time.sleep(0.02 + (round_ % 7) * 0.013)
        os.kill(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        acknowledged.update(line for line in out.split() if line.isdigit())
        ws = Workspace(workspace, CFG)  # must load every time
        stored = {f.object for f in ws.facts.all()}
        assert acknowledged <= stored
