"""The message log on its own: append, read back by id and time, keyword search (BM25).

Run: .venv/bin/python examples/message_log.py [FOLDER]   (default: a temporary folder)
"""

import sys
import tempfile
from datetime import UTC, datetime

from knowledge_engine.model.records import Message
from knowledge_engine.store.messages import MessageLog

workspace = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="ke-example-")
sept = datetime(2026, 9, 1, 12, 0, tzinfo=UTC)
first = Message(id="m1", text="Deployed Halcyon to the café server", session="s1", timestamp=sept)
notes = [Message(id=f"m{i}", text=f"note {i} on the snowflake migration", session="s2") for i in (2, 3)]

with MessageLog(workspace) as log:  # a folder -> <folder>/messages.sqlite3; or a file path
    print(log.append(first))  # True
    print(log.append(Message(id="m1", text="again")))  # False (duplicate id)
    print(log.append_many(notes))  # one transaction; returns how many were new: 2
    print([m.id for m in log.get_many(["m3", "m1", "nope"])])  # requested order, unknown ids skipped
    print([m.id for m in log.iter(since=sept, session="s2", order="desc")])  # by event time
    print(log.count(session="s2"))  # 2
    hits = log.search("what did we say about halcyon?", limit=20)  # [(Message, score)], -bm25()
    print([(m.id, round(score, 2)) for m, score in hits])
    print(sorted(log.stats()))  # counts and file sizes for `stats`
