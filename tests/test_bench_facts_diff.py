"""The fact listing bench (scripts/bench/facts_diff.py): what it hides, what it reports as changed.

Checks the listing and the comparison on hand-made sets, never the engine's output.
"""

from __future__ import annotations

import json

import pytest

from scripts.bench import facts_diff as fd

LEEDS = ("Alex", "lives-in", "Leeds", True)
YORK = ("Alex", "lives-in", "York", True)
TESCO_PAST = ("Alex", "works-at", "Tesco", False)


def _listing(readable: bool, items: dict[str, list[fd.Fact]]) -> dict[str, object]:
    texts = {k: f"text of {k}: I live in Leeds, not York" for k in items}
    return {"sets": {"s": fd.a_set(readable, items, texts)}}


def test_an_unread_set_keeps_no_text_of_its_messages_or_facts() -> None:
    saved = json.dumps(_listing(False, {"m1": [LEEDS, TESCO_PAST]}))
    for word in ("Leeds", "Tesco", "Alex", "text of"):
        assert word not in saved
    assert "lives-in" in saved and "works-at" in saved  # predicates are counted


def test_a_readable_diff_prints_each_fact_that_came_and_went_under_its_message(
    capsys: pytest.CaptureFixture[str],
) -> None:
    before = _listing(True, {"m1": [LEEDS, YORK], "m2": [TESCO_PAST]})
    after = _listing(True, {"m1": [LEEDS], "m2": [TESCO_PAST], "m3": [YORK]})
    summary = fd.compare(before, after)
    out = capsys.readouterr().out
    assert summary == {"s": {"facts": 3, "added": 1, "removed": 1}}
    assert "m1  text of m1" in out and "    - Alex | lives-in | York" in out
    assert "    + Alex | lives-in | York" in out
    assert "m2" not in out  # unchanged
    assert "works-at | Tesco (old)" not in out


def test_an_unread_diff_reports_counts_per_predicate_only(capsys: pytest.CaptureFixture[str]) -> None:
    before = _listing(False, {"m1": [LEEDS, YORK], "m2": [TESCO_PAST]})
    after = _listing(False, {"m1": [LEEDS], "m2": [TESCO_PAST, ("Alex", "works-at", "Asda", True)]})
    summary = fd.compare(before, after)
    out = capsys.readouterr().out
    assert summary == {"s": {"facts": 3, "added": 1, "removed": 1}}
    assert "lives-in: +0 -1" in out and "works-at: +1 -0" in out
    assert "York" not in out and "Asda" not in out and "text of" not in out


def test_the_same_fact_moved_to_another_message_is_a_change_in_an_unread_set() -> None:
    before = _listing(False, {"m1": [LEEDS]})
    after = _listing(False, {"m2": [LEEDS]})
    assert fd.compare(before, after)["s"] == {"facts": 1, "added": 1, "removed": 1}
