"""The sentence probe bench (scripts/bench/sentences.py): its matching rule, its split, its JSON line.

Checks the scoring, never the engine's figures (those are for the bench to print).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scripts.bench import sentences as sb

ME = sb.SPEAKER


def test_a_row_is_expressed_by_any_form_of_its_relation() -> None:
    assert sb.expressed(["employer", "me", "Zalando", "future"], [(ME, "works-at", "Zalando")])
    assert sb.expressed(["employer", "me", "Tesco", "past"], [(ME, "worked-at", "Tesco")])
    assert sb.expressed(["partner", "me", "Dev", "current"], [(ME, "has-partner", "Dev")])  # partner: spouse
    assert sb.expressed(["moved_to", "me", "Leeds", "current"], [(ME, "moved-to", "Leeds")])
    assert sb.expressed(["rent", "me", "£950 a month", "current"], [(ME, "has-rent", "£950")])  # a part of it
    assert sb.expressed(["child_school", "Mia", "Oakfield", "current"], [("Mia", "attends", "Oakfield")])


def test_a_row_is_not_expressed_by_another_subject_relation_or_object() -> None:
    row = ["employer", "me", "Zalando", "current"]
    assert not sb.expressed(row, [("Tom", "works-at", "Zalando")])
    assert not sb.expressed(row, [(ME, "lives-in", "Zalando")])
    assert not sb.expressed(row, [(ME, "works-at", "Zara")])
    assert not sb.expressed(row, [])


def test_the_split_keeps_odd_and_even_ids_apart(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    rows = [{"id": f"p{i:03d}", "style": "plain", "text": "hi", "expect": []} for i in range(1, 6)]
    path.write_text("\n".join(json.dumps(r) for r in rows))
    assert [r["id"] for r in sb.load(path, "odd")] == ["p001", "p003", "p005"]
    assert [r["id"] for r in sb.load(path, "even")] == ["p002", "p004"]
    assert len(sb.load(path, "all")) == 5


@pytest.mark.slow
def test_the_last_line_is_one_json_object_with_the_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "p.jsonl"
    rows = [
        {
            "id": "p001",
            "style": "plain",
            "text": "I work at Tesco.",
            "expect": [["employer", "me", "Tesco", "current"]],
        },
        {"id": "p003", "style": "plain", "text": "Lovely weather today.", "expect": []},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows))
    sb.main(["--file", str(path), "--part", "odd", "--rules-only"])
    last = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert last["messages"] == 2 and last["facts_expected"] == 1 and last["negatives"] == 1
    assert set(last["by_relation"]) == {"employer"} and set(last["by_style"]) == {"plain"}
    assert 0 <= last["facts_found"] <= 1 and 0 <= last["negatives_with_a_fact"] <= 1


def test_the_even_part_prints_no_misses() -> None:
    with pytest.raises(SystemExit):
        sb.main(["--part", "even", "--misses"])
