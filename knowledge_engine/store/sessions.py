"""What the extraction tiers remember between a workspace's messages, kept across restarts.

Why: whom a later "he"/"she" means, the name a kin word stands for and the assistant's last
question live in the spaCy tier's memory (extract/spacy_ner.py, kin.py, answers.py). A restart
between two messages forgot them, so "He moved to Boston" after "My brother Tom works at Initech"
lost its fact, and a process killed between the two ended with fewer facts than one never killed.

The memory is saved in `session-memory.json` with each store flush: its state at the flush's
checkpoint (taken after the ingest journal's), written once the flush succeeded. After a start it
goes back to the tiers before the workspace's first batch, and the journal's replay of the messages
after that checkpoint brings it up to date (reading a message twice leaves the same memory). The
file holds names: owner-only like the stores, rewritten by `forget` (forget/coord.py).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from pathlib import Path
from typing import Any

import orjson

from knowledge_engine.fsio import write_atomic
from knowledge_engine.observe import counters

log = logging.getLogger("knowledge_engine.store")

SESSIONS_FILE = "session-memory.json"
VERSION = 1
MALFORMED = (KeyError, TypeError, ValueError, AttributeError)  # a file edited or cut by hand


def load(folder: Path) -> dict[str, Any] | None:
    """The memory saved in `folder`, per tier name; None when there is none or it cannot be read
    (logged and counted: the sessions then start empty, as before this file existed)."""
    path = folder / SESSIONS_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        counters.inc("sessions.unreadable")
        log.warning(
            "the session memory in %s cannot be read (%s); sessions start empty", folder, type(exc).__name__
        )
        return None
    try:
        doc = orjson.loads(raw)
        if (
            not isinstance(doc, dict)
            or doc.get("version") != VERSION
            or not isinstance(doc.get("tiers"), dict)
        ):
            raise ValueError("not a session memory")
    except (orjson.JSONDecodeError, ValueError):
        counters.inc("sessions.corrupt")
        log.warning("the session memory in %s is corrupt; sessions start empty", folder)
        return None
    tiers: dict[str, Any] = doc["tiers"]
    return tiers


def save(folder: Path, tiers: dict[str, Any]) -> None:
    """Write the memory (atomic; like the journal, it survives the process, not the machine)."""
    try:
        write_atomic(
            folder / SESSIONS_FILE, orjson.dumps({"version": VERSION, "tiers": tiers}), durable=False
        )
    except OSError as exc:  # the stores were just written; the next flush tries again
        counters.inc("sessions.write_errors")
        log.warning("the session memory in %s was not saved (%s)", folder, type(exc).__name__)


def remove(folder: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        (folder / SESSIONS_FILE).unlink()


class SessionMemory:
    """The engine's side: the memory read when a workspace opens, handed to the pipeline before the
    workspace's first batch, and saved with each flush. `pipeline` is the engine's, None until built."""

    def __init__(self) -> None:
        self._waiting: dict[Path, dict[str, Any]] = {}  # read at open, not yet given to the tiers
        self._saved: dict[Path, dict[str, Any]] = {}  # last written: an unchanged memory is not rewritten
        self._forgets: dict[Path, int] = {}  # forgets applied: a checkpoint older than one is stale
        self._lock = threading.Lock()  # a flush's checkpoint never sees the memory half given back

    def opened(self, folder: Path) -> None:
        memory = load(folder)
        with self._lock:
            if memory:
                self._waiting[folder] = memory
                self._saved[folder] = memory

    def waiting(self, folder: Path) -> bool:
        """Whether memory read at open still waits for the workspace's first batch."""
        return folder in self._waiting

    def before_batch(self, pipeline: Any, folder: Path) -> None:
        """Give the tiers what the workspace's sessions remembered before the restart."""
        if folder not in self._waiting:
            return
        with self._lock:
            memory = self._waiting.pop(folder, None)
            if memory is None:
                return
            try:
                pipeline.restore_memory(str(folder), memory)
            except MALFORMED as exc:
                counters.inc("sessions.corrupt")
                log.warning(
                    "the session memory in %s is malformed (%s); sessions start empty",
                    folder,
                    type(exc).__name__,
                )
                return
            counters.inc("sessions.restored")

    def checkpoint(self, pipeline: Any, folder: Path) -> tuple[int, dict[str, Any]] | None:
        """The memory to save with the flush starting now (None: nothing new to write), with the
        count of forgets applied so far, which `release` checks."""
        with self._lock:
            memory = self._waiting.get(folder)
            if memory is None and pipeline is not None:
                memory = pipeline.memory(str(folder))
            if memory is None or memory == self._saved.get(folder):
                return None
            return self._forgets.get(folder, 0), memory

    def release(self, folder: Path, token: tuple[int, dict[str, Any]] | None) -> None:
        """After the flush succeeded: write the memory its checkpoint took, unless a forget came
        between the two (the flush's store writes run outside this lock): that memory may name what
        was forgotten, and the forget wrote the file itself; the next flush writes the memory since."""
        if token is None:
            return
        forgets, memory = token
        with self._lock:
            if forgets != self._forgets.get(folder, 0):
                counters.inc("sessions.stale_checkpoint")
                return
            save(folder, memory)
            self._saved[folder] = memory

    def forget(self, pipeline: Any, folder: Path, names: Any, session: str | None) -> None:
        """A forget on a host: the tiers drop what it names, and the file is rewritten at once (it
        must not hold the name until the next flush). Memory not yet given back is given back first."""
        self.before_batch(pipeline, folder)
        pipeline.forget(names, session, scope=str(folder))
        with self._lock:
            self._forgets[folder] = self._forgets.get(folder, 0) + 1
            memory = pipeline.memory(str(folder))
            save(folder, memory)
            self._saved[folder] = memory
