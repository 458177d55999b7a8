"""Which storage backend holds an agent's knowledge: the one place that chooses (`storage.backend`).

`files` (the default): facts.json / entities.json (lock + merge) and messages.sqlite3 in the
workspace folder. `postgres`: the same records and messages in one database that several engine
processes share (`store.postgres`). Callers ask here and get the same contract either way.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel

from knowledge_engine.config import EngineConfig, StorageConfig

if TYPE_CHECKING:
    from knowledge_engine.extract.parked import ParkedStore
    from knowledge_engine.store.message_common import MessageLogContract
    from knowledge_engine.store.persistence import WorkspaceLock
    from knowledge_engine.store.table import BaseTable

R = TypeVar("R", bound=BaseModel)


def is_shared(storage: StorageConfig) -> bool:
    """Whether the knowledge lives in the shared database (several processes, several machines)."""
    return storage.backend == "postgres"


def record_table(
    storage: StorageConfig, folder: Path, agent: str, key: str, model: type[R], lock: WorkspaceLock
) -> BaseTable[R]:
    """The table of one record kind (`facts`, `entities`) of one agent."""
    if is_shared(storage):
        from knowledge_engine.store.postgres.table import PgRecordTable

        return PgRecordTable(storage.postgres, agent, key, model)
    from knowledge_engine.store.table import RecordTable

    return RecordTable(folder / f"{key}.json", key, model, lock)


def message_log(config: EngineConfig, folder: Path, agent: str) -> MessageLogContract:
    """The conversation memory of one agent (SQLite + FTS5 in the folder, or the shared database)."""
    if is_shared(config.storage):
        from knowledge_engine.store.postgres.messages import PgMessageLog

        return PgMessageLog.from_config(config.storage.postgres, agent, config.memory)
    from knowledge_engine.store.messages import MessageLog

    return MessageLog.from_config(folder, config.memory)


def parked_store(storage: StorageConfig, folder: Path, agent: str) -> ParkedStore:
    """Where the LLM tier parks batches it could not send: the workspace's llm-pending folder, or the
    shared database, where any node sends them (a node that dies strands nothing)."""
    if is_shared(storage):
        from knowledge_engine.store.postgres.parked import PgParked

        return PgParked(storage.postgres, agent)
    from knowledge_engine.extract.parked import FileParked

    return FileParked(folder / "llm-pending")
