#!/usr/bin/env python3
"""Message vector search: pgvector (the postgres backend's index) beside Chroma on the same vectors.

Issue 17. Vectors: every LoCoMo dev turn embedded by the local ONNX model, then each copied with
gaussian noise (cosine to its original about --noise-cos, renormalised) until there are --messages
vectors: real embedding geometry at 50k without embedding 50k texts on a shared 2-core machine.
Queries: LoCoMo dev questions through the same model (`embed_query`). Both indexes get the same ids,
vectors and message metadata (session of 50, role, speaker, timestamp) through their `upsert`, then:

- insert seconds (all --messages rows, batches of 1000);
- `query_messages` p50/p95 (ms) at k = retrieval.candidatePool (100) unfiltered, and with a
  where={"session": ...} filter that matches 2 % of the rows (iterative scan on pgvector, Chroma's
  over-fetch then its own filter);
- recall 10@100 of the unfiltered query: of the exact (numpy) 10 nearest, the share in the 100 returned;
- pgvector only: the same unfiltered query for a second, small agent (--small-agent rows) whose rows
  share the table with the big one (agents are isolated by a column, so its filter drops most rows).

Usage: .venv/bin/python scripts/bench/pg_vectors.py [--messages 50000] [--queries 200] [--pg-url URL]
       [--quick]
Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from scripts.bench.backend import database
from scripts.bench.common import LOCOMO_DEV, load_locomo, percentile

SESSIONS = 50
BATCH = 1000
K = 100


def corpus(n: int, noise_cos: float, seed: int) -> tuple[np.ndarray, np.ndarray, Any]:
    """(n x D message vectors, query vectors, embedder) from LoCoMo dev turns and questions."""
    from knowledge_engine.index.embeddings import LocalEmbedder

    convs = load_locomo(LOCOMO_DEV)
    turns = [t.text for c in convs for t in c.turns]
    questions = [q.question for c in convs for q in c.questions if q.question]
    emb = LocalEmbedder(batch_size=64)
    base = np.asarray(emb.embed(turns), dtype=np.float32)
    queries = np.asarray([emb.embed_query(q) for q in questions], dtype=np.float32)
    rng = np.random.default_rng(seed)
    d = base.shape[1]
    # for unit v and noise of per-coordinate sigma s: cos(v, v + e) ~ 1 / sqrt(1 + d s^2)
    sigma = float(np.sqrt((1 / noise_cos**2 - 1) / d))
    picks = np.arange(n) % len(base)
    vecs = base[picks] + (picks >= len(base))[:, None] * rng.normal(0, sigma, (n, d)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    return vecs, queries, emb


def metadata(i: int) -> dict[str, Any]:
    return {
        "session": f"s{i % SESSIONS}",
        "role": "user" if i % 2 == 0 else "assistant",
        "speaker": "alice" if i % 2 == 0 else "bob",
        "timestamp": 1.7e9 + i * 30.0,
        "content_hash": f"h{i}",
    }


def fill(index: Any, vecs: np.ndarray) -> float:
    t0 = time.perf_counter()
    for s in range(0, len(vecs), BATCH):
        ids = [f"m{i}" for i in range(s, min(s + BATCH, len(vecs)))]
        index.upsert("messages", ids, vecs[s : s + BATCH], [metadata(i) for i in range(s, s + len(ids))])
    return round(time.perf_counter() - t0, 1)


def timed(run: Callable[[Sequence[float]], list[Any]], queries: np.ndarray) -> tuple[dict[str, float], list]:
    for q in queries[:10]:  # warm caches and connections
        run(q.tolist())
    times, results = [], []
    for q in queries:
        vec = q.tolist()
        t0 = time.perf_counter()
        hits = run(vec)
        times.append((time.perf_counter() - t0) * 1000)
        results.append(hits)
    stats = {"p50_ms": round(percentile(times, 50), 2), "p95_ms": round(percentile(times, 95), 2)}
    return stats, results


def recall_10_at_k(results: list[list[Any]], exact: np.ndarray) -> float:
    """Of the exact 10 nearest, the share among the k the index returned (the retriever's pool)."""
    pairs = zip(results, exact, strict=True)
    got = [len({h.id for h in hits} & {f"m{j}" for j in row}) / 10 for hits, row in pairs]
    return round(float(np.mean(got)), 3)


def measure(
    name: str, index: Any, vecs: np.ndarray, queries: np.ndarray, exact: np.ndarray
) -> dict[str, Any]:
    row: dict[str, Any] = {"index": name, "insert_s": fill(index, vecs), "count": index.count("messages")}
    plain, results = timed(lambda v: index.query_messages(v, K), queries)
    row["unfiltered"] = {**plain, f"recall_10_at_{K}": recall_10_at_k(results, exact)}
    where = {"session": "s7"}
    filtered, results = timed(lambda v: index.query_messages(v, K, where), queries)
    row["session_filter"] = {**filtered, "rows_returned_min": min(len(r) for r in results)}
    print(f"{name}: {row}", file=sys.stderr)
    return row


def small_agent(index: Any, vecs: np.ndarray, queries: np.ndarray) -> dict[str, Any]:
    """A small agent whose rows share the table with the big one: the HNSW graph is mostly the other
    agent's rows, which the agent filter drops (iterative scan, else the exact fallback)."""
    exact = np.argsort(-(queries @ vecs.T), axis=1)[:, :10]
    row: dict[str, Any] = {"index": "pgvector, small agent in the same table", "insert_s": fill(index, vecs)}
    plain, results = timed(lambda v: index.query_messages(v, K), queries)
    row["count"] = index.count("messages")
    row["unfiltered"] = {**plain, f"recall_10_at_{K}": recall_10_at_k(results, exact)}
    print(f"small agent: {row}", file=sys.stderr)
    return row


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--messages", type=int, default=50000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--noise-cos", type=float, default=0.95)
    ap.add_argument("--pg-url", default=None, help="a server to use (default: one of our own in a temp dir)")
    ap.add_argument("--indexes", default="pgvector,chroma")
    ap.add_argument("--small-agent", type=int, default=500, help="rows of a second agent in the same table")
    ap.add_argument("--quick", action="store_true", help="5000 messages, 50 queries")
    args = ap.parse_args(argv)
    if args.quick:
        args.messages, args.queries = 5000, 50
    return args


