"""The second hop of conversation memory: turns that mention what the question or its best hits name.

A multi-hop question ("What did Caroline do after the parade?") is answered by turns that share no
word with it but name the same thing as a turn that does ("... the Pride parade", then "... Pride
was amazing"). The hop names come from the query (entities other than the speakers, who have their
own boost and arm) and from the best memory hits: capitalised spans that do not start a sentence,
or (`hopResolve`) only names the workspace's entity store knows. The turns mentioning them are found
with the message log's keyword index (one BM25 query, never a scan of the log), and form one more arm
of the memory fusion, weighted by `retrieval.hopWeight` (0 = off: measured on LoCoMo, it did not carry;
docs/benchmarks.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from knowledge_engine.model.records import Message
from knowledge_engine.model.retrieval import RetrievedItem
from knowledge_engine.store.keyword import QueryBuilder

if TYPE_CHECKING:
    from knowledge_engine.store.workspace import Workspace

_CAPS = re.compile(r"\b[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)*")
_KEYWORDS = QueryBuilder()
_WORD = re.compile(r"[^\W\d_][\w'-]*")
# Entity kinds that name a thing a later turn can mention again; dates, amounts and addresses are
# matched by other means (the temporal boost) or are too rare in chat to hop through.
HOP_TYPES = frozenset({"person", "organization", "location", "product", "concept", "unknown"})
MAX_NAMES = 8  # candidate names read from the hits (a long turn names many things)
MAX_ENTITIES = 6  # names the hop query searches for (one BM25 query, OR-ed words)


@dataclass(frozen=True)
class HopPlan:
    """What the hop searches for: the names, in the order found (query first, then the best hits)."""

    names: tuple[str, ...]

    @property
    def empty(self) -> bool:
        return not self.names

    def query(self) -> str:
        return " ".join(self.names)


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def _spans(text: str) -> list[str]:
    """Capitalised spans of a text that do not start a sentence (there a capital says nothing)."""
    out = []
    for m in _CAPS.finditer(text):
        before = text[: m.start()].rstrip()
        if before and before[-1] not in ".!?\"'(:":
            out.append(m.group(0))
    return out


def _candidates(texts: Iterable[str], sentence_starts: bool) -> list[str]:
    """Capitalised spans of the texts, first seen first, at most MAX_NAMES."""
    seen: dict[str, None] = {}
    for text in texts:
        for span in _CAPS.findall(text) if sentence_starts else _spans(text):
            seen.setdefault(span, None)
            if len(seen) >= MAX_NAMES:
                return list(seen)
    return list(seen)


def _speakerish(words: set[str], speaker_words: Mapping[str, object]) -> bool:
    """A speaker's name or a short form of one ("Mel" for Melanie): the speaker signals cover those."""
    return any(
        w in speaker_words or any(s.startswith(w) for s in speaker_words if len(w) >= 3) for w in words
    )


def _usable(value: str, speaker_words: Mapping[str, object], skip: set[str]) -> bool:
    """A name worth hopping through: it has a searchable word, none a speaker's or one the query searched."""
    words = {w for w in _words(value) if _KEYWORDS.build(w).terms}
    return bool(words) and not (words & skip) and not _speakerish(words, speaker_words)


def _names(ws: Workspace, spans: list[str], resolve: bool) -> list[str]:
    """The spans as names: the store's entities they resolve to (of a hop kind), or the spans themselves."""
    if not resolve:
        return spans
    return [ent.value for ent in ws.entities.search(spans) if ent.type in HOP_TYPES]


def plan_hop(
    ws: Workspace,
    query: str,
    hits: Sequence[RetrievedItem],
    anchors: int,
    source: str,
    speaker_words: Mapping[str, object],
    resolve: bool = True,
) -> HopPlan:
    """The names to hop through. `source`: "query" (names the query holds), "hits" (names the `anchors`
    best hits hold that the query does not), or "both". `resolve`: only names the entity store knows
    (else every capitalised span that does not start a sentence)."""
    names: dict[str, None] = {}
    query_words = _words(query)
    if source in ("query", "both"):
        for name in _names(ws, _candidates([query], resolve), resolve):
            if _usable(name, speaker_words, set()):
                names.setdefault(name, None)
    if source in ("hits", "both") and anchors > 0:
        for name in _names(ws, _candidates((i.text for i in hits[:anchors]), resolve), resolve):
            if _usable(name, speaker_words, query_words):
                names.setdefault(name, None)
    return HopPlan(tuple(list(names)[:MAX_ENTITIES]))


def hop_arm(ws: Workspace, plan: HopPlan, limit: int) -> list[tuple[Message, float]]:
    """The turns that mention the plan's entities, by BM25 over their names (the log's keyword index)."""
    if plan.empty:
        return []
    return ws.messages.search(plan.query(), limit=limit)
