"""Character budgets: whole items, best first, per section and in total."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from knowledge_engine.inject.budget import fit, fit_sections, truncate_text


def test_fit_whole_items_stops_at_first_overflow() -> None:
    items = ["aaaa", "bbbbbb", "c", "dd"]
    assert fit(items, 10, str) == ["aaaa", "bbbbbb"]
    assert fit(items, 9, str) == ["aaaa"]  # "c" would fit but is not squeezed in after an overflow
    assert fit(items, 3, str) == []
    assert fit([], 100, str) == []
    assert fit(items, 13, str, separator_chars=1) == ["aaaa", "bbbbbb", "c"]


@given(st.lists(st.text(max_size=30), max_size=20), st.integers(0, 200))
def test_fit_never_exceeds_and_is_a_prefix(items: list[str], budget: int) -> None:
    kept = fit(items, budget, str)
    assert sum(len(x) for x in kept) <= budget
    assert kept == items[: len(kept)]


def test_truncate_text_at_sentence() -> None:
    text = "First sentence here. Second sentence is longer than that. Third."
    assert truncate_text(text, 1000) == text
    assert truncate_text(text, 36) == "First sentence here."
    assert truncate_text(text, 45) == "First sentence here. Second sentence is"  # no sentence end past half
    cut = truncate_text("word " * 40, 50)
    assert len(cut) <= 50 and not cut.endswith(" ")
    assert truncate_text("x" * 100, 10) == "x" * 10
    assert truncate_text("abc", 0) == ""


def test_fit_sections_priority_and_budgets() -> None:
    sections = {"facts": ["f" * 10, "f" * 10], "memory": ["m" * 30, "m" * 5], "docs": ["d" * 5]}
    out = fit_sections(sections, 60, lambda _n, s: s, section_chars={"facts": 15})
    assert out == {"facts": ["f" * 10], "memory": ["m" * 30, "m" * 5], "docs": ["d" * 5]}
    out = fit_sections(sections, 45, lambda _n, s: s, section_overhead=lambda _n: 5)
    # 25 used by facts; memory's 30 + 5 header no longer fits, the small docs section still does
    assert out == {"facts": ["f" * 10, "f" * 10], "docs": ["d" * 5]}
    assert fit_sections({"a": []}, 10, lambda _n, s: s) == {}
