"""Feedback: citation heuristic, Bayesian utility, atomic persistence, ranking boost."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from knowledge_engine import observe
from knowledge_engine.model.retrieval import RetrievedItem
from knowledge_engine.retrieve.feedback import UtilityTracker, is_cited, utility_score

FACT = "Caroline attended the LGBTQ support group meeting on Tuesday evening"
OTHER = "Melanie painted a sunrise over the lake last summer"


def test_citation_heuristic_is_conservative() -> None:
    assert is_cited(FACT, "You told me Caroline went to an LGBTQ support group meeting.")
    assert not is_cited(FACT, "Caroline is nice.")  # one shared word is chance
    assert not is_cited(FACT, "I do not know.")
    assert not is_cited("a an the of", "a an the of")  # no word longer than 3 characters
    assert not is_cited("", "anything")


def test_utility_prior_and_posterior() -> None:
    assert utility_score(0, 0) == 0.5
    assert utility_score(2, 2) == 0.5  # fewer than 3 judgements: neutral
    assert utility_score(3, 3) == pytest.approx(4 / 5)
    assert utility_score(0, 8) == pytest.approx(1 / 10)


def _turns(tracker: UtilityTracker, n: int, reply: str) -> None:
    for i in range(n):
        key = f"run-{reply[:5]}-{i}"
        tracker.record_injection(
            key, [RetrievedItem(id="f1", kind="fact", source="facts", text=FACT), ("m9", OTHER)]
        )
        tracker.record_reply(key, reply)


def test_tracker_counts_and_persists_atomically(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "utility.json"
    tracker = UtilityTracker(path)
    _turns(tracker, 3, "Caroline was at the LGBTQ support group meeting on Tuesday.")
    assert tracker.counts("f1") == (3, 3)
    assert tracker.counts("m9") == (0, 3)
    assert tracker.utility("f1") == pytest.approx(0.8)
    assert tracker.utility("m9") == pytest.approx(0.2)
    assert tracker.utility("never-seen") == 0.5
    data = orjson.loads(path.read_bytes())
    assert data["items"]["f1"] == {"retrievals": 3, "citations": 3}
    assert FACT not in path.read_text()  # ids and counts only, never text
    assert [p.name for p in path.parent.iterdir()] == ["utility.json"]  # no temp file left
    reloaded = UtilityTracker(path)
    assert reloaded.counts("f1") == (3, 3)


def test_reply_without_injection_or_twice_is_ignored(tmp_path: Path) -> None:
    tracker = UtilityTracker(tmp_path / "u.json")
    assert tracker.record_reply("unknown", "text") == []
    tracker.record_injection("t", [("f1", FACT)])
    assert tracker.record_reply("t", FACT) == ["f1"]
    assert tracker.record_reply("t", FACT) == []  # judged once per turn
    assert tracker.counts("f1") == (1, 1)


def test_boost_moves_useful_items_up(tmp_path: Path) -> None:
    tracker = UtilityTracker(tmp_path / "u.json")
    _turns(tracker, 4, "Caroline was at the LGBTQ support group meeting on Tuesday.")
    items = [
        RetrievedItem(id="m9", kind="memory", source="memory", text=OTHER, score=1.0),
        RetrievedItem(id="f1", kind="fact", source="facts", text=FACT, score=0.9),
        RetrievedItem(id="new", kind="fact", source="facts", text="x", score=0.95),
    ]
    out = tracker.boost(items, 0.2)
    assert [it.id for it in out] == ["f1", "new", "m9"]
    assert out[1].score == 0.95  # neutral items unchanged
    assert tracker.boost(items, 0.0)[0].id == "m9"


def test_corrupt_file_starts_empty_and_is_counted(tmp_path: Path) -> None:
    path = tmp_path / "u.json"
    path.write_text("{not json")
    before = observe.counters.get("retrieval.feedback.load_failed")
    tracker = UtilityTracker(path)
    assert tracker.utility("f1") == 0.5
    assert observe.counters.get("retrieval.feedback.load_failed") == before + 1
    path.write_text(
        '{"items": {"a": {"retrievals": 1, "citations": 5}, "b": {"retrievals": 4, "citations": 1}}}'
    )
    tracker = UtilityTracker(path)
    assert tracker.counts("a") == (0, 0) and tracker.counts("b") == (1, 4)


def test_logs_never_contain_item_or_reply_text(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    tracker = UtilityTracker(tmp_path / "u.json")
    tracker.record_injection("turn", [("f1", "ZEBRA-7731 secret pottery class")])
    tracker.record_reply("turn", "the ZEBRA-7731 secret pottery class was fun")
    assert caplog.records  # the feedback event was logged...
    assert all("ZEBRA" not in r.getMessage() and "pottery" not in r.getMessage() for r in caplog.records)
