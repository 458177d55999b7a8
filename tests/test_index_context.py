"""A message embedded with the turn it answers (`embeddings.contextTurns`, index/embed_text.py).

Against the real local embedder (MiniLM), a real embedded Chroma and a real SQLite message log: the stored
vector is the embedding of the composed text, a change of the setting (or of an earlier turn) re-embeds
exactly the turns it feeds on the next sync, the live indexer's batches get the same text as a full sync,
and the default leaves every vector and hash as it was before the setting existed.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from knowledge_engine.config import EngineConfig, load_config
from knowledge_engine.index.chroma import ChromaIndex
from knowledge_engine.index.embed_text import ContextSpec, SessionWindow
from knowledge_engine.index.embeddings import LocalEmbedder
from knowledge_engine.index.sync import index_messages, status, sync
from knowledge_engine.model.records import Message
from knowledge_engine.store.messages import MessageLog
from tests.index_samples import T0, sample_messages

ASKED = "How was your trip to Lisbon last month?"
ANSWER = "Amazing, we hiked every single day and ate far too many pastries."
# content hashes of sample_messages(4) with the local model, computed by the code before contextTurns existed
HASHES_BEFORE = {
    "m0": "c2e9b1a2375b69a6:6e8e6a880805c518",
    "m1": "ea0fd00c08c9e5ca:b3dfb9ad8002970a",
    "m2": "9170b865843fdfa2:375ac8900fe5cad4",
    "m3": "e190b97facabfccb:94dfcb5a57ff47ea",
}


@pytest.fixture(scope="module")
def local() -> LocalEmbedder:
    return LocalEmbedder(batch_size=32)


@pytest.fixture()
def make_index(workspace: Path, local: LocalEmbedder) -> Callable[..., ChromaIndex]:
    """Indexes of one agent in one workspace, each with its own embeddings settings."""
    agent = f"agent-{uuid.uuid4().hex[:8]}"

    def factory(**embeddings: Any) -> ChromaIndex:
        cfg = load_config({"embeddings": embeddings}) if embeddings else EngineConfig()
        return ChromaIndex(workspace, agent, cfg, local)

    return factory


def _chat() -> list[Message]:
    """Bob asks, Alice answers without a word of the question, then small talk; one session."""
    turns = [("bob", ASKED), ("alice", ANSWER), ("bob", "Sounds lovely."), ("alice", "It was, thanks!")]
    return [
        Message(
            id=f"c{i}", text=t, role="user", session="s", speaker=who, timestamp=T0 + timedelta(minutes=i)
        )
        for i, (who, t) in enumerate(turns)
    ]


def _score(index: ChromaIndex, text: str, mid: str) -> float:
    hits = index.query_messages(index.embedder.embed_query(text), 10)
    return next(h.score for h in hits if h.id == mid)


def test_with_context_the_answer_is_embedded_after_the_question_it_answers(
    make_index: Callable[..., ChromaIndex],
) -> None:
    alone = make_index()
    sync(alone, [], _chat())
    composed = f"bob: {ASKED}\n{ANSWER}"
    lisbon = "What did Alice do on her trip to Lisbon?"
    assert _score(alone, ANSWER, "c1") > 0.99  # the answer alone, as before
    assert _score(alone, composed, "c1") < 0.95
    before = _score(alone, lisbon, "c1")
    with_context = make_index(contextTurns=1)  # the same agent's collections
    assert sync(with_context, [], _chat()).embedded == 3
    assert _score(with_context, composed, "c1") > 0.99  # now its vector is the composed text's
    assert _score(with_context, lisbon, "c1") > before + 0.1  # the question's topic reaches the answer


def test_the_setting_re_embeds_on_the_next_sync_only_the_turns_it_changes(
    make_index: Callable[..., ChromaIndex],
) -> None:
    msgs = sample_messages(12)  # three sessions of four turns
    assert sync(make_index(), [], msgs).embedded == 12
    on = make_index(contextTurns=1)
    first = sync(on, [], msgs)
    assert (first.embedded, first.unchanged) == (9, 3)  # the first turn of each session has no earlier turn
    assert sync(on, [], msgs).embedded == 0
    assert status(on, [], msgs)["pending"] == 0
    assert sync(make_index(contextTurns=1, contextSpeaker=True), [], msgs).embedded == 12
    assert sync(make_index(), [], msgs).embedded == 12  # back to the default: every turn alone again


def test_default_off_keeps_the_texts_and_hashes_of_before(make_index: Callable[..., ChromaIndex]) -> None:
    index = make_index()
    msgs = sample_messages(4)
    assert sync(index, [], msgs).embedded == 4
    assert index.stored_hashes("messages") == HASHES_BEFORE
    assert _score(index, msgs[3].text, "m3") > 0.99
    assert sync(make_index(contextTurns=0, contextSpeaker=False), [], msgs).embedded == 0


def test_live_batches_get_the_text_a_full_sync_gives(
    make_index: Callable[..., ChromaIndex], tmp_path: Path
) -> None:
    index = make_index(contextTurns=2, contextSpeaker=True)
    msgs = sample_messages(12)
    with MessageLog(tmp_path / "messages.sqlite3") as log:
        log.append_many(msgs)
        with index.lock:  # as the live indexer: stored batches, the second one's earlier turns in the log
            assert index_messages(index, log.get_many(["m0", "m1", "m2", "m3", "m4"]), log) == 5
            assert index_messages(index, log.get_many([m.id for m in reversed(msgs[5:])]), log) == 7
        again = sync(index, [], log.iter())
        assert (again.embedded, again.unchanged) == (0, 12)
        # a redacted turn is re-embedded, and so are the two later turns of its session it was context for
        log.redact(["m0"], "[redacted]")
        assert sync(index, [], log.iter()).embedded == 3


def test_the_window_follows_sessions_clips_earlier_turns_and_skips_empty_ones() -> None:
    at = [T0 + timedelta(minutes=i) for i in range(6)]
    msgs = [
        Message(id="a", text="x" * 300, role="user", session="s", speaker="Ann", timestamp=at[0]),
        Message(id="b", text="other session", role="user", session="t", timestamp=at[1]),
        Message(id="c", text="  ", role="assistant", session="s", timestamp=at[2]),
        Message(id="d", text="reply", role="assistant", session="s", timestamp=at[3]),
        Message(id="e", text="no session", role="user", timestamp=at[4]),
    ]
    window = SessionWindow(ContextSpec(turns=1))
    texts = [window(m) for m in msgs]
    assert texts[0] == "x" * 300 and texts[1] == "other session"
    assert texts[3] == f"Ann: {'x' * 200}\nreply"  # the empty turn is no context; Ann's is clipped
    assert texts[4] == "no session"
    named = SessionWindow(ContextSpec(turns=0, speaker=True))
    assert named(msgs[3]) == "assistant: reply"  # no speaker name: the role
