"""Smoke tests of the retrieval benchmarks on a tiny slice, so the scripts cannot rot.

They check the shape and ranges of the JSON line, never the figures' targets (performance
and quality figures are for the scripts to print, not for tests to assert).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scripts.bench import locomo
from scripts.bench.common import LOCOMO_DEV, load_locomo, normalise_evidence, parse_session_date

TINY = {
    "sample_id": "tiny",
    "conversation": {
        "speaker_a": "Ana", "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a grey kitten called Miso last week."},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Lovely! How is Miso settling in?"},
            {"speaker": "Ana", "dia_id": "D1:3", "text": "Great, she sleeps on my keyboard all day."},
        ],
        "session_2_date_time": "10:05 am on 2 June, 2023",
        "session_2": [
            {"speaker": "Ben", "dia_id": "D2:1", "text": "I ran a half marathon in Lisbon on Sunday."},
            {"speaker": "Ana", "dia_id": "D2:2", "text": "Wow, congratulations on the Lisbon race!"},
        ],
    },
    "qa": [
        {"question": "What is the name of Ana's kitten?", "answer": "Miso", "evidence": ["D1:1"],
         "category": 4},
        {"question": "Where did Ben run a half marathon?", "answer": "Lisbon", "evidence": ["D2:1"],
         "category": 1},
        {"question": "When did Ana adopt the kitten?", "answer": "May 2023", "evidence": ["D:1:1"],
         "category": 2},
        {"question": "What does Ben think of cats?", "answer": "n/a", "evidence": [], "category": 5},
    ],
}


def test_session_dates_and_evidence_ids_are_read_leniently() -> None:
    d = parse_session_date("1:56 pm on 8 May, 2023")
    assert d is not None and (d.year, d.month, d.day, d.hour, d.minute) == (2023, 5, 8, 13, 56)
    assert parse_session_date("12:05 am on 1 January, 2024").hour == 0  # type: ignore[union-attr]
    assert parse_session_date("sometime in May") is None
    assert normalise_evidence(["D1:3", "D2:1 D2:4", "D:11:26", 7]) == (["D1:3", "D2:1", "D2:4", "D11:26"], 1)


def _run(
    tmp_path: Path, data: list[dict[str, Any]], capsys: pytest.CaptureFixture[str], *args: str
) -> dict[str, Any]:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(data))
    assert locomo.main([str(path), "--json", *args]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    return json.loads(out[-1])


def _check_ranges(out: dict[str, Any]) -> None:
    assert set(out["recall"]) == {"messages", "messages_facts", "bm25", "vector"}
    for arm in out["recall"].values():
        assert set(arm) == {"overall", "by_category"} and set(arm["by_category"]) == {"1", "2", "3", "4"}
        values = [arm["overall"], *arm["by_category"].values()]
        assert all(v is None or 0.0 <= v <= 1.0 for v in values)
    # facts can only add evidence to what the memory items brought
    assert out["recall"]["messages_facts"]["overall"] >= out["recall"]["messages"]["overall"]
    lat = out["latency_ms"]
    assert 0 < lat["p50"] <= lat["p95"] and 0 <= lat["embed_p50"] <= lat["embed_p95"]
    assert out["provenance_not_in_block"] == 0
    assert 0 < out["block_chars_mean"] <= out["budget_chars"]
    prec = out["precision"]
    assert all(v is None or 0.0 <= v <= 1.0 for v in [prec["overall"], *prec["by_category"].values()])
    assert out["block_items_mean"] > 0 and 0 <= out["empty_blocks"] <= out["questions"]


@pytest.mark.slow
def test_tiny_conversation_through_the_hooks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(tmp_path, [TINY], capsys, "--budget-chars", "1500")
    assert out["conversations"] == 1 and out["turns"] == 5
    assert out["questions"] == 3  # category 5 is skipped; "D:1:1" is read as D1:1
    assert out["malformed_evidence"] == 0 and out["budget_chars"] == 1500
    _check_ranges(out)
    # five short turns fit in the budget: every arm that found anything finds the kitten turn
    assert out["recall"]["bm25"]["by_category"]["4"] == 1.0
    assert out["recall"]["messages"]["by_category"]["4"] == 1.0


def test_a_cached_workspace_is_the_same_after_a_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Retrieval's access boost rewrote the cached facts each run, so two runs of the same code differed."""
    cache = tmp_path / "cache"
    first = _run(tmp_path, [TINY], capsys, "--budget-chars", "1500", "--cache-dir", str(cache))
    files = sorted(cache.rglob("facts.json*"))
    assert files, "the tiny conversation gave no facts to check"
    before = {f: f.read_bytes() for f in files}
    second = _run(tmp_path, [TINY], capsys, "--budget-chars", "1500", "--cache-dir", str(cache))
    assert {f: f.read_bytes() for f in files} == before
    assert second["recall"] == first["recall"]


