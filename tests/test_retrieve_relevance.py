"""A block holds what is relevant, not whatever fits: the relevance cut-off and the filler rule.

A user tells an assistant their life story in 34 messages; the assistant answers with short
filler ("Glad to hear it. And your partner?"). Every message fits in the default budget, so
before these rules the block for a narrow question held the whole story, filler included. With
the real MiniLM embedder and an embedded Chroma index (built once for the module):
- `dropFiller` (on by default) keeps short assistant turns that share no content word with the
  question out of the block, while the turns that answer the question stay in;
- `relevanceCutoff` keeps out turns whose best search arm scored far below that arm's best
  match, so a narrow question gets a short block;
- the rules are general: a short assistant turn that shares a word with the question, and a
  short user turn, are no filler.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.model.records import Message
from knowledge_engine.model.retrieval import RetrievedItem
from knowledge_engine.retrieve.rank import content_stems, is_filler
from knowledge_engine.retrieve.retriever import Retriever

T0 = datetime(2026, 2, 2, 19, 0, tzinfo=UTC)
STORY: list[tuple[str, str]] = [
    ("user", "Hi! I'm Tom, I grew up in a small village near Norwich."),
    ("assistant", "Nice to meet you, Tom! Tell me more."),
    ("user", "My dad was a carpenter and my mum taught piano at the village school."),
    ("assistant", "That sounds lovely."),
    ("user", "I moved to Bristol for university and studied civil engineering there."),
    ("assistant", "Oh nice, how did you find it?"),
    ("user", "I loved it, although the first year exams nearly broke me."),
    ("assistant", "Glad to hear it. And your partner?"),
    ("user", "My partner Sam and I met at a climbing wall in 2015."),
    ("assistant", "Aww, that's sweet!"),
    ("user", "We got married in 2019 in a barn in Somerset, it rained all day."),
    ("assistant", "Wow, congratulations!"),
    ("user", "My older sister Priya works as a paramedic for the ambulance service in Leeds."),
    ("assistant", "That must be intense."),
    ("user", "She switched to night shifts on the ambulance last spring and says she prefers them."),
    ("assistant", "Good for her!"),
    ("user", "We have a rescue greyhound called Biscuit who sleeps most of the day."),
    ("assistant", "Haha, classic greyhound."),
    ("user", "I work as a bridge inspector for the county council now."),
    ("assistant", "Sounds interesting. What does that involve?"),
    ("user", "Mostly climbing under old stone bridges with a torch and a clipboard."),
    ("assistant", "Ha, I can picture it."),
    ("user", "On weekends I play bass in a pub covers band called The Loose Ends."),
    ("assistant", "Fun! What kind of songs?"),
    ("user", "Mostly nineties britpop, Oasis and Blur and Pulp."),
    ("assistant", "Great choices."),
    ("user", "Sam is learning Spanish because we want to spend a year in Valencia."),
    ("assistant", "Exciting plans!"),
    ("user", "My knee has been sore since I fell off a ladder in March."),
    ("assistant", "Oh no, I hope it heals soon."),
    ("user", "The physio gave me exercises and it is slowly getting better."),
    ("assistant", "Glad it's improving."),
    ("user", "Next month we are visiting my grandparents in Cornwall."),
    ("assistant", "Have a great trip!"),
]
QUESTION = "What does my sister do for work?"
ANSWERS = {12, 14}  # Priya is a paramedic; her night shifts on the ambulance
FILLER = {i for i, (role, _) in enumerate(STORY) if role == "assistant"}


def _config(folder: Path, **retrieval: Any) -> Any:
    return load_config({
        "workspaceTemplate": "{workspaceDir}/ke", "workspaceRoot": str(folder / "agents"),
        "extraction": {"llm": {"enabled": False}},
        "retrieval": {"cacheTtlMs": 0, **retrieval},
    })


@pytest.fixture(scope="module")
def story_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("story")
    engine = KnowledgeEngine(_config(folder))
    ws = engine.workspace("tom", str(folder))
    ws.messages.append_many([
        Message(id=f"m{i}", text=text, role=role, session="s1",
                speaker="Tom" if role == "user" else "assistant", timestamp=T0 + timedelta(minutes=i))
        for i, (role, text) in enumerate(STORY)
    ])
    engine.sync(ws)
    engine.stop(10)
    yield folder


def _block_turns(folder: Path, query: str, **retrieval: Any) -> set[int]:
    """Indexes of the story's turns in the block the hook would inject for `query`."""
    engine = KnowledgeEngine(_config(folder, **retrieval))
    try:
        ws = engine.workspace("tom", str(folder))
        block, report = asyncio.run(Retriever(engine, ws).context(query))
        ids = {int(it["id"][1:]) for it in report["items"] if it.get("kind") == "memory"}
        assert all(f" #m{i}]" in block for i in ids)  # the report names what the block shows
        return ids
    finally:
        engine.stop(10)


def test_narrow_question_gets_the_answer_without_the_filler(story_dir: Path) -> None:
    shown = _block_turns(story_dir, QUESTION)  # defaults: dropFiller on, the cut-off off
    assert shown >= ANSWERS
    assert not shown & FILLER, [STORY[i][1] for i in sorted(shown & FILLER)]
    narrow = _block_turns(story_dir, QUESTION, relevanceCutoff=0.6)
    assert narrow >= ANSWERS and len(narrow) <= 6, [STORY[i][1] for i in sorted(narrow)]
    # without the rules the whole story fits in the budget, filler and all (what a new user saw)
    before = _block_turns(story_dir, QUESTION, dropFiller=False, relevanceCutoff=0)
    assert len(before) > 20 and before & FILLER and before >= ANSWERS


def test_relevance_cutoff_keeps_a_narrow_block_short(story_dir: Path) -> None:
    everything = _block_turns(story_dir, QUESTION, relevanceCutoff=0)
    cut = _block_turns(story_dir, QUESTION, relevanceCutoff=0.6)
    assert cut >= ANSWERS
    assert len(cut) < len(everything) / 2, (len(cut), len(everything))


def _turn(text: str, role: str) -> RetrievedItem:
    return RetrievedItem(id="x", kind="memory", source="memory", text=text, role=role)


def test_filler_is_short_assistant_talk_sharing_no_word_with_the_question() -> None:
    asked = content_stems("How is Priya's new job going?")
    assert is_filler(_turn("Glad to hear it. And your partner?", "assistant"), asked)
    assert is_filler(_turn("Wow, congratulations!", "assistant"), asked)
    # shares a word (Priya's / Priya) with the question
    assert not is_filler(_turn("Oh, how is Priya finding it?", "assistant"), asked)
    # the user's own short turns can be answers ("A paramedic.")
    assert not is_filler(_turn("Sounds great, enjoy!", "user"), asked)
    # a longer assistant turn carries content of its own
    long = "Your sister mentioned the ambulance rota changes when we spoke about Leeds in March."
    assert not is_filler(_turn(long, "assistant"), asked)
    # 'painted' meets 'paint': a crude stem, not a spelling match
    assert not is_filler(_turn("Yes, I painted it!", "assistant"), content_stems("What did she paint?"))
