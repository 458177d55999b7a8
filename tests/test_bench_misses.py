"""The misses bench (scripts/bench/misses.py): which bucket a failed row falls in, and that the report
holds counts and engine predicates only, never a story's text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scripts.bench import knowledge as kb
from scripts.bench import misses

USER = "Ana Lima"


def _row(relation: str, obj: str, status: str = "current", subject: str = "user") -> dict[str, Any]:
    return {"subject": subject, "relation": relation, "object": obj, "status": status, "accept_objects": []}


def _fact(subject: str, predicate: str, obj: str, valid: bool = True) -> kb.FactView:
    return kb.FactView(subject, predicate, obj, valid, frozenset({"spacy"}))


@pytest.mark.parametrize(
    ("row", "facts", "said", "expected"),
    [
        (_row("employer", "Northwind"), [_fact(USER, "works-at", "Northwind")], [], "ok"),
        (_row("employer", "Northwind", "superseded"), [_fact(USER, "works-at", "Northwind")], [], "status"),
        (_row("child", "Isla"), [_fact("Isla", "attends", "Wee Sparrows")], ["Isla loves it"], "elsewhere"),
        (_row("pet", "Biscuit"), [], ["took Biscuit to the vet"], "said"),
        (_row("salary", "£40,000"), [], ["I earn forty grand"], "unsaid"),
    ],
)
def test_a_row_falls_in_one_bucket(
    row: dict[str, Any], facts: list[kb.FactView], said: list[str], expected: str
) -> None:
    assert misses.bucket(row, facts, USER, said) == expected


def test_the_predicates_of_a_name_read_elsewhere_are_counted_by_where_it_sits() -> None:
    facts = [_fact("Isla", "is-aged", "3"), _fact(USER, "drives", "Isla's seat"), _fact("Tom", "has", "x")]
    found = sorted(misses.other_predicates(_row("child", "Isla"), facts))
    assert found == ["object:drives", "subject:is-aged"]


def test_one_story_through_the_engine_reports_counts_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = "Wee Sparrows"
    at = ["2025-01-10T10:00:00Z", "2025-01-10T10:01:00Z", "2025-01-11T10:00:00Z"]
    story = {
        "id": "mini",
        "user": USER,
        "messages": [
            {"session": 1, "timestamp": at[0], "role": "user", "text": "I work at Northwind."},
            {"session": 1, "timestamp": at[1], "role": "assistant", "text": "Nice."},
            {"session": 1, "timestamp": at[2], "role": "user", "text": f"I love {secret}."},
        ],
        "truth": [_row("employer", "Northwind"), _row("pet", secret)],
        "questions": [{"question": "Where do I work?", "answers": ["Northwind"], "relation": "employer"}],
    }
    (tmp_path / "tune").mkdir()
    (tmp_path / "tune" / "mini.json").write_text(json.dumps(story))
    result = misses.main(["--stories", str(tmp_path), "--part", "tune"])
    out = capsys.readouterr().out
    assert json.loads(out.strip().splitlines()[-1]) == result
    assert result["by_relation"]["employer"]["ok"] == 1
    assert sum(result["by_relation"]["pet"].values()) == 1 and result["by_relation"]["pet"]["ok"] == 0
    assert result["total"]["ok"] + sum(v for k, v in result["total"].items() if k != "ok") == 2
    assert secret not in out and "Northwind" not in out  # no row object, fact object or message text
