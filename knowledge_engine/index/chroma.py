"""Per-agent Chroma collections for facts and messages, embedded or on a server.

Vectors are always passed explicitly: collections are created without an embedding
function, because Chroma's default one downloads a model at first use and fails offline.
The embedding model id and dimension live in the collection metadata, so reopening an
index with another model is caught instead of silently mixing vector spaces.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import numpy as np
import orjson

from knowledge_engine.config import EngineConfig
from knowledge_engine.fsio import write_atomic
from knowledge_engine.index.embeddings.base import Embedder
from knowledge_engine.observe import counters, emit

REBUILD_COMMAND = "knowledge-engine sync --workspace DIR --rebuild"
IDENTITY_FILE = "chroma-index.json"  # {"agent_id": ...}: whose collection names the workspace's index uses
OVERSAMPLE = 10  # filtered queries fetch k * OVERSAMPLE unfiltered neighbours first
_NAME_OK = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9._-]{1,510}[a-zA-Z0-9]$")
_META_MODEL = "embedding_model"
_META_DIMS = "embedding_dimensions"
Metadata = dict[str, str | int | float | bool | None]


class IndexMismatchError(RuntimeError):
    """The collection was built with another embedding model or dimension."""


class ChromaUnavailableError(RuntimeError):
    """The Chroma server or database could not be reached or opened."""


class AbsentCollection:
    """A collection a read-only command found missing: reads as empty, refuses writes, is never made."""

    def __init__(self, name: str) -> None:
        self.name, self.id, self.metadata = name, None, None

    def count(self) -> int:
        return 0

    def get(self, **_: Any) -> dict[str, Any]:
        return {"ids": [], "metadatas": []}

    def query(self, **_: Any) -> dict[str, Any]:
        return {"ids": [[]], "distances": [[]], "metadatas": [[]]}

    def _write(self, **_: Any) -> None:
        raise ChromaUnavailableError(f"collection {self.name!r} does not exist (opened read-only)")

    upsert = update = delete = _write


class Hit(NamedTuple):
    """One query result; score is cosine similarity (1 - cosine distance)."""

    id: str
    score: float
    metadata: dict[str, Any]


class KindMethods:
    """`VectorIndex`'s per-kind shortcuts, shared by the Chroma and pgvector indexes.

    Why a mixin: both backends implement `delete(kind, ...)` and `_query(kind, ...)`; the
    facts/messages names are the same one-liners over them.
    """

    def delete(self, kind: str, ids: Iterable[str]) -> int:
        raise NotImplementedError

    def _query(
        self, kind: str, vector: Sequence[float], k: int, where: dict[str, Any] | None, metadata: bool = True
    ) -> list[Hit]:
        raise NotImplementedError

    def delete_facts(self, ids: Iterable[str]) -> int:
        """Remove forgotten or pruned facts; unknown ids are ignored."""
        return self.delete("facts", ids)

    def delete_messages(self, ids: Iterable[str]) -> int:
        """Remove messages dropped by retention or forget; unknown ids are ignored."""
        return self.delete("messages", ids)

    def query_facts(
        self, vector: Sequence[float], k: int, where: dict[str, Any] | None = None, metadata: bool = True
    ) -> list[Hit]:
        """Nearest facts, e.g. where={"valid": True, "subject_id": "person:alice"}. `metadata=False`:
        hits without their metadata (empty), for a caller that needs ids and scores only."""
        return self._query("facts", vector, k, where, metadata)

    def query_messages(
        self, vector: Sequence[float], k: int, where: dict[str, Any] | None = None, metadata: bool = True
    ) -> list[Hit]:
        """Nearest messages, e.g. where={"session": "s1", "timestamp": {"$gte": 1.7e9}}."""
        return self._query("messages", vector, k, where, metadata)


def collection_name(prefix: str, agent_id: str, kind: str) -> str:
    """`{prefix}-{agent}-{kind}` within Chroma's rules; a sanitised agent id gets a hash suffix (unique)."""
    raw = f"{prefix}-{agent_id}"
    clean = re.sub(r"[^a-zA-Z0-9._-]+", "-", raw)
    clean = re.sub(r"\.{2,}", ".", clean).strip("._-") or "agent"
    if clean != raw:
        clean = f"{clean[:480]}-{hashlib.blake2b(raw.encode(), digest_size=4).hexdigest()}"
    name = f"{clean[:500]}-{kind}"
    if not _NAME_OK.match(name):  # pragma: no cover - the steps above always satisfy the rule
        raise ValueError(f"cannot make a valid Chroma collection name for agent {agent_id!r}")
    return name


