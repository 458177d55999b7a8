"""Messages to extract again after a store file was recovered from its last good copy.

Why: a `facts.json` found corrupt at start (a disk fault, a truncation while the host was stopped)
is moved aside and its `.bak` is loaded: the knowledge of the newest write is gone, but its messages
are in the message log. The store remembers which messages its facts hold (the applied keys,
`Workspace.apply`); every message of the log it does not know, from the oldest one it remembers on
(all of them when it remembers fewer than its window, or nothing at all), goes through extraction
again. Applying is idempotent, so a message counted twice costs a parse, not a duplicate.

An `entities.json` recovered alone lost the mentions of its newest write, while the facts kept theirs
and the applied keys that say so: the messages of that write (the keys the facts' newest write added,
`Workspace.entity_write_lost`) are applied again, their facts a replay, their mentions back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from knowledge_engine.model.records import Message

if TYPE_CHECKING:
    from knowledge_engine.store.workspace import Workspace


def unapplied(ws: Workspace, window: int) -> list[Message]:
    """The log's messages whose extraction the store does not hold, oldest first."""
    ids = ws.applied_messages()
    since = None
    if len(ids) >= window:  # the window is full: older messages were applied before it
        oldest = ws.messages.get(ids[0])
        since = oldest.timestamp if oldest is not None else None
    applied = set(ids)
    return [m for m in ws.messages.iter(since=since) if m.id not in applied]


def extract_again(ws: Workspace, window: int) -> list[Message]:
    """What a recovered store file's lost write held: every unapplied message when the facts were
    recovered; the messages of the entities' lost write when only they were."""
    if ws.facts.table.recovered is not None:
        return unapplied(ws, window)
    return [m for i in ws.entity_write_lost() if (m := ws.messages.get(i)) is not None]
