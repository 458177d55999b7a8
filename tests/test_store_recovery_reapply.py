"""A facts file found corrupt at start is replaced by its last good copy (`.bak`); the messages whose
knowledge was in the lost write are in the message log, and the host extracts them again, so the
knowledge comes back instead of being lost for good (new-user pass 3: 1073 facts -> 795)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from knowledge_engine.config import load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters
from tests.fixtures.waiting import wait_for

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _engine(root: Path) -> KnowledgeEngine:
    return KnowledgeEngine(
        load_config(
            {
                "workspaceRoot": str(root),
                "extraction": {"llm": {"enabled": False}, "spacy": {"workers": 0}},
                "maintenance": {"enabled": False},
                "embeddings": {"enabled": False},
            }
        )
    )


def _say(mid: str, text: str, minute: int) -> Message:
    return Message(
        id=mid, text=text, role="user", session="s1", speaker="Maya", timestamp=T0.replace(minute=minute)
    )


def _triples(engine: KnowledgeEngine) -> list[tuple[str, str, str]]:
    return sorted((f.subject, f.predicate, f.object) for f in engine.workspace("maya").facts.all())


def _two_writes(root: Path, *later: Message) -> tuple[Path, list[tuple[str, str, str]]]:
    """A host that wrote m1's facts, then (if any) `later`'s, and stopped cleanly: facts.json holds
    both writes, its .bak the first. Returns the folder and the facts it held."""
    engine = _engine(root)
    ws = engine.workspace("maya")
    engine.ingest(ws, [_say("m1", "I work at Acme Robotics.", 1)])
    assert ws.flush()
    if later:
        engine.ingest(ws, list(later))
        assert ws.flush()
    facts = _triples(engine)
    engine.stop(10)
    return ws.folder, facts


def _truncated(folder: Path, name: str, keep: int) -> None:
    """A store file cut short while the host was stopped."""
    path = folder / name
    path.write_bytes(path.read_bytes()[:keep])


def test_the_lost_write_is_extracted_again_from_the_message_log(tmp_path: Path) -> None:
    folder, before = _two_writes(
        tmp_path, _say("m2", "My sister Ana lives in Porto.", 2), _say("m3", "We have a dog called Rex.", 3)
    )
    _truncated(folder, "facts.json", 50)

    again = counters.get("ingest.reapplied")
    engine = _engine(tmp_path)
    try:
        ws = engine.workspace("maya")
        assert ws.facts.table.recovered == "facts.json.bak"
        wait_for("the lost write's knowledge to come back", lambda: _triples(engine) == before)
        assert counters.get("ingest.reapplied") == again + 2  # m2 and m3; m1 is in the .bak
        assert list(ws.folder.glob("facts.json.corrupt-*"))  # the corrupt file is kept for the operator
    finally:
        engine.stop(10)


def test_a_clean_start_extracts_nothing_again(tmp_path: Path) -> None:
    _two_writes(tmp_path)
    again = counters.get("ingest.reapplied")
    engine = _engine(tmp_path)
    try:
        assert engine.workspace("maya").facts.table.recovered is None
        assert counters.get("ingest.reapplied") == again
    finally:
        engine.stop(10)


def test_with_no_readable_copy_every_message_is_extracted_again(tmp_path: Path) -> None:
    folder, before = _two_writes(tmp_path, _say("m2", "My sister Ana lives in Porto.", 2))
    for name in ("facts.json", "facts.json.bak"):
        (folder / name).write_bytes(b'{"schema": 1, "facts": [')  # both cut short

    engine = _engine(tmp_path)
    try:
        assert engine.workspace("maya").facts.table.recovered == "empty"
        wait_for("every message's knowledge to come back", lambda: _triples(engine) == before)
    finally:
        engine.stop(10)


def _mentions(engine: KnowledgeEngine) -> dict[str, list[str]]:
    """Each entity's value and the messages that mentioned it."""
    return {
        e.value: sorted({m.message_id for m in e.mentions}) for e in engine.workspace("maya").entities.all()
    }


def test_an_entities_file_lost_alone_gets_its_newest_writes_mentions_back(tmp_path: Path) -> None:
    """entities.json is written first, facts.json last: the facts' newest write says which messages the
    lost entities write held (its applied keys beside the .bak's); they are applied again, the facts a
    replay, the mentions back."""
    folder, facts_before = _two_writes(
        tmp_path, _say("m2", "My sister Ana lives in Porto.", 2), _say("m3", "Tom joined Northwind Labs.", 3)
    )
    engine = _engine(tmp_path)
    mentions_before = _mentions(engine)
    engine.stop(10)
    _truncated(folder, "entities.json", 40)

    again = counters.get("ingest.reapplied")
    engine = _engine(tmp_path)
    try:
        ws = engine.workspace("maya")
        assert ws.entities.table.recovered == "entities.json.bak"
        assert ws.facts.table.recovered is None
        wait_for("the lost mentions to come back", lambda: _mentions(engine) == mentions_before)
        assert counters.get("ingest.reapplied") == again + 2  # m2 and m3; m1 is in the .bak
        assert _triples(engine) == facts_before  # a replay: no fact added or reinforced twice
        assert all(len(f.evidence) == 1 for f in ws.facts.all())
    finally:
        engine.stop(10)
