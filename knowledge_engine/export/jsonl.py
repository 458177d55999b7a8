"""JSON Lines export: one record a line with a `kind` (meta, entity, fact, message); `import` reads it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import orjson

from knowledge_engine.store.workspace import Workspace

FORMAT_VERSION = 1


def lines(ws: Workspace, with_messages: bool = True) -> Iterator[bytes]:
    has_log = with_messages and ws.has_message_log
    yield orjson.dumps(
        {
            "kind": "meta",
            "format": "knowledge-engine-export",
            "version": FORMAT_VERSION,
            "exported_at": datetime.now(UTC).isoformat(),
            "entities": len(ws.entities),
            "facts": len(ws.facts),
            "messages": ws.messages.count() if has_log else 0,
        }
    )
    for e in ws.entities.all():
        yield orjson.dumps({"kind": "entity", **e.model_dump(mode="json")})
    for f in ws.facts.all():
        yield orjson.dumps({"kind": "fact", **f.model_dump(mode="json")})
    if has_log:
        for m in ws.messages.iter():
            yield orjson.dumps({"kind": "message", **m.model_dump(mode="json")})
