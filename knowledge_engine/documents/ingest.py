"""Fill the pgvector document table from local files, idempotently per file.

A file's identity is (collection, file_name), where file_name is its path relative to a root
(`--root`; by default the deepest folder holding every given file), so `a/README.md` and
`b/README.md` are two documents. Its version is the SHA-256 of its bytes (stored as file_id).
Re-ingesting an unchanged file does nothing; a changed file's rows are replaced in one
transaction, so a search never sees half of a file. Everything that can be checked (names, the
embedding size, the existing table's size) is checked before anything is created.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

from knowledge_engine.config import EmbeddingsConfig, EngineConfig, PgvectorConfig
from knowledge_engine.documents.chunk import (
    CharSizer,
    Sizer,
    TokenSizer,
    UnsupportedDocument,
    chunk_text,
    read_document,
)
from knowledge_engine.index.embeddings.base import Embedder, TokenWindow
from knowledge_engine.observe import counters, emit
from knowledge_engine.retrieve.sources.pgvector import (
    DimensionMismatchError,
    resolve_dimensions,
    table_identifier,
    table_mismatch_message,
    vector_literal,
)

log = logging.getLogger("knowledge_engine.documents")
INGEST_SOURCE = "knowledge-engine"
CHARS_PER_TOKEN = 4  # converts chunkChars/chunkOverlap to tokens for a tokenizer-sized chunk


@dataclass
class IngestReport:
    """Per-run counts; `skipped` maps a file name to a content-free reason."""

    added: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    chunks_inserted: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "added": self.added,
            "replaced": self.replaced,
            "unchanged": self.unchanged,
            "skipped": self.skipped,
            "chunks_inserted": self.chunks_inserted,
        }


def schema_statements(table: str, dimensions: int) -> list[sql.Composed]:
    """The seed's table and its halfvec HNSW index (HNSW on plain vector is capped at 2000 dims).

    Deliberately no btree on collection: on small tables the planner would pick it plus a sort
    over the HNSW index for the seed's `WHERE collection = ... ORDER BY distance` query.
    """
    d = int(dimensions)
    ident = table_identifier(table)
    index = sql.Identifier(table.split(".")[-1] + "_embedding_hnsw_idx")
    return [
        sql.SQL("CREATE EXTENSION IF NOT EXISTS vector").format(),
        sql.SQL(
            "CREATE TABLE IF NOT EXISTS {t} (id serial PRIMARY KEY, collection text NOT NULL, file_name text,"
            " mime_type text, text text, file_id text, source text, owner text, chunk_index int,"
            " total_chunks int, timestamp_start text, timestamp_end text, embedded_at timestamptz,"
            f" embedding vector({d}) NOT NULL)"
        ).format(t=ident),
        sql.SQL(
            "CREATE INDEX IF NOT EXISTS {i} ON {t} USING hnsw"
            f" ((embedding::halfvec({d})) halfvec_cosine_ops)"
        ).format(i=index, t=ident),
    ]


def table_dimensions(conn: psycopg.Connection[Any], table: str) -> int | None:
    """The D of an existing table's embedding column; None when there is no such table."""
    row = conn.execute(
        "SELECT atttypmod FROM pg_attribute WHERE attrelid = to_regclass(%s) AND attname = 'embedding'",
        (table,),
    ).fetchone()
    return None if row is None or row[0] < 1 else int(row[0])


def ensure_schema(conn: psycopg.Connection[Any], table: str, dimensions: int, recreate: bool = False) -> None:
    """Refuse (or with `recreate`, drop) a table of another dimension; then create what is missing.

    The check comes first, so a refused run leaves the database as it found it.
    """
    stored = table_dimensions(conn, table)
    if stored is not None and stored != dimensions:
        if not recreate:
            count = sql.SQL("SELECT count(*) FROM {t}").format(t=table_identifier(table))
            row = conn.execute(count).fetchone()
            raise DimensionMismatchError(
                table_mismatch_message(table, stored, dimensions, int(row[0]) if row else None)
            )
        conn.execute(sql.SQL("DROP TABLE {t}").format(t=table_identifier(table)))
        emit("docs_table_recreated", old_dimensions=stored, dimensions=dimensions)
        log.warning(
            "docs ingest: dropped %s (vector(%d)), re-created as vector(%d)", table, stored, dimensions
        )
    for stmt in schema_statements(table, dimensions):
        conn.execute(stmt)


