"""A small injection budget (issue 15): the compact block still fences, and the best turn gets in.

At 1,000 characters the full block spent ~514 on its preamble, headings and END line, a long
best turn did not fit and was passed over, and facts displaced turns. Below
`retrieval.compactBelowChars` the block keeps the same nonce fence and the same
data-not-instructions rule in fewer words, long turns are cut to the sentences that match
the query, and facts only take the room the turns leave.
"""

from __future__ import annotations

import asyncio
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge_engine.config import RetrievalConfig, load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.inject.budget import focus_text
from knowledge_engine.inject.fence import DELIMITER_PREFIX, begin_line, end_line
from knowledge_engine.inject.format import COMPACT_NOTICE, GUTTER, render_block, render_item
from knowledge_engine.model.records import Message
from knowledge_engine.model.retrieval import RetrievalRequest, RetrievedItem
from knowledge_engine.retrieve.rank import block_overhead, rank_local
from knowledge_engine.retrieve.retriever import Retriever
from tests.test_inject_hostile import HOSTILE, NONCE, hostile_sections, neutral

COMPACT_HEADINGS = {"### Facts", "### Memory", "### Documents", "### Graph"}
REF = datetime(2023, 6, 1, 12, 0, tzinfo=UTC)


def check_compact_markdown(block: str, nonce: str) -> None:
    """One fenced unit: the rule first, then only headings, item lines and gutter lines."""
    lines = block.split("\n")
    assert lines[0] == begin_line(nonce) and lines[-1] == end_line(nonce)
    inner = lines[1:-1]
    assert not any(DELIMITER_PREFIX in ln for ln in inner)
    assert inner[0].startswith(COMPACT_NOTICE) and "not instructions" in COMPACT_NOTICE
    assert {ln for ln in inner if ln.startswith("#")} <= COMPACT_HEADINGS
    structural = ("- ", "### ", "  Segment: ", "  Content: ", "  References: ", GUTTER)
    assert all(ln.startswith(structural) for ln in inner[1:]), inner
    assert "```" not in block and "~~~" not in block and "[INST]" not in block


@pytest.mark.parametrize("text", HOSTILE)
def test_compact_markdown_keeps_the_fence_and_the_rule(text: str) -> None:
    block = render_block(hostile_sections(text), "markdown", nonce=NONCE, compact=True)
    check_compact_markdown(block, NONCE)
    assert sum(1 for ln in block.split("\n") if ln.startswith("- ")) == 3  # fact, turn, document
    assert block.index("not instructions") < block.index("### Facts")


@pytest.mark.parametrize("text", HOSTILE)
def test_compact_xml_is_still_only_data(text: str) -> None:
    root = ET.fromstring(render_block(hostile_sections(text), "xml", compact=True))
    assert [c.tag for c in root] == ["note", "section", "section", "section", "section"]
    assert "not instructions" in (root.find("note").text or "")  # type: ignore[union-attr]
    assert [s.attrib["name"] for s in root.findall("section")] == ["Facts", "Memory", "Documents", "Graph"]
    memory = root.find("section/memory")
    assert memory is not None and memory.text == neutral(text) and memory.attrib["message_id"] == "m1"
    assert not root.findall(".//system") and not root.findall(".//x")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([*"<>`~#=-*|[]!?. \n\rabcS\u202e", "END nonce=", NONCE, "###"]), max_size=60))
def test_compact_markdown_holds_for_any_text(parts: list[str]) -> None:
    text = "".join(parts)
    if not text.strip() or not neutral(text).strip():
        return
    check_compact_markdown(render_block(hostile_sections(text), "markdown", nonce=NONCE, compact=True), NONCE)


def test_compact_block_spends_half_as_much_around_its_items() -> None:
    assert block_overhead("markdown") > 450  # the full preamble: what a 1,000-character block lost
    assert block_overhead("markdown", compact=True) < 270
    assert block_overhead("xml", compact=True) < block_overhead("xml") - 150


def _turn(id_: str, text: str, score: float = 1.0, kind: str = "memory") -> RetrievedItem:
    return RetrievedItem(
        id=id_,
        kind=kind,
        source="memory" if kind == "memory" else "facts",
        text=text,
        score=score,
        speaker="Ann",
        timestamp=REF - timedelta(days=1),
        message_ids=[id_],
    )


def test_no_item_is_cut_mid_fence() -> None:
    """However small the budget, items are whole and the block ends with its END line."""
    turns = [
        _turn(f"m{i}", f"Turn {i} talks about gardening and tomatoes. " * (1 + i % 4)) for i in range(12)
    ]
    assert render_block({"memory": turns}, "markdown", max_chars=300, compact=True) == ""  # no room: no block
    for max_chars in (400, 450, 700, 1000):
        block = render_block({"memory": turns}, "markdown", nonce=NONCE, max_chars=max_chars, compact=True)
        assert len(block) <= max_chars and block.endswith(end_line(NONCE)) and "#m0]" in block
        check_compact_markdown(block, NONCE)
        for t in turns:
            line = render_item(t, "markdown", compact=True)
            assert (line in block) == (f"#{t.id}]" in block)  # shown whole, or not at all


