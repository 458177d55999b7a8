"""A message reaches the message log before the extraction tiers have loaded (issue 18 §1).

Loading spaCy and its worker processes takes seconds in a fresh process (15 s on a busy 2-core machine).
The raw text need not wait for them: the keyword arm of the next turn can find it at once.
"""

from __future__ import annotations

import time
from pathlib import Path

from knowledge_engine import KnowledgeEngine
from knowledge_engine.config import load_config
from knowledge_engine.model.records import Message
from knowledge_engine.store.messages import MessageLog

CONFIG = {"embeddings": {"enabled": False}, "extraction": {"spacy": {"workers": 0}}}


def _logged(folder: Path) -> list[str]:
    log = MessageLog(folder)
    try:
        return [m.id for m in log.iter()]
    finally:
        log.close()


def test_the_log_does_not_wait_for_the_tiers_to_load(tmp_path: Path) -> None:
    engine = KnowledgeEngine(load_config(CONFIG))
    ws = engine.open_workspace(tmp_path)
    # The tiers are "loading": the pipeline is built under this lock, so holding it is what a slow load is.
    engine._pipeline_lock.acquire()
    try:
        assert engine._pipeline is None
        assert engine.submit(ws, Message(id="m1", text="I moved to Lisbon in May.", role="user", session="s"))
        deadline = time.monotonic() + 60
        while "m1" not in _logged(tmp_path) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _logged(tmp_path) == ["m1"]
    finally:
        engine._pipeline_lock.release()
    assert engine.flush(120)
    assert _logged(tmp_path) == ["m1"]  # stored once, not again when the tiers ran
    assert any("Lisbon" in e.value for e in ws.entities.all())
    engine.stop()