def index_agent_key(workspace: Path, agent_id: str, config: EngineConfig) -> str:
    """The agent part of the collection names. On a Chroma server it also names the workspace: two
    workspaces with the same agent id (two hosts' default `main`) would otherwise sync into one
    collection and delete each other's records. Embedded indexes live in their workspace already."""
    if not config.chroma.url:
        return agent_id
    tag = hashlib.blake2b(str(Path(workspace).resolve()).encode(), digest_size=4).hexdigest()
    return f"{agent_id}-ws{tag}"


def recorded_agent(workspace: Path) -> str | None:
    """The agent id the workspace's index was created for (IDENTITY_FILE), or None before it exists."""
    try:
        data = orjson.loads((Path(workspace) / IDENTITY_FILE).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    agent = data.get("agent_id") if isinstance(data, dict) else None
    return agent if isinstance(agent, str) and agent else None


def _record_agent(workspace: Path, agent_id: str) -> None:
    path = Path(workspace) / IDENTITY_FILE
    try:
        write_atomic(path, orjson.dumps({"agent_id": agent_id}), durable=False)
    except OSError as exc:  # the names are found again from the collections next time
        counters.inc("chroma.identity_not_recorded")
        emit("chroma_identity_not_recorded", error=type(exc).__name__)


def _found_agent(client: Any, workspace: Path, config: EngineConfig) -> str | None:
    """The agent whose collections of this workspace already exist (indexes made before IDENTITY_FILE):
    the one holding records when a read-only command of old also made empty ones under another id."""
    prefix = config.embeddings.collection_name
    sizes: dict[str, int] = {}
    for col in client.list_collections():
        agent = (getattr(col, "metadata", None) or {}).get("agent_id")
        if not isinstance(agent, str) or not agent:
            continue
        if col.name == collection_name(prefix, index_agent_key(workspace, agent, config), "facts"):
            sizes[agent] = sizes.get(agent, 0) + int(col.count())
    holding = [a for a, n in sizes.items() if n] or list(sizes)
    return holding[0] if len(holding) == 1 else None


def index_owner(client: Any, workspace: Path, agent_id: str, config: EngineConfig) -> str:
    """The agent id naming this workspace's collections, the same however the workspace was named
    (--workspace, --config --agent, the host): the agent recorded when the index was created, else the
    one whose collections exist, else `agent_id` (a new index)."""
    return recorded_agent(workspace) or _found_agent(client, workspace, config) or agent_id


def make_client(workspace: Path, config: EngineConfig) -> Any:
    """Embedded PersistentClient in `workspace/chroma`, or an HttpClient when chroma.url is set."""
    import chromadb
    from chromadb.config import Settings

    settings = Settings(anonymized_telemetry=False)
    cfg = config.chroma
    if not cfg.url:
        path = Path(workspace) / "chroma"
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        return chromadb.PersistentClient(
            path=str(path), settings=settings, tenant=cfg.tenant, database=cfg.database
        )
    parts = urlsplit(cfg.url if "://" in cfg.url else f"http://{cfg.url}")
    ssl = parts.scheme == "https"
    headers = dict(cfg.headers)
    if cfg.auth_token:
        headers["Authorization"] = f"Bearer {cfg.auth_token}"
    try:
        return chromadb.HttpClient(
            host=parts.hostname or "localhost",
            port=parts.port or (443 if ssl else 8000),
            ssl=ssl,
            headers=headers,
            settings=settings,
            tenant=cfg.tenant,
            database=cfg.database,
        )
    except Exception as exc:
        raise ChromaUnavailableError(
            f"cannot open Chroma at {parts.hostname}:{parts.port} ({type(exc).__name__}: {exc})"
        ) from exc


class ChromaIndex(KindMethods):
    """The two collections of one agent, plus batched writes and filtered vector queries."""

    shared = False  # one workspace's own (a server's collections are named by workspace too)

    def __init__(
        self, workspace: Path, agent_id: str, config: EngineConfig, embedder: Embedder, create: bool = True
    ) -> None:
        """`create=False` (read-only commands): a missing collection reads as empty and is never made."""
        self.workspace = Path(workspace)
        self.agent_id = agent_id
        self.config = config
        self.embedder = embedder
        self.lock = threading.RLock()
        self.client = make_client(self.workspace, config)
        self._name_collections(record=create)
        self._cols: dict[str, Any] = {}
        for kind in self.names:
            self._cols[kind] = self._open(kind, create)

    def _name_collections(self, record: bool = True) -> None:
        self.owner = index_owner(self.client, self.workspace, self.agent_id, self.config)
        if record and recorded_agent(self.workspace) != self.owner:  # an index of old: found once, then read
            _record_agent(self.workspace, self.owner)
        key = index_agent_key(self.workspace, self.owner, self.config)
        prefix = self.config.embeddings.collection_name
        self.names = {k: collection_name(prefix, key, k) for k in ("facts", "messages")}

    # ------------------------------------------------------------------ collections

    @property
    def facts(self) -> Any:
        return self._cols["facts"]

    @property
    def messages(self) -> Any:
        return self._cols["messages"]

    def collection(self, kind: str) -> Any:
        return self._cols[kind]

    def _open(self, kind: str, create: bool = True) -> Any:
        name = self.names[kind]
        try:
            col = self.client.get_collection(name, embedding_function=None)
        except Exception as exc:
            if not _is_not_found(exc):
                raise
            if not create:
                return AbsentCollection(name)
            col = self._create(name)
        self._check_model(col)
        return col

    def _create(self, name: str) -> Any:
        metadata = {
            _META_MODEL: self.embedder.model_id,
            _META_DIMS: self.embedder.dimensions,
            "agent_id": self.owner,
        }
        emit("chroma_collection_created", collection=name, dimensions=self.embedder.dimensions)
        return self.client.get_or_create_collection(
            name,
            configuration={"hnsw": {"space": "cosine"}},
            metadata=metadata,
            embedding_function=None,
        )

    def _check_model(self, col: Any) -> None:
        meta = col.metadata or {}
        model, dims = meta.get(_META_MODEL), meta.get(_META_DIMS)
        adopt = getattr(self.embedder, "adopt_dimensions", None)
        if callable(adopt) and isinstance(dims, int) and model == self.embedder.model_id:
            adopt(dims)
        if model != self.embedder.model_id or dims != self.embedder.dimensions:
            raise IndexMismatchError(
                f"Chroma collection {col.name!r} was built with {model} ({dims} dimensions) but the "
                f"configured embedder is {self.embedder.model_id} ({self.embedder.dimensions} dimensions); "
                f"rebuild it with: {REBUILD_COMMAND}"
            )

    def reset(self) -> None:
        """Drop and recreate both collections (used by rebuild; skips the model check on purpose)."""
        with self.lock:
            for kind, name in self.names.items():
                try:
                    self.client.delete_collection(name)
                except Exception as exc:
                    if not _is_not_found(exc):
                        raise
                self._cols[kind] = self._create(name)
        emit("chroma_reset", agent_id=self.agent_id)

    @classmethod
    def for_rebuild(
        cls, workspace: Path, agent_id: str, config: EngineConfig, embedder: Embedder
    ) -> ChromaIndex:
        """Open an index even when its model does not match, then reset it."""
        self = cls.__new__(cls)
        self.workspace, self.agent_id = Path(workspace), agent_id
        self.config, self.embedder = config, embedder
        self.lock = threading.RLock()
        self.client = make_client(self.workspace, config)
        self._name_collections()
        self._cols = {}
        self.reset()
        return self

    # ------------------------------------------------------------------ writes

    def max_batch(self) -> int:
        try:
            return max(1, min(int(self.client.get_max_batch_size()), 5000))
        except Exception:  # older servers may not expose it
            return 1000

    def upsert(
        self,
        kind: str,
        ids: Sequence[str],
        vectors: Sequence[Sequence[float]],
        metadatas: Sequence[Metadata],
    ) -> None:
        """Vectors and filter metadata only: texts stay in the stores (smaller, faster, one copy)."""
        col, step = self._cols[kind], self.max_batch()
        for s in range(0, len(ids), step):
            col.upsert(
                ids=list(ids[s : s + step]),
                # one float32 array per chunk: Chroma converts it without a per-vector copy (~5% faster sync)
                embeddings=np.asarray(vectors[s : s + step], dtype=np.float32),
                metadatas=list(metadatas[s : s + step]),
            )

    def update_metadata(self, kind: str, ids: Sequence[str], metadatas: Sequence[Metadata]) -> None:
        col, step = self._cols[kind], self.max_batch()
        for s in range(0, len(ids), step):
            col.update(ids=list(ids[s : s + step]), metadatas=list(metadatas[s : s + step]))

    def delete(self, kind: str, ids: Iterable[str]) -> int:
        batch = list(dict.fromkeys(ids))
        col, step = self._cols[kind], self.max_batch()
        with self.lock:  # never interleave with a running sync's diff
            for s in range(0, len(batch), step):
                col.delete(ids=batch[s : s + step])
        return len(batch)

    def stored_hashes(self, kind: str) -> dict[str, str]:
        """id -> content_hash of every record in the collection (paged, metadata only)."""
        col, page, out = self._cols[kind], 10000, {}
        offset = 0
        while True:
            res = col.get(include=["metadatas"], limit=page, offset=offset)
            ids = res["ids"]
            for rid, meta in zip(ids, res["metadatas"] or [], strict=False):
                out[rid] = str((meta or {}).get("content_hash", ""))
            if len(ids) < page:
                return out
            offset += page

    def count(self, kind: str) -> int:
        return int(self._cols[kind].count())

    # ------------------------------------------------------------------ queries

    def _query(
        self, kind: str, vector: Sequence[float], k: int, where: dict[str, Any] | None, metadata: bool = True
    ) -> list[Hit]:
        """Filtered queries first over-fetch unfiltered and filter here: Chroma's embedded metadata
        filter costs 0.2-0.9 s at 100k records, an unfiltered query a few ms. Chroma filters only
        when the over-fetch finds fewer than k matches (a selective filter). Reading the hits'
        metadata is most of an unfiltered query's cost (about 10 of 12 ms for 150 hits of 50k): a
        caller that needs none asks `metadata=False` (a filter needs it, so it is read then)."""
        if k <= 0:
            return []
        where = normalise_where(where)
        if where is None:
            return self._raw_query(kind, vector, k, None, metadata)
        total = self.count(kind)
        fetch = min(total, max(k * OVERSAMPLE, 50))
        hits = [h for h in self._raw_query(kind, vector, fetch, None) if matches(h.metadata, where)]
        if len(hits) >= k or fetch >= total:
            return hits[:k]
        counters.inc("chroma.filtered_query_fallback")
        return self._raw_query(kind, vector, k, where)

    def _raw_query(
        self, kind: str, vector: Sequence[float], k: int, where: dict[str, Any] | None, metadata: bool = True
    ) -> list[Hit]:
        if k <= 0:
            return []
        include: Any = ["metadatas", "distances"] if metadata else ["distances"]
        res = self._cols[kind].query(
            query_embeddings=[list(vector)], n_results=k, where=where, include=include
        )
        ids = res["ids"][0] if res["ids"] else []
        dists = res["distances"][0] if res.get("distances") else [0.0] * len(ids)
        metas = res["metadatas"][0] if res.get("metadatas") else [{}] * len(ids)
        return [Hit(i, 1.0 - float(d), dict(m or {})) for i, d, m in zip(ids, dists, metas, strict=False)]


_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": lambda a, b: a == b,
    "$ne": lambda a, b: a != b,
    "$gt": lambda a, b: a is not None and a > b,
    "$gte": lambda a, b: a is not None and a >= b,
    "$lt": lambda a, b: a is not None and a < b,
    "$lte": lambda a, b: a is not None and a <= b,
    "$in": lambda a, b: a in b,
    "$nin": lambda a, b: a not in b,
}


