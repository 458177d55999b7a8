"""Turn the host's hook payloads into conversation messages, each stored once.

In OpenClaw 2026.9 a turn's text reaches plugins through several hooks: the user's side through
`message_received` (channels and webchat, not `openclaw agent` turns) and `agent_end` (the session
history); the assistant's side through `llm_output`, `agent_end`, `message_sending` (webchat, A2A) and
`message_sent` (outbound channel delivery only). No single hook sees every turn, so the plugin listens
to all of them and this module gives each message one identity:

- a host-stable id where the payload has one (`messageId`, `idempotencyKey`, `responseId`), else
  `<sessionKey>:<role>:<timestamp>`; the store ignores an id it already holds, so a history replayed by
  every `agent_end` (and again after a restart) is stored once;
- a short-lived memory of recent (session, role, text) so the same text arriving by two hooks with two
  different ids (`message_received`'s `messageId` and the history's `idempotencyKey`) is stored once.

The memory holds digests, never text, and is never logged.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Final

from knowledge_engine.host.types import parse_timestamp, payload_field, text_of
from knowledge_engine.model.records import Message, utcnow

#: Roles of history messages worth remembering (tool results and system notes are not conversation).
CONVERSATION_ROLES: Final = frozenset({"user", "assistant"})
#: How many trailing history messages one `agent_end` may contribute (older ones were seen by earlier turns).
MAX_HISTORY_TAIL: Final = 200

_SPACE = re.compile(r"\s+")


def session_key_of(event: Any, ctx: Any) -> str | None:
    """The conversation's session key from the event or, failing that, the context."""
    key = payload_field(event, "session_key", "sessionKey") or payload_field(ctx, "session_key", "sessionKey")
    return str(key) if key else None


class RecentTexts:
    """Which hooks recently delivered a (session, role, text); bounded, thread-safe.

    A text is a duplicate when a *different* hook already delivered it within the TTL (the same
    turn seen twice). The same hook delivering it again is a new message: a user who says "yes"
    twice said it twice.
    """

    def __init__(self, ttl_s: float = 900.0, max_items: int = 20_000) -> None:
        self.ttl_s = ttl_s
        self.max_items = max_items
        self._seen: OrderedDict[bytes, tuple[float, frozenset[str]]] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def _key(session: str | None, role: str, text: str) -> bytes:
        norm = _SPACE.sub(" ", text).strip().casefold()
        raw = f"{session}\x1f{role}\x1f{norm}".encode("utf-8", "surrogatepass")  # lone surrogates happen
        return hashlib.blake2b(raw, digest_size=16).digest()

    def is_new(self, session: str | None, role: str, text: str, source: str) -> bool:
        """False when another hook (`source`) delivered this text for the session and role recently."""
        key = self._key(session, role, text)
        now = time.monotonic()
        with self._lock:
            self._expire(now)
            entry = self._seen.pop(key, None)
            if entry is not None and source not in entry[1]:
                self._seen[key] = (entry[0], entry[1] | {source})
                return False
            self._seen[key] = (now, frozenset({source}))
            while len(self._seen) > self.max_items:
                self._seen.popitem(last=False)
            return True

    def _expire(self, now: float) -> None:
        while self._seen:
            at = next(iter(self._seen.values()))[0]
            if now - at <= self.ttl_s:
                return
            self._seen.popitem(last=False)


class SeenIds:
    """Message ids already submitted by this process (bounded), so history is walked back only to them."""

    def __init__(self, max_items: int = 50_000) -> None:
        self.max_items = max_items
        self._ids: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def __contains__(self, message_id: object) -> bool:
        with self._lock:
            return message_id in self._ids

    def add(self, message_id: str) -> None:
        with self._lock:
            self._ids[message_id] = None
            self._ids.move_to_end(message_id)
            while len(self._ids) > self.max_items:
                self._ids.popitem(last=False)


def _speaker(meta: Any, role: str) -> str | None:
    if not isinstance(meta, Mapping):
        meta = {}
    speaker = payload_field(meta, "senderName", "sender_name", "speaker")
    return str(speaker) if speaker else ("assistant" if role == "assistant" else None)


