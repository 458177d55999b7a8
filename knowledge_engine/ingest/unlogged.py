"""Messages the workspace's message log could not take, kept until it can.

Why: a batch's facts are stored even when its messages cannot be appended to the log (a malformed or
unwritable `messages.sqlite3`), and the flush after it dropped their ingest-journal lines, so the
messages themselves were gone for good. When no message of a batch could be appended (the log is
broken, not one message), their journal lines are held (counted pending, so no flush drops them) and
the messages are appended before the next batch; a restart replays the journal, which appends them
once the log works again. One message the log refuses while others go in is counted and left, as
before: it is that message, and holding it would keep the journal forever.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from knowledge_engine.ingest.journal import IngestJournal
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters

if TYPE_CHECKING:
    from knowledge_engine.store.workspace import Workspace

log = logging.getLogger("knowledge_engine.ingest.queue")

MAX_KEPT = 10_000  # in memory per folder; beyond it the journal alone keeps them (a restart appends them)


class LogBacklog:
    """Per folder, the messages waiting for the message log (only with a journal to hold them)."""

    def __init__(self, journal: IngestJournal | None) -> None:
        self._journal = journal
        self._kept: dict[Path, list[Message]] = {}

    def hold(self, folder: Path, messages: list[Message]) -> None:
        """None of `messages` could be appended: keep their journal lines until they are."""
        if self._journal is None or not messages:
            return
        kept = self._kept.setdefault(folder, [])
        room = messages[: max(0, MAX_KEPT - len(kept))]
        if not kept:
            log.warning(
                "the message log of %s cannot take messages; they stay in the ingest journal until it "
                "can (fix or move messages.sqlite3 away: the next batch or start appends them)",
                folder,
            )
        kept.extend(room)
        self._journal.hold(folder, len(room))
        counters.inc("memory.append_held", len(messages))

    def retry(self, ws: Workspace) -> None:
        """Append what is waiting for this folder's log; on success its journal lines may go."""
        kept = self._kept.get(ws.folder)
        if not kept or self._journal is None:
            return
        try:
            ws.store_messages(kept)
        except Exception:
            return  # still broken: they wait for the next batch, or the next start's replay
        del self._kept[ws.folder]
        self._journal.applied(ws.folder, len(kept))
        log.warning("the message log of %s took the %d messages it could not before", ws.folder, len(kept))
