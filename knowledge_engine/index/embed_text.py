"""The text a stored message is embedded as: the turn alone, or the turn with the turns before it.

Why: an answer often shares no word, nor much meaning, with the question while the turn it answers does
("How was the trip?" - "Amazing, we hiked every day"). Embedded alone, the answer's vector says nothing of
the trip; embedded after the question it answers (`embeddings.contextTurns`), it does. Only the vector
changes: the log keeps the turn as it was, neither Chroma nor pgvector stores a document text, and the
query is embedded as before.

The full sync (one pass over the log in time order) and the live indexer (a stored batch, whose earlier
turns are read back from the log) compose a message's text here, the same way, so both give it the same
content hash and the next sync embeds nothing twice. The hash covers the composed text: changing the
setting, or a previous turn (redacted, deleted), re-embeds the turns it feeds, and only those.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from knowledge_engine.model.records import Message

if TYPE_CHECKING:
    from knowledge_engine.config import EmbeddingsConfig
    from knowledge_engine.store.message_common import MessageLogContract

CONTEXT_CHARS = 200  # of each earlier turn: enough to say what it asks, little of the model's 256 tokens


@dataclass(frozen=True)
class ContextSpec:
    """How a message's embedded text is composed (0 turns and no speaker: the text as stored)."""

    turns: int = 0
    speaker: bool = False
    chars: int = CONTEXT_CHARS

    @classmethod
    def of(cls, config: EmbeddingsConfig) -> ContextSpec:
        return cls(turns=config.context_turns, speaker=config.context_speaker)

    @property
    def plain(self) -> bool:
        return self.turns == 0 and not self.speaker


def _label(msg: Message) -> str:
    return msg.speaker or msg.role


def compose(msg: Message, before: Iterable[Message], spec: ContextSpec) -> str:
    """`msg`'s embedded text, `before` being the turns before it in its session, oldest first."""
    if spec.plain:
        return msg.text
    earlier = list(before)[-spec.turns :] if spec.turns else []
    lines = [f"{_label(m)}: {m.text[: spec.chars].strip()}" for m in earlier]
    lines.append(f"{_label(msg)}: {msg.text}" if spec.speaker else msg.text)
    return "\n".join(lines)


class SessionWindow:
    """Fed messages in log order (time, then arrival), composes each one's text from the turns of its
    session seen before it. A message without a session gets no earlier turns (no session to follow)."""

    def __init__(self, spec: ContextSpec) -> None:
        self.spec = spec
        self._last: dict[str, deque[Message]] = {}

    def push(self, msg: Message) -> None:
        """Remember `msg` as an earlier turn of its session (an empty turn says nothing: skipped)."""
        if self.spec.turns and msg.session is not None and msg.text.strip():
            self._last.setdefault(msg.session, deque(maxlen=self.spec.turns)).append(msg)

    def __call__(self, msg: Message) -> str:
        before = self._last.get(msg.session, ()) if msg.session is not None else ()
        text = compose(msg, before, self.spec)
        self.push(msg)
        return text


def in_log_order(messages: Iterable[Message], spec: ContextSpec) -> Iterable[Message]:
    """The messages in time order when earlier turns matter (a stable sort keeps the log's arrival order
    among equal times); else as given, not even read ahead."""
    if not spec.turns:
        return messages
    given = list(messages)
    bad = [m for m in given if not isinstance(m, Message)]  # the caller counts and skips them
    return [*bad, *sorted((m for m in given if isinstance(m, Message)), key=_when)]


def _when(msg: Message) -> datetime:
    ts = msg.timestamp
    return ts if ts.tzinfo is not None else ts.replace(tzinfo=UTC)


def batch_texts(messages: list[Message], spec: ContextSpec, log: MessageLogContract) -> dict[str, str]:
    """The embedded text of each message of a stored batch, by id; earlier turns are read from `log`.

    Per session: the `turns` (x4, empty turns are skipped) turns before the batch's first, then the
    session from there on until every batch message is seen, through the same window as a full sync."""
    if not spec.turns:
        return {m.id: compose(m, (), spec) for m in messages}
    out: dict[str, str] = {}
    sessions: dict[str, list[Message]] = {}
    for m in messages:
        if m.session is None:
            out[m.id] = compose(m, (), spec)
        else:
            sessions.setdefault(m.session, []).append(m)
    for session, batch in sessions.items():
        out.update(_session_texts(session, batch, spec, log))
    return out


def _session_texts(
    session: str, batch: list[Message], spec: ContextSpec, log: MessageLogContract
) -> dict[str, str]:
    start = min(m.timestamp for m in batch)
    window = SessionWindow(spec)
    for earlier in reversed(list(log.iter(session=session, until=start, order="desc", limit=spec.turns * 4))):
        window.push(earlier)
    wanted = {m.id for m in batch}
    out: dict[str, str] = {}
    for msg in log.iter(session=session, since=start):
        text = window(msg)
        if msg.id in wanted:
            out[msg.id] = text
            wanted.discard(msg.id)
            if not wanted:
                break
    for m in batch:  # gone from the log meanwhile: as given, without earlier turns
        out.setdefault(m.id, compose(m, (), spec))
    return out