def matches(meta: dict[str, Any], where: dict[str, Any]) -> bool:
    """Evaluate a Chroma `where` filter on one metadata dict (same semantics, used after over-fetching)."""
    for key, cond in where.items():
        if key == "$and":
            if not all(matches(meta, c) for c in cond):
                return False
        elif key == "$or":
            if not any(matches(meta, c) for c in cond):
                return False
        elif isinstance(cond, dict):
            value = meta.get(key)
            for op, arg in cond.items():
                if op not in _COMPARE:
                    raise ValueError(f"unsupported filter operator {op!r}")
                if op in ("$ne", "$nin") and key not in meta:
                    return False  # Chroma matches only records that have the key
                try:
                    if not _COMPARE[op](value, arg):
                        return False
                except TypeError:
                    return False
        elif meta.get(key) != cond or key not in meta:
            return False
    return True


def open_index(
    workspace: Path,
    agent_id: str,
    config: EngineConfig,
    embedder: Embedder | None = None,
    create: bool = True,
) -> ChromaIndex:
    """The agent's index with the configured embedder (raises IndexMismatchError on a model change)."""
    from knowledge_engine.index.embeddings import make_embedder

    return ChromaIndex(workspace, agent_id, config, embedder or make_embedder(config.embeddings), create)


def normalise_where(where: dict[str, Any] | None) -> dict[str, Any] | None:
    """Chroma wants one top-level key; several plain keys become an `$and`."""
    if not where:
        return None
    if len(where) == 1:
        return where
    return {"$and": [{k: v} for k, v in where.items()]}


def _is_not_found(exc: Exception) -> bool:
    name = type(exc).__name__
    return name in ("NotFoundError", "InvalidCollectionException") or "does not exist" in str(exc)