def _existing_ids(conn: psycopg.Connection[Any], table: str, collection: str, name: str) -> set[str]:
    q = sql.SQL("SELECT DISTINCT file_id FROM {t} WHERE collection = %s AND file_name = %s").format(
        t=table_identifier(table)
    )
    return {r[0] for r in conn.execute(q, (collection, name)).fetchall()}


def _embed(embedder: Embedder, chunks: list[str], dimensions: int) -> list[list[float]]:
    vectors = embedder.embed(chunks)
    if len(vectors) != len(chunks):
        raise ValueError(f"embedder returned {len(vectors)} vectors for {len(chunks)} chunks")
    for vec in vectors:
        if len(vec) != dimensions:
            raise DimensionMismatchError(
                f"{embedder.model_id} produces {len(vec)}-dimensional vectors,"
                f" but the table is vector({dimensions})"
            )
    return vectors


def sizer_for(config: PgvectorConfig, embedder: Embedder) -> Sizer:
    """Tokens when the embedder's tokenizer is at hand (its window is a hard cap), else characters."""
    if isinstance(embedder, TokenWindow):
        return TokenSizer(embedder, math.ceil(config.chunk_chars / CHARS_PER_TOKEN))
    return CharSizer(config.chunk_chars)


def _overlap(config: PgvectorConfig, sizer: Sizer) -> int:
    if isinstance(sizer, TokenSizer):
        return config.chunk_overlap // CHARS_PER_TOKEN
    return config.chunk_overlap


def document_names(paths: list[Path], root: Path | None) -> list[str]:
    """Each file's stable name: its POSIX path relative to `root` (default: their deepest common folder).

    Paths are made absolute without following symlinks, so a link inside the root keeps its place.
    """
    absolute = [Path(os.path.abspath(p)) for p in paths]
    if root is None:
        if not absolute:
            return []
        base = Path(os.path.commonpath([str(p.parent) for p in absolute]))
    else:
        base = Path(os.path.abspath(root))
    outside = [str(p) for p in absolute if not p.is_relative_to(base) or p == base]
    if outside:
        raise ValueError(f"not under --root {base}: {', '.join(outside)}")
    return [p.relative_to(base).as_posix() for p in absolute]


def _replace_rows(
    conn: psycopg.Connection[Any],
    table: str,
    dims: int,
    collection: str,
    name: str,
    mime: str,
    file_id: str,
    chunks: list[str],
    vectors: list[list[float]],
) -> None:
    t = table_identifier(table)
    d = int(dims)
    with conn.transaction():
        delete = sql.SQL("DELETE FROM {t} WHERE collection = %s AND file_name = %s").format(t=t)
        conn.execute(delete, (collection, name))
        insert = sql.SQL(
            "INSERT INTO {t} (collection, file_name, mime_type, text, file_id, source, chunk_index,"
            " total_chunks, embedded_at, embedding)"
            f" VALUES (%s, %s, %s, %s, %s, %s, %s, %s, now(), %s::vector({d}))"
        ).format(t=t)
        rows = [
            (collection, name, mime, chunk, file_id, INGEST_SOURCE, i, len(chunks), vector_literal(vec))
            for i, (chunk, vec) in enumerate(zip(chunks, vectors, strict=True))
        ]
        with conn.cursor() as cur:
            cur.executemany(insert, rows)


@dataclass
class _Run:
    """What every file of one run shares."""

    conn: psycopg.Connection[Any]
    table: str
    dims: int
    collection: str
    embedder: Embedder
    sizer: Sizer
    overlap: int
    report: IngestReport
    names: frozenset[str] = frozenset()