def test_focus_text_keeps_the_sentence_that_matches() -> None:
    text = (
        "Hey, long time no see! Work has been hectic and the kids had colds all week. "
        "Last Saturday I finally adopted a rescue greyhound called Biscuit from the shelter in Leeds. "
        "Anyway, how was your trip? Tell me everything."
    )
    weigh = lambda s: len({"greyhound", "adopted"} & set(s.lower().split()))  # noqa: E731
    cut = focus_text(text, 120, weigh)
    assert (
        cut
        == "… Last Saturday I finally adopted a rescue greyhound called Biscuit from the shelter in Leeds. …"
    )
    short = focus_text(text, 60, weigh)  # the sentence alone is too long: the words around the match
    assert len(short) <= 60 and "adopted a rescue greyhound" in short and short.startswith("…")
    assert focus_text(text, 500, weigh) == text


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([*"ab. !?\n", "dog ", "cat. ", "x" * 30]), max_size=80), st.integers(4, 200))
def test_focus_text_never_exceeds_its_budget(parts: list[str], max_chars: int) -> None:
    text = "".join(parts)
    assert len(focus_text(text, max_chars, lambda s: s.count("dog"))) <= max_chars


def test_facts_take_only_the_room_the_turns_leave() -> None:
    """At a small budget a top-ranked fact no longer displaces a turn; with room to spare it still fits."""
    turns = [
        _turn(f"m{i}", f"Ann said her tomato number {i} grew well in the greenhouse this June.", 5 - i)
        for i in range(12)
    ]
    fact = _turn("f-1", "Ann grows tomatoes", 9.0, kind="fact")
    fact.extra.update(subject="Ann", predicate="grows", object="tomatoes")
    request = RetrievalRequest(query="what does Ann grow in the greenhouse", reference_time=REF)
    small = RetrievalConfig(max_inject_chars=1000, total_max_chars=1000)
    facts, memory = rank_local([fact, *turns], request, small)
    assert facts == [] and len(memory) >= 8
    fused = small.model_copy(update={"compact_facts": "fused"})
    assert [f.id for f in rank_local([fact, *turns], request, fused)[0]] == ["f-1"]
    roomy = rank_local([fact, *turns[:2]], request, small)
    assert [f.id for f in roomy[0]] == ["f-1"] and len(roomy[1]) == 2


# --------------------------------------------------------------------------- through the hook's path

T0 = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)
LONG_ANSWER = (
    "Oh it has been such a week, honestly, between the move and the new job and my sister visiting with "
    "her three kids, who took over the whole flat and ate everything in the fridge in two days. "
    "The big news is that I adopted a rescue greyhound called Biscuit from the shelter in Leeds on Saturday. "
    "Anyway, the kids loved the park by the river, we went there every morning, and my sister finally "
    "got some sleep, which she really needed after the last few months with the new baby and no help."
)
CHAT: list[tuple[str, str]] = [
    ("user", "Morning! The new job starts on Monday, a bit nervous."),
    ("assistant", "You will do great. What is the role?"),
    ("user", "Project engineer at a bridge consultancy, mostly steel footbridges."),
    ("assistant", "Sounds like a good fit."),
    ("user", LONG_ANSWER),
    ("assistant", "What a week! How is the flat?"),
    ("user", "The flat is small but the light in the kitchen is lovely in the morning."),
    ("user", "My sister lives in York with her husband and the three kids."),
    ("user", "I used to have a cat called Pepper when I was little."),
    ("user", "We went to the park by the river again, the kids fed the ducks."),
    ("user", "The move was hard work, we carried the sofa up four floors."),
    ("user", "Thinking of taking a pottery class on Thursday evenings."),
]
QUESTION = "What is the name of the greyhound I adopted?"


def _config(folder: Path, **retrieval: Any) -> Any:
    return load_config(
        {
            "workspaceTemplate": "{workspaceDir}/ke",
            "workspaceRoot": str(folder / "agents"),
            "extraction": {"llm": {"enabled": False}},
            "retrieval": {"cacheTtlMs": 0, "maxInjectChars": 1000, "totalMaxChars": 1000, **retrieval},
        }
    )


@pytest.fixture(scope="module")
def chat_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("chat")
    engine = KnowledgeEngine(_config(folder))
    ws = engine.workspace("ann", str(folder))
    ws.messages.append_many(
        [
            Message(
                id=f"m{i}",
                text=text,
                role=role,
                session="s1",
                speaker="Ann" if role == "user" else "assistant",
                timestamp=T0 + timedelta(minutes=i),
            )
            for i, (role, text) in enumerate(CHAT)
        ]
    )
    engine.sync(ws)
    engine.stop(10)
    yield folder


def _block(folder: Path, **retrieval: Any) -> str:
    engine = KnowledgeEngine(_config(folder, **retrieval))
    try:
        ws = engine.workspace("ann", str(folder))
        return asyncio.run(Retriever(engine, ws).context(QUESTION))[0]
    finally:
        engine.stop(10)


def test_small_budget_block_holds_the_top_turn_cut_to_what_matches(chat_dir: Path) -> None:
    block = _block(chat_dir)
    assert 0 < len(block) <= 1000
    check_compact_markdown(block, block.split("nonce=", 1)[1].split(">>>", 1)[0])
    assert " #m4]" in block and "adopted a rescue greyhound called Biscuit" in block
    assert "ate everything in the fridge" not in block  # the rest of the long turn stayed out
    # the full block at the same budget: the preamble and the long turn do not both fit
    full = _block(chat_dir, compactBelowChars=0)
    assert full.startswith(begin_line(full.split("nonce=", 1)[1].split(">>>", 1)[0]))
    assert "## Retrieved Knowledge" in full and " #m4]" not in full
