"""Fill the pgvector document table from local files, idempotently per file.

A file's identity is (collection, file_name); its version is the SHA-256 of its bytes
(stored as file_id). Re-ingesting an unchanged file does nothing; a changed file's rows are
replaced in one transaction, so a search never sees half of a file.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

from knowledge_engine.config import EmbeddingsConfig, EngineConfig, PgvectorConfig
from knowledge_engine.documents.chunk import UnsupportedDocument, chunk_text, read_document
from knowledge_engine.index.embeddings.base import Embedder
from knowledge_engine.observe import counters, emit
from knowledge_engine.retrieve.sources.pgvector import (
    DimensionMismatchError,
    table_identifier,
    vector_literal,
)

log = logging.getLogger("knowledge_engine.documents")
INGEST_SOURCE = "knowledge-engine"


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


def ensure_schema(conn: psycopg.Connection[Any], table: str, dimensions: int) -> None:
    """Create extension, table and indexes if missing; refuse a table of another dimension."""
    for stmt in schema_statements(table, dimensions):
        conn.execute(stmt)
    row = conn.execute(
        "SELECT atttypmod FROM pg_attribute WHERE attrelid = %s::regclass AND attname = 'embedding'", (table,)
    ).fetchone()
    if row is not None and row[0] not in (-1, dimensions):
        raise DimensionMismatchError(
            f"table {table} stores vector({row[0]}), but pgvector.dimensions is {dimensions}"
        )


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
                f" but pgvector.dimensions is {dimensions}"
            )
    return vectors


def _replace_rows(
    conn: psycopg.Connection[Any], config: PgvectorConfig, collection: str, name: str, mime: str,
    file_id: str, chunks: list[str], vectors: list[list[float]],
) -> None:
    t = table_identifier(config.table)
    d = int(config.dimensions)
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


def _ingest_one(
    conn: psycopg.Connection[Any], path: Path, collection: str, config: PgvectorConfig, embedder: Embedder,
    report: IngestReport,
) -> None:
    name = path.name
    text, mime = read_document(path)
    file_id = hashlib.sha256(path.read_bytes()).hexdigest()
    existing = _existing_ids(conn, config.table, collection, name)
    if existing == {file_id}:
        report.unchanged.append(name)
        return
    chunks = chunk_text(text, config.chunk_chars, config.chunk_overlap)
    if not chunks:
        raise UnsupportedDocument(f"{name}: no text")
    vectors = _embed(embedder, chunks, config.dimensions)
    _replace_rows(conn, config, collection, name, mime, file_id, chunks, vectors)
    (report.replaced if existing else report.added).append(name)
    report.chunks_inserted += len(chunks)


def ingest_files(
    paths: Iterable[str | Path], collection: str, config: PgvectorConfig, embedder: Embedder
) -> IngestReport:
    """Chunk, embed and store each file; bad files are skipped with a reason, never fatal."""
    if not config.url:
        raise ValueError("pgvector.url is empty: set it (or postgresUrl) to ingest documents")
    if not collection:
        raise ValueError("collection must not be empty")
    report = IngestReport()
    with psycopg.connect(config.url, autocommit=True) as conn:
        ensure_schema(conn, config.table, config.dimensions)
        for raw in paths:
            path = Path(raw)
            try:
                _ingest_one(conn, path, collection, config, embedder, report)
            except (OSError, UnsupportedDocument) as exc:
                reason = type(exc).__name__
                report.skipped[path.name] = reason
                counters.inc("docs_ingest_skipped")
                log.warning("docs ingest: skipped %s (%s)", path.name, exc)
    emit(
        "docs_ingest",
        added=len(report.added),
        replaced=len(report.replaced),
        unchanged=len(report.unchanged),
        skipped=len(report.skipped),
        chunks=report.chunks_inserted,
    )
    return report


def ingest_with_config(
    config: EngineConfig,
    paths: Iterable[str | Path],
    collection: str,
    embedder_factory: Callable[[EmbeddingsConfig], Embedder] | None = None,
) -> IngestReport:
    """CLI entry point: embeds with the query provider (pgvector.embeddings, else embeddings)."""
    if embedder_factory is None:
        from knowledge_engine.index.embeddings import make_embedder

        embedder_factory = make_embedder
    embedder = embedder_factory(config.pgvector.embeddings or config.embeddings)
    return ingest_files(paths, collection, config.pgvector, embedder)