def test_captions_ride_with_their_photo_turns_under_their_own_id(tmp_path: Path) -> None:
    photo = {"speaker": "Ana", "dia_id": "D1:4", "text": "Look at this!", "blip_caption": "a photo of a cat"}
    data: Any = json.loads(json.dumps(TINY))
    sessions = data["conversation"]["session_1"]
    sessions.append(photo)
    path = tmp_path / "photo.json"
    path.write_text(json.dumps([data]))
    plain, shown = load_locomo(path)[0], load_locomo(path, captions=True)[0]
    assert plain.sample_id == "tiny" and shown.sample_id == "tiny+captions"  # never the same cache
    assert [t.text for t in plain.turns if t.dia_id == "D1:4"] == ["Look at this!"]
    assert [t.text for t in shown.turns if t.dia_id == "D1:4"] == ["Look at this! [Image: a photo of a cat]"]
    assert [t.text for t in shown.turns if t.dia_id == "D1:1"] == [sessions[0]["text"]]  # no caption


@pytest.mark.slow
@pytest.mark.skipif(not LOCOMO_DEV.exists(), reason="LoCoMo dev split not present")
def test_real_locomo_slice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    conv = json.loads(LOCOMO_DEV.read_text())[0]
    sessions = {k: v for k, v in conv["conversation"].items() if k.split("_")[1] in ("1", "2")}
    ids = {t["dia_id"] for k, v in sessions.items() if isinstance(v, list) for t in v}
    qa = [q for q in conv["qa"] if q.get("evidence") and set(q["evidence"]) <= ids][:6]
    small = {**conv, "conversation": {"speaker_a": conv["conversation"]["speaker_a"],
                                      "speaker_b": conv["conversation"]["speaker_b"], **sessions}, "qa": qa}
    assert len(load_locomo(LOCOMO_DEV)) >= 1
    out = _run(tmp_path, [small], capsys, "--limit-questions", "6")
    assert out["questions"] == len([q for q in qa if q["category"] in (1, 2, 3, 4)])
    _check_ranges(out)


def test_precision_is_the_share_of_block_items_that_are_evidence() -> None:
    report = {"items": [
        {"kind": "memory", "id": "D1:1", "message_ids": ["D1:1"]},
        {"kind": "memory", "id": "D1:2", "message_ids": ["D1:2"]},
        {"kind": "fact", "id": "f1", "message_ids": ["D1:1", "D2:1"]},
        {"kind": "fact", "id": "f2", "message_ids": ["D2:2"]},
        {"kind": "memory", "id": "D2:1", "message_ids": ["D2:1"]},  # not shown: not counted
    ]}
    block = "- [Ana #D1:1] ...\n- [Ben #D1:2] ...\n- x (id f1)\n- y (id f2)\n"
    items = locomo.block_items(report, block)
    assert len(items) == 4
    assert locomo.precision(["D1:1"], items) == 0.5  # the turn and the fact citing it
    assert locomo.precision(["D9:9"], items) == 0.0
    assert locomo.precision(["D1:1"], []) is None  # an empty block has no precision


def test_folds_choose_on_the_other_conversations() -> None:
    def run(per: dict[str, tuple[float, float]]) -> dict[str, Any]:
        return {"by_conversation": {c: {"messages_facts": r, "precision": p} for c, (r, p) in per.items()}}

    runs = [run({"a": (0.80, 0.05), "b": (0.70, 0.05), "c": (0.10, 0.01)}),
            run({"a": (0.80, 0.09), "b": (0.695, 0.08), "c": (0.90, 0.90)}),
            run({"a": (0.60, 0.50), "b": (0.60, 0.50), "c": (0.90, 0.90)})]
    # on a+b: run 1 loses 0.0025 recall (within tolerance) and wins on precision; run 2 loses too much
    assert locomo.choose(runs, ["a", "b"], 0.01) == 1
    assert locomo.choose(runs, ["a", "b"], 0.0) == 0
    assert locomo.parse_grid("retrieval.relevanceCutoff=0,0.5") == ("retrieval.relevanceCutoff", [0, 0.5])
    assert locomo.parse_grid(None)[0] == "retrieval.relevanceCutoff"


@pytest.mark.slow
def test_folds_over_two_conversations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = {**TINY, "sample_id": "tiny-2"}
    out = _run(tmp_path, [TINY, other], capsys, "--budget-chars", "1500", "--folds",
               "--grid", "retrieval.relevanceCutoff=0,0.9", "--cache-dir", str(tmp_path / "cache"))
    _check_ranges(out)
    folds = out["folds"]
    assert folds["key"] == "retrieval.relevanceCutoff" and folds["values"] == [0, 0.9]
    assert [f["held_out"] for f in folds["folds"]] == ["tiny", "tiny-2"]
    assert all(f["chosen"] in (0, 0.9) for f in folds["folds"])
    assert set(folds["grid"]) == {"0", "0.9"}
    assert 0.0 <= folds["held_out_mean"]["messages_facts"] <= 1.0
