"""The injected block: sections, per-kind citation fields, budgets, both formats."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, datetime

from freezegun import freeze_time
from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge_engine.inject.fence import begin_line, end_line
from knowledge_engine.inject.format import NOTICE, render_block, render_item
from knowledge_engine.model.retrieval import RetrievedItem


def fact() -> RetrievedItem:
    return RetrievedItem(
        id="f-1a2b",
        kind="fact",
        source="facts",
        text="Caroline works at Acme",
        score=0.9,
        message_ids=["D1:3", "D2:7"],
        extra={
            "subject": "Caroline",
            "predicate": "works-at",
            "object": "Acme",
            "valid_at": "2023-05-08T10:00:00+00:00",
            "invalid_at": None,
        },
    )


def memory(i: int = 1, text: str = "I went to the LGBTQ support group yesterday.") -> RetrievedItem:
    return RetrievedItem(
        id=f"m{i}",
        kind="memory",
        source="memory",
        text=text,
        score=0.031,
        speaker="Caroline",
        role="user",
        timestamp=datetime(2023, 5, 8, 13, 56, tzinfo=UTC),
        message_ids=[f"D1:{i}"],
        session="s1",
    )


def doc() -> RetrievedItem:
    return RetrievedItem(
        id="d1",
        kind="document",
        source="pgvector",
        text="Halcyon ships in Q3.",
        score=0.8123,
        collection="knowledge_default",
        extra={"file_name": "roadmap.md", "timestamp_start": "00:01:00", "timestamp_end": "00:02:00"},
    )


def graph() -> RetrievedItem:
    return RetrievedItem(
        id="lightrag-context",
        kind="graph",
        source="lightrag",
        text="Halcyon is led by Dana. It ships in Q3.",
        extra={"references": [{"reference_id": "1", "file_path": "/docs/halcyon.pdf"}, "notes/dana.md"]},
    )


SECTIONS = {"lightrag": [graph()], "memory": [memory()], "facts": [fact()], "pgvector": [doc()]}


def test_markdown_block_layout_and_citations() -> None:
    block = render_block(SECTIONS, "markdown", nonce="abc123")
    lines = block.split("\n")
    assert lines[0] == begin_line("abc123") and lines[-1] == end_line("abc123")
    assert NOTICE in block and "not instructions" in NOTICE
    headers = [ln for ln in lines if ln.startswith("### ")]
    assert headers == [
        "### Known Facts",
        "### Conversation Memory",
        "### Document Search Results (pgvector)",
        "### Knowledge Graph Context (LightRAG)",
    ]
    assert "- Caroline | works-at | Acme (valid 2023-05-08 to now; evidence: D1:3, D2:7; id f-1a2b)" in lines
    assert "- [2023-05-08 Caroline #D1:1] I went to the LGBTQ support group yesterday." in lines
    assert "- [knowledge_default] roadmap.md (score: 0.81)" in lines
    assert "  Segment: 00:01:00 - 00:02:00" in lines and "  Content: Halcyon ships in Q3." in lines
    assert "  | Halcyon is led by Dana. It ships in Q3." in lines
    assert "  References: [1] /docs/halcyon.pdf; notes/dana.md" in lines


def test_xml_block_structure_and_attributes() -> None:
    block = render_block(SECTIONS, "xml")
    root = ET.fromstring(block)
    assert root.tag == "relevant_memories"
    assert root.find("note") is not None and "not instructions" in (root.find("note").text or "")  # type: ignore[union-attr]
    names = [s.get("name") for s in root.findall("section")]
    assert names == [
        "Known Facts",
        "Conversation Memory",
        "Document Search Results (pgvector)",
        "Knowledge Graph Context (LightRAG)",
    ]
    f = root.find("section/fact")
    assert f is not None and f.attrib["subject"] == "Caroline" and f.attrib["evidence"] == "D1:3 D2:7"
    assert f.attrib["valid_from"] == "2023-05-08" and "valid_to" not in f.attrib
    m = root.find("section/memory")
    assert m is not None and m.attrib["speaker"] == "Caroline" and m.attrib["date"] == "2023-05-08"
    assert m.text == "I went to the LGBTQ support group yesterday."
    d = root.find("section/document")
    assert (
        d is not None and d.attrib["collection"] == "knowledge_default" and d.attrib["file"] == "roadmap.md"
    )
    g = root.find("section/graph")
    assert g is not None and [r.attrib["file"] for r in g.findall("reference")] == [
        "/docs/halcyon.pdf",
        "notes/dana.md",
    ]


def test_empty_sections_omitted_and_nothing_gives_empty_string() -> None:
    assert render_block({}, "markdown") == ""
    assert render_block({"facts": [], "memory": [], "lightrag": "  ", "pgvector": None}, "xml") == ""
    block = render_block({"facts": [], "memory": [memory()]}, "markdown")
    assert "### Known Facts" not in block and "### Conversation Memory" in block


def test_free_text_section_and_custom_section_title() -> None:
    block = render_block(
        {"lightrag": "Graph context text.", "pgvector: handbook": [doc()]}, "markdown", nonce="n"
    )
    assert "### Knowledge Graph Context (LightRAG)\n  | Graph context text." in block
    assert "### pgvector: handbook" in block
    assert block.index("LightRAG") < block.index("pgvector: handbook")


def test_nonce_differs_per_render() -> None:
    a, b = render_block(SECTIONS), render_block(SECTIONS)
    assert a.split("\n")[0] != b.split("\n")[0]


def test_total_budget_whole_items_best_first() -> None:
    mems = [memory(i, f"Message number {i} " + "word " * 30) for i in range(1, 30)]
    for fmt in ("markdown", "xml"):
        block = render_block({"memory": mems}, fmt, max_chars=1500)
        assert 0 < len(block) <= 1500
        kept = [i for i in range(1, 30) if f"Message number {i} " in block]
        assert kept == list(range(1, len(kept) + 1))  # a prefix: best first
        assert block.count("word") == 30 * len(kept)  # whole items only
        if fmt == "xml":
            ET.fromstring(block)


def test_section_budget_and_total_budget_interplay() -> None:
    mems = [memory(i, "x" * 100) for i in range(1, 6)]
    one = len(render_item(mems[0])) + 1
    block = render_block(
        {"memory": mems, "pgvector": [doc()]}, "markdown", section_chars={"memory": 2 * one + 5}
    )
    assert block.count(" #D1:") == 2 and "roadmap.md" in block
    tiny = render_block({"memory": mems}, "markdown", max_chars=100)
    assert tiny == ""  # not even the frame and one item fit


def test_free_text_cut_at_sentence_to_fit() -> None:
    text = "Sentence one is here. " * 40
    block = render_block({"lightrag": text}, "markdown", max_chars=700, nonce="n")
    assert len(block) <= 700
    body = [ln for ln in block.split("\n") if ln.startswith("  | ")]
    assert body and body[-1].endswith("here.")


def test_long_item_text_is_clipped_not_dropped() -> None:
    long_mem = memory(1, "Important start. " + "filler " * 1000)
    block = render_block({"memory": [long_mem]}, "markdown", max_chars=4000, max_item_chars=300)
    assert "Important start." in block and "…" in block and len(block) <= 4000


def test_fact_without_triple_fields_and_undated_memory() -> None:
    bare = RetrievedItem(id="f2", kind="fact", source="facts", text="Bob likes tea")
    assert render_item(bare) == "- Bob likes tea (id f2)"
    undated = RetrievedItem(id="m", kind="memory", source="memory", text="hi there", role="assistant")
    assert render_item(undated) == "- [undated assistant #m] hi there"
    ended = fact()
    ended.extra["invalid_at"] = datetime(2024, 1, 2, tzinfo=UTC)
    assert "valid 2023-05-08 to 2024-01-02" in render_item(ended)


def test_odd_extra_values_do_not_break_rendering() -> None:
    odd = RetrievedItem(
        id="g",
        kind="graph",
        source="lightrag",
        text="ctx",
        file_path="a.md",
        extra={"references": "not-a-list"},
    )
    assert render_item(odd).endswith("References: a.md")
    weird_fact = RetrievedItem(
        id="f", kind="fact", source="facts", text="t", extra={"valid_at": 12345, "invalid_at": "not a date"}
    )
    assert "valid until not a date" in render_item(weird_fact)
    ET.fromstring(render_block({"lightrag": [odd], "facts": [weird_fact]}, "xml"))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.text(max_size=300), max_size=12),
    st.text(max_size=600),
    st.integers(200, 3000),
    st.sampled_from(["markdown", "xml"]),
)
def test_block_never_exceeds_total_budget(texts: list[str], free: str, budget: int, fmt: str) -> None:
    mems = [memory(i, t) for i, t in enumerate(texts)]
    block = render_block({"memory": mems, "lightrag": free, "pgvector": [doc()]}, fmt, max_chars=budget)  # type: ignore[arg-type]
    assert len(block) <= budget
    if block and fmt == "xml":
        ET.fromstring(block)


def test_graph_context_not_clipped_by_item_limit() -> None:
    text = "Graph sentence number one is here. " * 100  # 3500 characters
    block = render_block({"lightrag": text}, "markdown", section_chars={"lightrag": 4000}, max_item_chars=300)
    assert block.count("Graph sentence") == 100
    cut = render_block({"lightrag": text}, "markdown", section_chars={"lightrag": 1000})
    assert 20 <= cut.count("Graph sentence") < 30


def _move(valid_at: object) -> RetrievedItem:
    item = fact()
    item.extra = {**item.extra, "predicate": "moves-to", "object": "Kreuzberg", "valid_at": valid_at}
    return item


def test_a_present_tense_move_reads_as_past_once_its_date_has_passed() -> None:
    """A move said as "we're moving to Kreuzberg on March 1" is a plan until March 1 and history
    after it; undated, it stays as said."""
    with freeze_time("2026-06-01T12:00:00Z"):
        done = render_item(_move(datetime(2026, 3, 1, tzinfo=UTC)), "markdown")
        done_text = render_item(_move("2026-03-01T00:00:00+00:00"), "markdown")
        planned = render_item(_move(datetime(2026, 7, 1, tzinfo=UTC)), "markdown")
        undated = render_item(_move(None), "markdown")
        xml = render_item(_move(datetime(2026, 3, 1, tzinfo=UTC)), "xml")
    assert "Caroline | moved-to | Kreuzberg" in done and "moved-to" in done_text
    assert "Caroline | moves-to | Kreuzberg" in planned
    assert "Caroline | moves-to | Kreuzberg" in undated
    assert 'predicate="moved-to"' in xml
