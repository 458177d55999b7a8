"""The vector index an agent's facts and messages are searched in, and the one place that picks it.

Why a protocol: sync, retrieval, retention and forget need the same dozen operations whether the
vectors live in Chroma (`storage.backend: files`) or in pgvector next to the records
(`storage.backend: postgres`, so that backend needs no Chroma). Callers are typed against
`VectorIndex`; `open_vector_index` chooses by backend.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

from knowledge_engine.config import EngineConfig
from knowledge_engine.index.chroma import Hit, Metadata
from knowledge_engine.index.embeddings.base import Embedder
from knowledge_engine.store.backend import is_shared


class VectorIndex(Protocol):
    """Two kinds of records ("facts", "messages") of one agent: vectors plus filter metadata."""

    @property
    def workspace(self) -> Path: ...

    @property
    def agent_id(self) -> str: ...

    @property
    def config(self) -> EngineConfig: ...

    @property
    def embedder(self) -> Embedder: ...

    @property
    def lock(self) -> AbstractContextManager[Any]:
        """Held by a sync across its diff and writes (deletes wait for it)."""
        ...

    @property
    def shared(self) -> bool:
        """Other processes and machines write it too: its stored hashes are read from it, never
        from the workspace's local cache (which another node's writes would make wrong)."""
        ...

    def collection(self, kind: str) -> Any:
        """An object whose `id` changes when the kind's vectors are rebuilt."""
        ...

    def reset(self) -> None: ...

    def max_batch(self) -> int: ...

    def upsert(
        self, kind: str, ids: Sequence[str], vectors: Sequence[Sequence[float]], metadatas: Sequence[Metadata]
    ) -> None: ...

    def update_metadata(self, kind: str, ids: Sequence[str], metadatas: Sequence[Metadata]) -> None: ...

    def delete(self, kind: str, ids: Iterable[str]) -> int: ...

    def delete_facts(self, ids: Iterable[str]) -> int: ...

    def delete_messages(self, ids: Iterable[str]) -> int: ...

    def stored_hashes(self, kind: str) -> dict[str, str]: ...

    def count(self, kind: str) -> int: ...

    def query_facts(
        self, vector: Sequence[float], k: int, where: dict[str, Any] | None = None, metadata: bool = True
    ) -> list[Hit]: ...

    def query_messages(
        self, vector: Sequence[float], k: int, where: dict[str, Any] | None = None, metadata: bool = True
    ) -> list[Hit]: ...


def open_vector_index(
    workspace: Path,
    agent_id: str,
    config: EngineConfig,
    embedder: Embedder,
    create: bool = True,
    rebuild: bool = False,
) -> VectorIndex:
    """pgvector on the postgres backend, else Chroma. `rebuild`: opened even when it was built with
    another model, and emptied (`sync --rebuild`). Raises IndexMismatchError on a model change."""
    if is_shared(config.storage):
        from knowledge_engine.index.pgvector_index import PgVectorIndex

        if rebuild:
            return PgVectorIndex.for_rebuild(workspace, agent_id, config, embedder)
        return PgVectorIndex(workspace, agent_id, config, embedder, create=create)
    from knowledge_engine.index.chroma import ChromaIndex

    if rebuild:
        return ChromaIndex.for_rebuild(workspace, agent_id, config, embedder)
    return ChromaIndex(workspace, agent_id, config, embedder, create=create)
