"""Rewrite an embedded Chroma's collections from their own vectors, in a process that never saw the data.

Why: embedded Chroma writes its HNSW segment files (`chroma/<uuid>/*.bin`) with uninitialised
memory in unused slots, so they can hold any text the writing process had in its heap, such as
a name being forgotten. Deleting records does not rewrite those bytes, and `delete_collection`
leaves the segment folder on disk. This module, run as a fresh interpreter
(`python -m knowledge_engine.index.chroma_rebuild CHROMA_DIR NAME...`), reads each collection's
ids, vectors and metadata, recreates it with the same configuration, and removes segment folders
no collection uses any more. Its heap holds only vectors and filter metadata, so the new files
cannot carry text the engine's process held. No embedding is needed.
"""

from __future__ import annotations

import shutil
import sqlite3
import sys
from pathlib import Path
from typing import Any

PAGE = 5000


def _read_all(col: Any) -> tuple[list[str], list[Any], list[Any]]:
    ids: list[str] = []
    vectors: list[Any] = []
    metas: list[Any] = []
    offset = 0
    while True:
        got = col.get(include=["embeddings", "metadatas"], limit=PAGE, offset=offset)
        if not got["ids"]:
            return ids, vectors, metas
        ids += got["ids"]
        vectors += list(got["embeddings"])
        metas += list(got["metadatas"])
        offset += len(got["ids"])


def _hnsw_config(col: Any) -> dict[str, Any]:
    hnsw = dict((getattr(col, "configuration_json", None) or {}).get("hnsw") or {})
    keep = ("space", "ef_construction", "ef_search", "max_neighbors", "resize_factor", "sync_threshold")
    return {k: v for k, v in hnsw.items() if k in keep and v is not None} or {"space": "cosine"}


def rebuild(chroma_dir: Path, names: list[str]) -> int:
    """Recreate the named collections (missing ones are skipped); returns the records rewritten."""
    import chromadb
    from chromadb.config import Settings

    client = chromadb.PersistentClient(path=str(chroma_dir), settings=Settings(anonymized_telemetry=False))
    total = 0
    for name in names:
        try:
            col = client.get_collection(name, embedding_function=None)
        except Exception:
            continue
        ids, vectors, metas = _read_all(col)
        config, metadata = _hnsw_config(col), col.metadata
        client.delete_collection(name)
        fresh = client.create_collection(
            name,
            configuration={"hnsw": config},  # type: ignore[arg-type]  # a plain dict is what Chroma reads
            metadata=metadata or None,
            embedding_function=None,
        )
        for s in range(0, len(ids), PAGE):
            fresh.upsert(
                ids=ids[s : s + PAGE],
                embeddings=vectors[s : s + PAGE],
                metadatas=[m or None for m in metas[s : s + PAGE]],  # type: ignore[misc]
            )
        total += len(ids)
    del client
    remove_orphan_segments(chroma_dir)
    return total


def remove_orphan_segments(chroma_dir: Path) -> list[str]:
    """Segment folders that no segment row of chroma.sqlite3 names (left by deleted collections)."""
    try:
        db = sqlite3.connect(chroma_dir / "chroma.sqlite3")
        try:
            used = {str(r[0]) for r in db.execute("SELECT id FROM segments")}
        finally:
            db.close()
    except sqlite3.Error:
        return []  # an unknown schema: remove nothing
    if not used:
        return []
    gone = []
    for sub in chroma_dir.iterdir():
        if sub.is_dir() and sub.name not in used and len(sub.name) == 36 and sub.name.count("-") == 4:
            shutil.rmtree(sub)
            gone.append(sub.name)
    return gone


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: python -m knowledge_engine.index.chroma_rebuild CHROMA_DIR NAME...", file=sys.stderr)
        return 2
    print(rebuild(Path(argv[0]), argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
