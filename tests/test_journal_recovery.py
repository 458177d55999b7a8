"""What a killed host leaves behind (journal, spill file, a drain's `.work` file) is replayed once (issue 13).

A host killed while draining its spill file leaves `ingest-spill.jsonl.work`; a host killed during its
own recovery leaves the journal re-parked in the spill file. The next start must process all of it (not
report idle with lines still waiting), count each replayed message once against the journal (so no
checkpoint drops a journal line whose message is still waiting), and never grow the files by parking the
same journal again on every restart.
"""

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
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.ingest.journal import JOURNAL_NAME, IngestJournal, encode_message
from knowledge_engine.ingest.queue import SPILL_NAME
from knowledge_engine.model.records import Message

WORK_NAME = SPILL_NAME + ".work"


def _config(tmp_path: Path) -> dict[str, object]:
    return {"workspace": str(tmp_path / "{agentId}"), "embeddings": {"enabled": False},
            "maintenance": {"enabled": False}, "extraction": {"spacy": {"workers": 0}}}


def _msg(tag: str, i: int) -> Message:
    text = f"Dana met Priya at Initech, note {tag} {i}."
    return Message(id=f"{tag}{i}", text=text, role="user", session="s")


def _journal(folder: Path, msgs: list[Message]) -> None:
    journal = IngestJournal()
    for m in msgs:
        journal.append(folder, m)
    journal.close()


def _lines(path: Path) -> int:
    return len(path.read_bytes().splitlines()) if path.exists() else 0


def test_a_killed_drains_work_file_and_the_parked_journal_are_both_processed(tmp_path: Path) -> None:
    folder = tmp_path / "j"
    folder.mkdir()
    journalled = [_msg("c", i) for i in range(5)]
    _journal(folder, journalled)
    drained = [_msg("w", i) for i in range(8)]  # more than the journal holds: the old count went to 0
    (folder / WORK_NAME).write_bytes(b"".join(encode_message(m) for m in drained))
    engine = KnowledgeEngine(load_config(_config(tmp_path)))
    ws = engine.open_workspace(folder, "j")
    deadline = time.monotonic() + 120
    while engine.queue.pending() > 0 and time.monotonic() < deadline:
        engine.queue.drain(1)
    ws.flush()  # the checkpoint a flush takes may drop only journal lines whose messages are applied
    stored = {m.id for m in ws.messages.get_many([m.id for m in journalled + drained])}
    waiting = _journal_ids(folder)
    assert not (folder / SPILL_NAME).exists(), "idle with replayed lines still in the spill file"
    assert not (folder / WORK_NAME).exists()
    assert {m.id for m in journalled} <= stored | waiting, "journal lines dropped before their messages ran"
    assert stored == {m.id for m in journalled + drained}
    initech = ws.entities.resolve("Initech")
    assert initech is not None and initech.count == len(journalled) + len(drained)  # each applied once
    engine.stop(10)
    assert (folder / JOURNAL_NAME).read_bytes() == b""


def _journal_ids(folder: Path) -> set[str]:
    raw = (folder / JOURNAL_NAME).read_bytes() if (folder / JOURNAL_NAME).exists() else b""
    return {json.loads(line)["id"] for line in raw.splitlines() if line.strip()}


OPENER = textwrap.dedent(
    """
    import json, sys, threading
    from pathlib import Path
    from knowledge_engine.config import load_config
    from knowledge_engine.engine import KnowledgeEngine
    engine = KnowledgeEngine(load_config(json.loads(sys.argv[2])))
    engine.open_workspace(Path(sys.argv[1]), "j")
    print("open", flush=True)  # recovery done, the drain (loading spaCy) under way: the parent kills here
    threading.Event().wait()
    """
)


@pytest.mark.slow
def test_restarts_killed_during_recovery_never_grow_the_replay(tmp_path: Path) -> None:
    folder = tmp_path / "j"
    folder.mkdir()
    msgs = [_msg("c", i) for i in range(200)]
    _journal(folder, msgs)
    script = tmp_path / "opener.py"
    script.write_text(OPENER)
    cfg = _config(tmp_path)
    for round_ in range(3):
        proc = subprocess.Popen([sys.executable, str(script), str(folder), json.dumps(cfg)],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "open"
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate()
        parked = _lines(folder / SPILL_NAME) + _lines(folder / WORK_NAME)
        assert parked <= len(msgs), f"round {round_}: {parked} spill lines for {len(msgs)} messages"
        assert _journal_ids(folder) == {m.id for m in msgs}  # nothing applied yet: all still journalled
    engine = KnowledgeEngine(load_config(_config(tmp_path)))
    ws = engine.open_workspace(folder, "j")
    deadline = time.monotonic() + 180
    while engine.queue.pending() > 0 and time.monotonic() < deadline:
        engine.queue.drain(1)
    assert engine.flush(60, sync=False)
    assert not (folder / SPILL_NAME).exists() and not (folder / WORK_NAME).exists()
    assert {m.id for m in ws.messages.get_many([m.id for m in msgs])} == {m.id for m in msgs}
    initech = ws.entities.resolve("Initech")
    assert initech is not None and initech.count == len(msgs)  # replayed once, not once per restart
    engine.stop(10)
    assert (folder / JOURNAL_NAME).read_bytes() == b""