def inbound_message(event: Any, ctx: Any) -> Message | None:
    """`message_received`: the user's (or a peer agent's) message, None when it has no text."""
    text = text_of(payload_field(event, "content"))
    if not text:
        return None
    mid = (
        payload_field(event, "message_id", "messageId")
        or payload_field(ctx, "message_id", "messageId")
        or f"msg-{uuid.uuid4().hex}"
    )
    return Message(
        id=str(mid),
        text=text,
        role="user",
        session=session_key_of(event, ctx),
        speaker=_speaker(payload_field(event, "metadata"), "user"),
        timestamp=parse_timestamp(payload_field(event, "timestamp")) or utcnow(),
    )


def outbound_message(event: Any, ctx: Any) -> Message | None:
    """`message_sending` / `message_sent`: the reply as delivered; None for a failed delivery or no text."""
    if payload_field(event, "success") is False:
        return None
    text = text_of(payload_field(event, "content"))
    if not text:
        return None
    mid = payload_field(event, "message_id", "messageId") or f"out-{uuid.uuid4().hex}"
    return Message(
        id=str(mid),
        text=text,
        role="assistant",
        session=session_key_of(event, ctx),
        speaker=_speaker(payload_field(event, "metadata"), "assistant"),  # a named sender keeps its name
        # the 2026.9 gateway's message_sent has no timestamp (it is "now"); replays that send one keep it
        timestamp=parse_timestamp(payload_field(event, "timestamp")) or utcnow(),
    )


def history_id(item: Mapping[str, Any], session: str | None, role: str) -> str | None:
    """A history message's stable id: the host's own key, else session, role and timestamp."""
    for key in ("idempotencyKey", "responseId", "id", "messageId"):
        value = item.get(key)
        if isinstance(value, str) and value:
            return value
    ts = item.get("timestamp")
    if isinstance(ts, int | float) and not isinstance(ts, bool):
        return f"{session or 'session'}:{role}:{int(ts)}"
    return None


def inbound_id(history_message_id: str) -> str | None:
    """The id `message_received` gave the same user message: webchat's `chat.send` idempotency key
    `K` becomes `K:user` in the history."""
    return history_message_id[: -len(":user")] if history_message_id.endswith(":user") else None


def _history_message(item: Any, session: str | None) -> Message | None:
    if not isinstance(item, Mapping):
        return None
    role = item.get("role")
    if role not in CONVERSATION_ROLES:
        return None
    if role == "assistant" and item.get("stopReason") in ("error", "aborted"):
        return None
    text = text_of(item.get("content"))
    mid = history_id(item, session, role)
    if not text or mid is None:
        return None
    return Message(
        id=mid,
        text=text,
        role=role,
        session=session,
        speaker="assistant" if role == "assistant" else None,
        timestamp=parse_timestamp(item.get("timestamp")) or utcnow(),
    )


def history_messages(items: Iterable[Any], session: str | None, seen: SeenIds) -> list[Message]:
    """The trailing history messages not yet seen by this process, oldest first.

    Walks back from the newest message and stops at the first one already submitted: everything
    before it came in with an earlier turn's `agent_end`.
    """
    tail: list[Message] = []
    for item in _reversed_tail(items):
        msg = _history_message(item, session)
        if msg is None:
            continue
        if msg.id in seen:
            break
        tail.append(msg)
    tail.reverse()
    return tail


def _reversed_tail(items: Iterable[Any]) -> Iterator[Any]:
    seq = list(items) if not isinstance(items, list) else items
    return reversed(seq[-MAX_HISTORY_TAIL:])


def llm_output_message(event: Any, ctx: Any) -> Message | None:
    """`llm_output`: the model's reply text, with the id its history entry will carry."""
    raw = payload_field(event, "assistant_texts", "assistantTexts") or []
    texts = [t for t in (text_of(x) for x in raw) if t]
    last = payload_field(event, "last_assistant", "lastAssistant")
    if not texts and isinstance(last, Mapping):
        texts = [text_of(last.get("content"))]
    text = "\n\n".join(t for t in texts if t)
    if not text:
        return None
    session = session_key_of(event, ctx)
    mid = history_id(last, session, "assistant") if isinstance(last, Mapping) else None
    run = payload_field(event, "run_id", "runId") or payload_field(ctx, "run_id", "runId")
    ts = parse_timestamp(last.get("timestamp")) if isinstance(last, Mapping) else None
    return Message(
        id=mid or f"{run or uuid.uuid4().hex}:assistant",
        text=text,
        role="assistant",
        session=session,
        speaker="assistant",
        timestamp=ts or utcnow(),
    )
