"""What a forget does to work not yet in the stores: queued, spilled, journalled or waiting for the LLM.

It lives in ingest, below the queue, the LLM inbox and the batcher that apply it, so that none of them
imports forget (forget.coord drives it in the host process).

Why: a message accepted by the hooks lives in several places before its knowledge is stored (the
ingest journal, the queue, the spill file, the LLM inbox and parked LLM batches). If a forget
leaves it there, the host (or the next start's replay) extracts the forgotten name again. A
`ForgetRequest` says what to forget; a `Redactor` decides, message by message, whether to keep it,
redact the names in it, or drop it; a `Gate` applies that decision to the messages that were
pending when the forget ran, however far through the pipeline they are. Only forgotten content
goes: other messages in the same file or batch stay untouched.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import BaseModel, Field

from knowledge_engine.fsio import write_atomic
from knowledge_engine.ingest.journal import FORGOTTEN_LINE
from knowledge_engine.model.extraction import Extraction
from knowledge_engine.model.records import Message

REDACTED = "[redacted]"
MIN_TERM = 2
Verdict = Literal["keep", "redacted", "drop"]


def term_pattern(terms: Iterable[str]) -> re.Pattern[str] | None:
    """Whole-word, case-insensitive match of any term, longest first (so "Maya Chen" beats "Maya")."""
    uniq = sorted({t.strip() for t in terms if len(t.strip()) >= MIN_TERM}, key=len, reverse=True)
    if not uniq:
        return None
    return re.compile("|".join(rf"(?<!\w){re.escape(t)}(?!\w)" for t in uniq), re.IGNORECASE)


class ForgetRequest(BaseModel):
    """What to forget from pending work, for the host that owns it (it holds names: 0600, short-lived)."""

    id: str
    terms: list[str] = Field(default_factory=list)  # names whose bytes must go
    entity_ids: list[str] = Field(default_factory=list)
    fact_ids: list[str] = Field(default_factory=list)
    message_ids: list[str] = Field(default_factory=list)  # delete these messages
    session: str | None = None  # delete this session's messages
    delete_messages: bool = False  # delete (not redact) messages naming the terms


class Redactor:
    """Decides the fate of one pending message under a forget request."""

    def __init__(self, req: ForgetRequest) -> None:
        self.req = req
        self.pattern = term_pattern(req.terms)
        self.speakers = {t.strip().lower() for t in req.terms if t.strip()}
        self.message_ids = set(req.message_ids)
        self.dropped: set[str] = set()  # remembered: a dropped message's copy redacted in place still drops

    def verdict_of(self, msg: dict[str, Any]) -> Verdict:
        """Drop, redact in place (the dict's text), or keep one message given as a dict."""
        verdict = self._verdict(msg)
        if verdict == "drop" and isinstance(msg.get("id"), str):
            self.dropped.add(msg["id"])
        return verdict

    def _verdict(self, msg: dict[str, Any]) -> Verdict:
        raw = msg.get("text")
        text = raw if isinstance(raw, str) else ""
        if (
            msg.get("id") in self.dropped
            or msg.get("id") in self.message_ids
            or (self.req.session is not None and msg.get("session") == self.req.session)
            or str(msg.get("speaker") or "").strip().lower() in self.speakers
            or (self.req.delete_messages and self.pattern is not None and self.pattern.search(text))
        ):
            return "drop"
        if self.pattern is not None and self.pattern.search(text):
            msg["text"] = self.pattern.sub(REDACTED, text)
            return "redacted"
        return "keep"

    def message(self, msg: Message) -> Verdict:
        """The same for a Message object, redacted in place."""
        data: dict[str, Any] = {
            "id": msg.id,
            "text": msg.text,
            "session": msg.session,
            "speaker": msg.speaker,
        }
        verdict = self.verdict_of(data)
        if verdict == "redacted":
            msg.text = str(data["text"])
        elif verdict == "drop":
            msg.text = self.pattern.sub(REDACTED, msg.text) if self.pattern is not None else msg.text
        return verdict

    def names(self, value: str) -> bool:
        return self.pattern is not None and self.pattern.search(value) is not None


class Gate:
    """Held by a host's workspace after it applied a forget: the messages that were pending then are
    redacted (or not stored) and nothing naming the forgotten entity is extracted from them.

    Only those messages: a message that arrives after the forget is new knowledge.
    """

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self.ids: set[str] = set()
        self._lock = threading.Lock()

    def watch(self, message_id: str) -> None:
        with self._lock:
            self.ids.add(message_id)

    def _gated(self, message_id: str) -> bool:
        with self._lock:
            return message_id in self.ids

    def admit(self, message: Message) -> bool:
        """Before the message is logged: False when it must not be stored (it was forgotten)."""
        if not self._gated(message.id):
            return True
        return self.redactor.message(message) != "drop"

    def filter(self, message: Message, extractions: list[Extraction]) -> list[Extraction]:
        """Before an extraction is applied: none from a forgotten message, none naming the entity."""
        if not self._gated(message.id):
            return extractions
        if self.redactor.message(message) == "drop":
            return []
        names = self.redactor.names
        out = []
        for ex in extractions:
            mentions = [m for m in ex.mentions if not names(m.value)]
            facts = [f for f in ex.facts if not (names(f.subject) or names(f.object))]
            out.append(ex.model_copy(update={"mentions": mentions, "facts": facts}))
        return out


# ---------------------------------------------------------------------------------------------- files


class Tally(BaseModel):
    """Counts of what a forget did to pending work (no names, no ids)."""

    examined: int = 0
    redacted: int = 0
    dropped: int = 0
    files_removed: int = 0

    def add(self, other: Tally) -> None:
        self.examined += other.examined
        self.redacted += other.redacted
        self.dropped += other.dropped
        self.files_removed += other.files_removed


def message_line(
    line: bytes,
    redactor: Redactor,
    tally: Tally,
    seen: Callable[[str], None] | None = None,
    keep: bool = False,
) -> bytes | None:
    """One JSONL line of a waiting message after the forget: the same, redacted, or None (dropped).

    With `keep` a dropped message leaves FORGOTTEN_LINE, so the file's line count does not change.
    A line that is not a message (torn by a kill) is kept as it is: it holds no readable name.
    """
    try:
        rec = orjson.loads(line)
    except orjson.JSONDecodeError:
        return line.rstrip(b"\n") + b"\n"
    if not isinstance(rec, dict):
        return line.rstrip(b"\n") + b"\n"
    inner = rec.get("message")
    msg: dict[str, Any] = inner if isinstance(inner, dict) else rec
    if msg.get("forgotten") is True:
        return line.rstrip(b"\n") + b"\n"
    verdict = _judge(msg, redactor, tally, seen)
    if verdict == "drop":
        return FORGOTTEN_LINE if keep else None
    if verdict == "redacted":
        return orjson.dumps(rec) + b"\n"
    return line.rstrip(b"\n") + b"\n"


def _judge(
    msg: dict[str, Any], redactor: Redactor, tally: Tally, seen: Callable[[str], None] | None
) -> Verdict:
    """The redactor's verdict on one waiting message (it redacts in place), counted in `tally`."""
    tally.examined += 1
    if seen is not None and isinstance(msg.get("id"), str):
        seen(msg["id"])
    verdict = redactor.verdict_of(msg)
    tally.dropped += verdict == "drop"
    tally.redacted += verdict == "redacted"
    return verdict


def rewrite_jsonl(
    path: Path, redactor: Redactor, seen: Callable[[str], None] | None = None, keep_lines: bool = False
) -> Tally:
    """Rewrite a file of waiting messages (atomically, 0600) when the forget changes any line."""
    tally = Tally()
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return tally
    lines = raw.splitlines()
    out = [message_line(x, redactor, tally, seen, keep_lines) for x in lines]
    if tally.redacted or tally.dropped:
        write_atomic(path, b"".join(x for x in out if x is not None))
    return tally


def rewrite_batch_file(path: Path, redactor: Redactor, seen: Callable[[str], None] | None = None) -> Tally:
    """A parked LLM batch: only the forgotten messages leave it; the file goes when none is left."""
    tally = Tally()
    try:
        body = orjson.loads(path.read_bytes())
    except FileNotFoundError:
        return tally
    except orjson.JSONDecodeError:
        return tally  # a corrupt batch is the batcher's to set aside; the final scan still checks its bytes
    new = rewrite_batch_body(body, redactor, tally, seen)
    if new is None:
        return tally
    if not new["messages"]:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        tally.files_removed += 1
    else:
        write_atomic(path, orjson.dumps(new))
    return tally


def rewrite_batch_body(
    body: Any, redactor: Redactor, tally: Tally, seen: Callable[[str], None] | None = None
) -> dict[str, Any] | None:
    """A parked batch's body without its forgotten messages (names redacted); None when unchanged.
    Shared by the files and the database rows (`store.postgres.parked`)."""
    msgs = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(body, dict) or not isinstance(msgs, list):
        return None
    before = tally.redacted + tally.dropped
    kept = []
    for m in msgs:
        if not isinstance(m, dict):
            kept.append(m)
            continue
        if _judge(m, redactor, tally, seen) != "drop":
            kept.append(m)
    if tally.redacted + tally.dropped == before:
        return None
    return {**body, "messages": kept}


def batch_files(pending_dir: Path) -> list[Path]:
    """Parked LLM batches, including those set aside as failed."""
    if not pending_dir.is_dir():
        return []
    return sorted([*pending_dir.glob("batch-*.json"), *pending_dir.glob("batch-*.failed")])
