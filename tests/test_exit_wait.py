"""A process exiting right after a stop that ran out of budget exits cleanly (knowledge_engine/exitwait.py).

The live indexer embeds with onnxruntime and writes through Chroma's Rust core. A stop keeps to the
host's budget, so that thread can still be inside native code when the stop returns; an interpreter
that then finalised under it aborted the process ("terminate called without an active exception",
exit 134: seen at the end of scripts/bench/ingest.py). The child below makes that happen on purpose:
one large batch reaches the live indexer, the stop comes while it embeds, and the child exits at once.
Real embedder, real embedded Chroma.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = textwrap.dedent(
    """
    import atexit, json, sys, threading, time
    from pathlib import Path

    def last_word():  # registered first, so it runs after every handler the engine registers
        live = [t for t in threading.enumerate() if t.name == "knowledge-engine-live-index"]
        print(json.dumps({"live_running_at_exit": any(t.is_alive() for t in live)}), flush=True)

    atexit.register(last_word)

    from knowledge_engine.config import load_config
    from knowledge_engine.engine import KnowledgeEngine
    from knowledge_engine.model.records import Message

    folder = Path(sys.argv[1])
    config = {
        "extraction": {"spacy": {"enabled": False, "batchSize": 1500}, "llm": {"enabled": False}},
        "maintenance": {"enabled": False},
        "storage": {"writeDebounceMs": 60000},
    }
    engine = KnowledgeEngine(load_config(config))
    ws = engine.open_workspace(folder, "exit")
    words = "the garden project with my sister took most of the weekend and the tomatoes finally came up"
    msgs = [Message(id=f"m{i}", text=f"{words} ({i}) " * 3, role="user", session="s1") for i in range(1500)]
    engine.ingest(ws, msgs)  # one batch: the live indexer takes all 1500 in one go
    deadline = time.monotonic() + 120
    while not (engine._live is not None and engine._live._busy) and time.monotonic() < deadline:
        time.sleep(0.01)
    print(json.dumps({"busy_at_stop": bool(engine._live and engine._live._busy)}), flush=True)
    engine.stop(0.01)
    print(json.dumps({"stopped": True}), flush=True)
    """
)


def test_a_process_exiting_right_after_a_stop_mid_embedding_exits_cleanly(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path / "ws")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    said = {k: v for line in lines for k, v in line.items()}
    assert said.get("busy_at_stop") is True, proc.stderr[-2000:]
    assert said.get("stopped") is True, proc.stderr[-2000:]
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "terminate called" not in proc.stderr
    # the exit waited for the batch in hand: nothing of the engine still ran under the finalising interpreter
    assert said.get("live_running_at_exit") is False, proc.stderr[-2000:]


def test_a_worker_that_outlived_stop_changes_no_file_after_it(tmp_path: Path) -> None:
    """The exit's flush skips a closed workspace: its folder may already be gone (a temporary
    directory removed after stop), and nothing of a stopped engine's may be written after stop."""
    from knowledge_engine.config import load_config
    from knowledge_engine.store.workspace import Workspace, flush_all_open

    ws = Workspace(tmp_path / "ws", load_config({"storage": {"writeDebounceMs": 60000}}))
    ws.facts.add("Dana", "lives-in", "Lisbon")
    ws.close()
    ws.facts.add("Dana", "works-at", "Initech")  # what a late worker would do, had apply() let it
    before = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "ws").iterdir()}
    flush_all_open()
    assert ws.flush() is True
    after = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "ws").iterdir()}
    assert after == before
    reopened = Workspace(tmp_path / "ws", load_config({}))
    assert [f.predicate for f in reopened.facts.all()] == ["lives-in"]
