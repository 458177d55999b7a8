"""Write-ahead journal of the messages the hooks accepted, per workspace.

Why: `message_received` returns before extraction, so without a journal a `kill -9` loses
what was still queued. Each accepted message is appended (one `write`, no fsync: it survives
the process, not the machine) before it is queued. A store flush that starts when every
journalled message has been applied checkpoints the journal: the lines it covers are
dropped. On the next start whatever is left is replayed; applying a message twice is
idempotent, so replay never duplicates.

One process owns a workspace's journal: `claim()` takes an exclusive lock on `.ingest.lock`
(released by the kernel when the process dies). A second host on the same workspace runs without
a journal rather than rewriting the file under the first one's open descriptor.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import orjson

from knowledge_engine.fsio import write_atomic
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters

log = logging.getLogger("knowledge_engine.ingest.queue")

JOURNAL_NAME = "ingest-journal.jsonl"
LOCK_NAME = ".ingest.lock"
# the line a forget leaves for a message it removed (the owner counts lines); skipped on replay
FORGOTTEN_LINE = b'{"forgotten":true}\n'


def encode_message(msg: Message) -> bytes:
    """One JSON line; lone surrogates (invalid UTF-8) become U+FFFD, as in the message log."""
    try:
        return orjson.dumps(msg.model_dump(mode="json")) + b"\n"
    except TypeError:
        text = msg.text.encode("utf-8", "replace").decode("utf-8")
        speaker = msg.speaker.encode("utf-8", "replace").decode("utf-8") if msg.speaker else msg.speaker
        clean = msg.model_copy(update={"text": text, "speaker": speaker})
        return orjson.dumps(clean.model_dump(mode="json"), default=str) + b"\n"


def decode_message(line: bytes) -> Message | None:
    """The message of one line, or None for a line torn by a kill or otherwise unreadable."""
    try:
        return Message.model_validate(orjson.loads(line))
    except Exception:
        return None


@dataclass
class _State:
    fd: int
    lines: int = 0  # lines in the file
    pending: int = 0  # journalled messages not yet applied


class IngestJournal:
    """Per-folder append-only journal with checkpoints taken at store flushes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._states: dict[Path, _State] = {}
        self._claims: dict[Path, int | None] = {}  # folder -> lock fd, None if another process owns it

    def claim(self, folder: Path) -> bool:
        """Own this folder's journal (and the work parked beside it) unless another live process does."""
        with self._lock:
            if folder not in self._claims:
                try:
                    fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
                except OSError as exc:  # a read-only folder: no journal either way
                    counters.inc("ingest.journal_errors")
                    log.error("ingest journal lock not writable (%s)", type(exc).__name__)
                    self._claims[folder] = None
                    return False
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    self._claims[folder] = fd
                except OSError:
                    os.close(fd)
                    self._claims[folder] = None
            return self._claims[folder] is not None

    def _state(self, folder: Path) -> _State:
        st = self._states.get(folder)
        if st is None:
            fd = os.open(folder / JOURNAL_NAME, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            st = self._states[folder] = _State(fd)
        return st

    def recover(self, folder: Path) -> list[Message]:
        """Messages an earlier process accepted but did not durably apply (they stay journalled)."""
        return self.recover_with(folder, []) or []

    def recover_with(self, folder: Path, parked: list[Message]) -> list[Message] | None:
        """The journal's messages plus `parked` (what an earlier process left in its spill files), each
        once, rewritten as this process's journal with all of them pending; None when this process does
        not own the journal or already opened it (then nothing was read or rewritten).

        Why one set: every line replayed is counted once when it is applied, so the pending count is exact
        (no checkpoint drops a journal line whose message is still waiting), and a restart that is killed
        again leaves the same set, never a growing copy of it."""
        path = folder / JOURNAL_NAME
        if not self.claim(folder):
            return None
        with self._lock:
            if folder in self._states:
                return None
            lines = path.read_bytes().splitlines() if path.exists() else []
            msgs = list(parked)
            for raw in lines:
                if raw + b"\n" == FORGOTTEN_LINE:
                    continue
                msg = decode_message(raw)
                if msg is None:
                    counters.inc("ingest.journal_bad_line")  # a line torn by the kill itself
                else:
                    msgs.append(msg)
            encoded = list(dict.fromkeys(encode_message(m) for m in msgs))  # each message once, in order
            if len(encoded) < len(msgs):
                counters.inc("ingest.replay_duplicates", len(msgs) - len(encoded))
            st = self._state(folder)
            self._rewrite(folder, st, encoded)
            st.pending = len(encoded)
        if encoded:
            log.warning("replaying %d messages accepted before an unclean stop", len(encoded))
        return [m for m in (decode_message(e) for e in encoded) if m is not None]

    def append(self, folder: Path, msg: Message) -> bool:
        if not self.claim(folder):
            return False  # another live process owns this journal
        try:
            line = encode_message(msg)
            with self._lock:
                st = self._state(folder)
                os.write(st.fd, line)
                st.lines += 1
                st.pending += 1
            return True
        except (OSError, TypeError) as exc:
            counters.inc("ingest.journal_errors")
            log.error(
                "ingest journal not writable (%s); the message is queued without it", type(exc).__name__
            )
            return False

    def applied(self, folder: Path, n: int) -> None:
        with self._lock:
            st = self._states.get(folder)
            if st is not None:
                st.pending = max(0, st.pending - n)

    def hold(self, folder: Path, n: int) -> None:
        """Count n processed messages pending again: their lines stay until `applied` says they are
        durable (messages the message log could not take yet: ingest/unlogged.py)."""
        with self._lock:
            st = self._states.get(folder)
            if st is not None:
                st.pending += n

    def checkpoint(self, folder: Path) -> tuple[int, int] | None:
        """Taken just before a store flush: (lines, pending) at that moment."""
        with self._lock:
            st = self._states.get(folder)
            return (st.lines, st.pending) if st is not None else None

    def release(self, folder: Path, token: tuple[int, int] | None) -> None:
        """After a successful flush: drop the lines that flush made durable."""
        if token is None or token[1] != 0 or token[0] == 0:
            return
        covered = token[0]
        with self._lock:
            st = self._states.get(folder)
            if st is None:
                return
            if st.lines == covered:
                os.ftruncate(st.fd, 0)
                st.lines = 0
                return
            rest = (folder / JOURNAL_NAME).read_bytes().splitlines(keepends=True)[covered:]
            self._rewrite(folder, st, rest)

    def edit_lines(self, folder: Path, edit: Callable[[list[bytes]], list[bytes]]) -> None:
        """Rewrite the journal's lines in place under its lock (a forget redacting pending messages).

        `edit` must return as many lines as it got (each ending in a newline): the counts that
        checkpoints trim by stay true. Used by the owning process; another one must not call it.
        """
        path = folder / JOURNAL_NAME
        with self._lock:
            if not path.exists():
                return
            lines = path.read_bytes().splitlines(keepends=True)
            new = edit(lines)
            if len(new) != len(lines):
                raise ValueError("a journal edit must keep the line count")
            if new == lines:
                return
            st = self._states.get(folder)
            if st is not None:
                self._rewrite(folder, st, new)
            else:
                write_atomic(path, b"".join(new), durable=False)

    def _rewrite(self, folder: Path, st: _State, lines: list[bytes]) -> None:
        write_atomic(folder / JOURNAL_NAME, b"".join(lines), durable=False)  # no fsync, like the appends
        os.close(st.fd)
        st.fd = os.open(folder / JOURNAL_NAME, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        st.lines = len(lines)

    def close(self) -> None:
        with self._lock:
            for st in self._states.values():
                with contextlib.suppress(OSError):
                    os.close(st.fd)
            self._states.clear()
            for fd in self._claims.values():
                if fd is not None:
                    with contextlib.suppress(OSError):
                        os.close(fd)  # closing the descriptor releases the lock
            self._claims.clear()
