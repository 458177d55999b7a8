"""The facts bench's row comparison (scripts/bench/facts.py --save-rows / --changed-rows).

It lets a change be checked against the labelled set's held-out split by a count, without anyone
reading a held-out row: the digests cannot be read back, and only dev rows are named.
"""

from __future__ import annotations

from scripts.bench import facts as fb


def test_changed_rows_counts_every_split_and_names_only_dev_rows() -> None:
    a = fb.row_digest([("Ana", "works-at", "Initech")])
    b = fb.row_digest([("Ana", "works-at", "Globex")])
    assert a != b and a == fb.row_digest([("Ana", "works-at", "Initech")])
    one, two = ("x", "p", "1"), ("y", "p", "2")
    assert fb.row_digest([one, two]) == fb.row_digest([two, one])  # the order of the facts is no change
    before = {"dev": {"d1": a, "d2": a}, "heldout": {"h1": a, "h2": a}}
    now = {"dev": {"d1": a, "d2": b}, "heldout": {"h1": b, "h3": a}}
    out = fb.changed_rows(before, now)
    assert out == {"changed_dev": 1, "changed_dev_ids": ["d2"], "changed_heldout": 3}
    assert "h1" not in str(out)
    assert fb.changed_rows(now, now) == {"changed_dev": 0, "changed_dev_ids": [], "changed_heldout": 0}