def main(argv: list[str] | None = None) -> int:
    from knowledge_engine.config import EngineConfig, load_config
    from knowledge_engine.index.chroma import ChromaIndex
    from knowledge_engine.index.pgvector_index import PgVectorIndex
    from knowledge_engine.store.postgres.connect import close_all

    args = parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    vecs, queries, emb = corpus(args.messages, args.noise_cos, seed=17)
    queries = queries[: args.queries]
    exact = np.argsort(-(queries @ vecs.T), axis=1)[:, :10]
    rows = []
    with tempfile.TemporaryDirectory(prefix="pg-vectors-bench-") as tmp:
        if "pgvector" in args.indexes:
            with database(args.pg_url) as url:
                cfg = load_config({"storage": {"backend": "postgres", "postgres": {"url": url}}})
                big = PgVectorIndex(Path(tmp), "bench", cfg, emb)
                rows.append(measure("pgvector", big, vecs, queries, exact))
                small = PgVectorIndex(Path(tmp), "small", cfg, emb)
                rows.append(small_agent(small, vecs[: args.small_agent], queries))
                close_all()
        if "chroma" in args.indexes:
            index = ChromaIndex(Path(tmp) / "chroma-ws", "bench", EngineConfig(), emb)
            rows.append(measure("chroma", index, vecs, queries, exact))
    out = {
        "bench": "pg_vectors",
        "messages": args.messages,
        "queries": len(queries),
        "k": K,
        "dimensions": int(vecs.shape[1]),
        "vectors": f"LoCoMo dev turns (local ONNX) + noisy copies, cos ~{args.noise_cos}",
        "rows": rows,
    }
    print(orjson.dumps(out).decode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
