"""A message's applied key reaches disk only together with the records it stands for (issue 13).

A key on disk makes replay skip the message forever, so a flush that writes the key without the
message's entities or facts, followed by a kill -9, loses them for good. Each test forces the flush at
the worst moment, then reads the store back from the files alone (what a restart after kill -9 sees).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from knowledge_engine.config import load_config
from knowledge_engine.model.extraction import Extraction, FactCandidate, Mention
from knowledge_engine.model.records import Message
from knowledge_engine.store.workspace import Workspace

CONFIG = {"storage": {"writeDebounceMs": 600000}, "embeddings": {"enabled": False}}


def _message(i: int) -> tuple[Message, list[Extraction]]:
    who, org = f"Person{chr(65 + i)} Example", f"Org{chr(65 + i)} Corp"
    msg = Message(id=f"m-{i}", text=f"{who} works at {org}.", role="user", session="s")
    ex = Extraction(
        message_id=msg.id,
        mentions=[
            Mention(value=who, type="person", tier="spacy"),
            Mention(value=org, type="organization", tier="spacy"),
        ],
        facts=[FactCandidate(subject=who, predicate="works-at", object=org, tier="spacy",
                             subject_type="person", object_type="organization")],
    )
    return msg, [ex]


def _consistent(folder: Path, i: int) -> bool:
    """From the files alone: the key is absent (replay re-applies) or every record it stands for is there."""
    ws = Workspace(folder, load_config(CONFIG))
    msg, exs = _message(i)
    try:
        if not ws.was_applied(msg.id, "spacy"):
            return True
        names = [m.value for m in exs[0].mentions]
        have_entities = all(ws.entities.resolve(n) is not None for n in names)
        have_fact = any(f.subject == names[0] and f.object == names[1] for f in ws.facts.all())
        return have_entities and have_fact
    finally:
        ws.closed = True  # never flush this reader's view


def test_a_flush_inside_apply_never_persists_the_key_without_its_records(tmp_path: Path) -> None:
    ws = Workspace(tmp_path, load_config(CONFIG))
    real_observe = ws.entities.observe
    calls = 0

    def observe_then_flush(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 1:
            ws.flush()  # the debounced timer's flush, landing between the key and the records
        return real_observe(*args, **kwargs)

    ws.entities.observe = observe_then_flush  # type: ignore[method-assign]
    msg, exs = _message(0)
    ws.apply(msg, exs)
    assert _consistent(tmp_path, 0), "applied key on disk without the message's entities and facts"
    # the replay after the "kill" re-applies the message and stores everything
    again = Workspace(tmp_path, load_config(CONFIG))
    again.apply(msg, exs)
    again.flush()
    assert _consistent(tmp_path, 0) and Workspace(tmp_path, load_config(CONFIG)).was_applied(msg.id, "spacy")


class _WatchedLock:
    """Wraps the workspace's write lock to see the apply thread arrive at it."""

    def __init__(self, inner: Any, watched: dict[str, Any]) -> None:
        self.inner, self.watched = inner, watched

    def __enter__(self) -> Any:
        if threading.current_thread() is self.watched.get("thread"):
            self.watched["waiting"].set()
        return self.inner.__enter__()

    def __exit__(self, *exc: Any) -> Any:
        return self.inner.__exit__(*exc)


def test_an_apply_between_the_entity_and_the_fact_write_is_not_half_persisted(tmp_path: Path) -> None:
    ws = Workspace(tmp_path, load_config(CONFIG))
    first, first_exs = _message(0)
    ws.apply(first, first_exs)  # something to flush
    watched: dict[str, Any] = {"waiting": threading.Event()}
    ws.write_lock = _WatchedLock(getattr(ws, "write_lock", threading.RLock()), watched)
    done = threading.Event()
    real_flush = ws.entities.flush

    def entities_then_apply() -> bool:
        wrote = real_flush()  # entities.json is on disk; facts.json (with the keys) comes next
        msg, exs = _message(1)
        t = threading.Thread(target=lambda: (ws.apply(msg, exs), done.set()))
        watched["thread"] = t
        t.start()
        deadline = time.monotonic() + 30
        while not (done.is_set() or watched["waiting"].is_set()) and time.monotonic() < deadline:
            done.wait(0.01)  # the apply ran through, or it waits for this flush to finish
        watched["apply"] = t
        return wrote

    ws.entities.flush = entities_then_apply  # type: ignore[method-assign]
    ws.flush()
    watched["apply"].join(30)
    assert done.is_set()
    assert _consistent(tmp_path, 0)
    assert _consistent(tmp_path, 1), "facts.json holds the key and facts of a message entities.json lacks"