def _adopt_bare_name(run: _Run, name: str, file_id: str) -> bool:
    """Rename rows an earlier version stored under the file's bare name, if they hold this content.

    Before files were named by path, `docs/a/README.md` was stored as `README.md`; taking those rows
    over (same collection, same SHA-256) spares re-embedding and leaves no stale duplicate.
    """
    bare = name.rsplit("/", 1)[-1]
    if bare == name or bare in run.names:  # a file of this run really has the bare name
        return False
    q = sql.SQL(
        "UPDATE {t} SET file_name = %s WHERE collection = %s AND file_name = %s AND file_id = %s"
    ).format(t=table_identifier(run.table))
    return run.conn.execute(q, (name, run.collection, bare, file_id)).rowcount > 0


def _ingest_one(run: _Run, path: Path, name: str) -> None:
    text, mime = read_document(path)
    file_id = hashlib.sha256(path.read_bytes()).hexdigest()
    existing = _existing_ids(run.conn, run.table, run.collection, name)
    if existing == {file_id} or (not existing and _adopt_bare_name(run, name, file_id)):
        run.report.unchanged.append(name)
        return
    chunks = chunk_text(text, overlap=run.overlap, sizer=run.sizer)
    if not chunks:
        raise UnsupportedDocument(f"{name}: no text")
    vectors = _embed(run.embedder, chunks, run.dims)
    _replace_rows(run.conn, run.table, run.dims, run.collection, name, mime, file_id, chunks, vectors)
    (run.report.replaced if existing else run.report.added).append(name)
    run.report.chunks_inserted += len(chunks)


def ingest_files(
    paths: Iterable[str | Path],
    collection: str,
    config: PgvectorConfig,
    embedder: Embedder,
    root: str | Path | None = None,
    recreate: bool = False,
) -> IngestReport:
    """Chunk, embed and store each file; bad files are skipped with a reason, never fatal.

    `root` names the files (see `document_names`); `recreate` drops a table of another dimension.
    """
    if not config.url:
        raise ValueError("pgvector.url is empty: set it (or postgresUrl) to ingest documents")
    if not collection:
        raise ValueError("collection must not be empty")
    table_identifier(config.table)
    files = [Path(p) for p in paths]
    names = document_names(files, Path(root) if root is not None else None)
    dims = resolve_dimensions(config, embedder)
    sizer = sizer_for(config, embedder)
    report = IngestReport()
    with psycopg.connect(config.url, autocommit=True) as conn:
        ensure_schema(conn, config.table, dims, recreate)
        overlap = _overlap(config, sizer)
        run = _Run(conn, config.table, dims, collection, embedder, sizer, overlap, report, frozenset(names))
        for path, name in zip(files, names, strict=True):
            try:
                _ingest_one(run, path, name)
            except (OSError, UnsupportedDocument) as exc:
                report.skipped[name] = type(exc).__name__
                counters.inc("docs_ingest_skipped")
                log.warning("docs ingest: skipped %s (%s)", name, exc)
    emit(
        "docs_ingest",
        added=len(report.added),
        replaced=len(report.replaced),
        unchanged=len(report.unchanged),
        skipped=len(report.skipped),
        chunks=report.chunks_inserted,
        dimensions=dims,
    )
    return report


def ingest_with_config(
    config: EngineConfig,
    paths: Iterable[str | Path],
    collection: str,
    embedder_factory: Callable[[EmbeddingsConfig], Embedder] | None = None,
    root: str | Path | None = None,
    recreate: bool = False,
) -> IngestReport:
    """CLI entry point: embeds with the query provider (pgvector.embeddings, else embeddings)."""
    if embedder_factory is None:
        from knowledge_engine.index.embeddings import make_embedder

        embedder_factory = make_embedder
    embedder = embedder_factory(config.pgvector.embeddings or config.embeddings)
    return ingest_files(paths, collection, config.pgvector, embedder, root, recreate)
