"""Benchmark of the semantic layer; prints figures, last line one JSON object.

- local embedder embeddings/s (real MiniLM int8 ONNX on realistic chat lines);
- Chroma sync records/s through `sync()` with the embedding time excluded: a stand-in embedder
  hands out precomputed vectors and its time is subtracted. Two kinds of vectors, because the
  HNSW insert cost depends on them:
  * `real` (the headline figure): each vector is the normalised sum of the real local model's
    embeddings of two distinct LoCoMo sentences, i.e. a point in the space real chat embeddings
    occupy. Checked once against 100k true embeddings of two-sentence texts (docs/semantic.md);
  * `random`: random 384-d unit vectors, which have no neighbourhood structure and are HNSW's
    worst case (about a third slower to insert);
- vector query p50/p95 (k=10, with and without a `where` filter) at 10k and 100k messages;
- disk size of the embedded Chroma directory per 10k messages;
- keyword (SQLite FTS5 BM25 message log) query p50/p95 at the same sizes.

Usage: .venv/bin/python scripts/bench/semantic.py [--quick] [--sizes 10000,100000]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import orjson

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from knowledge_engine.config import EngineConfig  # noqa: E402
from knowledge_engine.index.chroma import ChromaIndex  # noqa: E402
from knowledge_engine.index.embeddings import LocalEmbedder  # noqa: E402
from knowledge_engine.index.sync import sync  # noqa: E402
from knowledge_engine.model.records import Message  # noqa: E402
from scripts.bench.common import LOCOMO_DEV, load_locomo  # noqa: E402

_VOCAB = (
    "budget meeting project deadline report cat kitten lisbon paris trip flight hotel database migration "
    "postgres server deploy release bug fix review design customer invoice payment contract lunch dinner "
    "doctor appointment birthday gift family weekend hike running training model embedding vector search "
    "quarterly revenue marketing launch roadmap team hiring interview salary office remote coffee weather"
)
WORDS = tuple(_VOCAB.split())
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _sentence(rng: random.Random) -> str:
    n = rng.randint(6, 30)
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def _messages(n: int, seed: int = 7) -> list[Message]:
    rng = random.Random(seed)
    return [
        Message(
            id=f"m{i}",
            text=_sentence(rng),
            role="user" if i % 2 else "assistant",
            session=f"s{i % 50}",
            speaker="alice" if i % 2 else "bot",
            timestamp=T0 + timedelta(seconds=i * 30),
        )
        for i in range(n)
    ]


class PrecomputedEmbedder:
    """Hands out precomputed unit vectors; tracks its own time so sync cost excludes it."""

    model_id = "bench:precomputed-384"
    dimensions = 384

    def __init__(self, kind: str, base: np.ndarray | None = None) -> None:
        self.kind = kind
        self.base = base
        self.rng = np.random.default_rng(1)
        self.seconds = 0.0

    def _vectors(self, n: int) -> np.ndarray:
        if self.kind == "true" and self.base is not None:  # one real embedding per record, in order
            v, self.base = self.base[:n], self.base[n:]
        elif self.kind == "real" and self.base is not None:
            a = self.rng.integers(0, len(self.base), n)
            b = (a + self.rng.integers(1, len(self.base), n)) % len(self.base)  # never a itself
            v = self.base[a] + self.base[b]
        else:
            v = self.rng.standard_normal((n, self.dimensions)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    def embed(self, texts: list[str]) -> list[list[float]]:
        t = time.perf_counter()
        out = self._vectors(len(texts)).tolist()
        self.seconds += time.perf_counter() - t
        return out

    def embed_query(self, text: str) -> list[float]:
        return self._vectors(1)[0].tolist()


def locomo_sentences() -> list[str]:
    turns = [t.text for c in load_locomo(LOCOMO_DEV) for t in c.turns] if LOCOMO_DEV.exists() else []
    return sorted({s.strip() for t in turns for s in re.split(r"[.!?]", t) if len(s.strip()) > 15})


def real_sentence_vectors() -> np.ndarray | None:
    """The local model's embeddings of the distinct LoCoMo sentences (about 3,400; ~15 s)."""
    sentences = locomo_sentences()
    if not sentences:
        return None
    return np.asarray(LocalEmbedder(batch_size=64).embed(sentences), dtype=np.float32)


def true_pair_vectors(n: int) -> np.ndarray | None:
    """The local model's embeddings of n distinct two-sentence texts (about 220/s: minutes).

    `--true-vectors` syncs these instead of the sums, to check that the sums stand in fairly.
    """
    sentences = locomo_sentences()
    if len(sentences) < 2:
        return None
    rng, texts = random.Random(3), set[str]()
    while len(texts) < n:
        a, b = rng.sample(sentences, 2)
        texts.add(f"{a}. {b}.")
    print(f"embedding {n} two-sentence texts with the local model...", flush=True)
    return np.asarray(LocalEmbedder(batch_size=64).embed(sorted(texts)), dtype=np.float32)


def _pct(samples: list[float]) -> dict[str, float]:
    qs = statistics.quantiles(samples, n=100)
    return {"p50_ms": round(qs[49], 2), "p95_ms": round(qs[94], 2)}


def _timed(fn: Any, *args: Any, **kwargs: Any) -> float:
    t = time.perf_counter()
    fn(*args, **kwargs)
    return (time.perf_counter() - t) * 1000


def _fmt(p: dict[str, float]) -> str:
    return f"{p['p50_ms']}/{p['p95_ms']}"


def bench_embedder(n: int = 2000) -> float:
    emb = LocalEmbedder(batch_size=64)
    emb.embed(["warm up"])
    texts = [m.text for m in _messages(n, seed=3)]
    t = time.perf_counter()
    emb.embed(texts)
    rate = n / (time.perf_counter() - t)
    print(f"local embedder ({emb.model_id}): {rate:.0f} embeddings/s over {n} chat lines")
    return round(rate, 1)


def _dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def sync_rate(size: int, tmp: Path, emb: PrecomputedEmbedder) -> tuple[Path, ChromaIndex, Any, float, float]:
    """Sync `size` messages into a fresh embedded index: (workspace, index, report, records/s, total s)."""
    ws = tmp / f"chroma-{emb.kind}-{size}"
    ws.mkdir()
    index = ChromaIndex(ws, "bench", EngineConfig(), emb)
    t = time.perf_counter()
    report = sync(index, [], _messages(size))
    total = time.perf_counter() - t
    return ws, index, report, size / (total - emb.seconds), total


def bench_chroma(
    size: int, tmp: Path, base: np.ndarray | None, queries: int = 200, true_vectors: bool = False
) -> dict[str, Any]:
    random_rate = sync_rate(size, tmp, PrecomputedEmbedder("random"))[3]
    pairs = true_pair_vectors(size + queries) if true_vectors else None
    if pairs is not None:
        emb = PrecomputedEmbedder("true", pairs)
    else:
        emb = PrecomputedEmbedder("real" if base is not None else "random", base)
    ws, index, report, rate, total = sync_rate(size, tmp, emb)
    msgs = _messages(size)
    t = time.perf_counter()
    again = sync(index, [], msgs)
    noop_s = time.perf_counter() - t
    plain, common, selective = [], [], []
    for i in range(queries):
        q = emb.embed_query("")
        plain.append(_timed(index.query_messages, q, 10))
        # half the records match: served by the over-fetch path
        common.append(_timed(index.query_messages, q, 10, where={"role": "user"}))
        # 1 % match: falls back to Chroma's own metadata filter
        where = {"session": f"s{i % 50}", "role": "user"}
        selective.append(_timed(index.query_messages, q, 10, where=where))
    disk = _dir_size(ws / "chroma")
    out: dict[str, Any] = {
        "records": size,
        "vectors": emb.kind,
        "sync_records_per_s_excl_embedding": round(rate, 1),
        "sync_random_vectors_records_per_s_excl_embedding": round(random_rate, 1),
        "sync_seconds_total": round(total, 2),
        "noop_resync_seconds": round(noop_s, 2),
        "embedded": report.embedded,
        "resync_embedded": again.embedded,
        "vector_query": _pct(plain),
        "vector_query_filter_50pct": _pct(common),
        "vector_query_filter_1pct": _pct(selective),
        "disk_bytes_per_10k": int(disk * 10000 / size),
    }
    print(
        f"chroma {size}: sync {rate:.0f} rec/s excl. embedding ({emb.kind} vectors, {total:.1f} s total; "
        f"random vectors {random_rate:.0f} rec/s), "
        f"no-op resync {noop_s:.2f} s, "
        f"query p50/p95 {_fmt(out['vector_query'])} ms, "
        f"filter 50% {_fmt(out['vector_query_filter_50pct'])} ms, "
        f"filter 1% {_fmt(out['vector_query_filter_1pct'])} ms, "
        f"disk {disk / 1e6:.1f} MB ({out['disk_bytes_per_10k'] / 1e6:.1f} MB per 10k)"
    )
    return out


def bench_keyword(size: int, tmp: Path, queries: int = 200) -> dict[str, Any] | None:
    try:
        from knowledge_engine.store.messages import MESSAGES_FILE, MessageLog
    except ImportError:
        print("keyword arm: knowledge_engine.store.messages not available (TODO)")
        return None
    log = MessageLog(tmp / f"log-{size}" / MESSAGES_FILE)
    msgs = _messages(size)
    t = time.perf_counter()
    log.append_many(msgs)
    append_s = time.perf_counter() - t
    rng = random.Random(11)
    samples = []
    for _ in range(queries):
        q = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4)))
        t = time.perf_counter()
        log.search(q, limit=10)
        samples.append((time.perf_counter() - t) * 1000)
    log.close()
    out: dict[str, Any] = {
        "records": size,
        "append_per_s": round(size / append_s, 1),
        "keyword_query": _pct(samples),
    }
    print(
        f"keyword {size}: append {out['append_per_s']:.0f}/s, query p50/p95 "
        f"{out['keyword_query']['p50_ms']}/{out['keyword_query']['p95_ms']} ms"
    )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="10k records only")
    ap.add_argument("--sizes", default="", help="comma-separated record counts (default 10000,100000)")
    ap.add_argument(
        "--true-vectors",
        action="store_true",
        help="sync real embeddings of distinct two-sentence texts instead of sums (slow: ~220 texts/s)",
    )
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s] or ([10000] if args.quick else [10000, 100000])
    result: dict[str, Any] = {"bench": "semantic", "load_avg_1m_start": round(os.getloadavg()[0], 2)}
    result["embeddings_per_s"] = bench_embedder()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        base = None if args.true_vectors else real_sentence_vectors()  # the true vectors replace the sums
        result["chroma"] = {str(s): bench_chroma(s, tmp, base, true_vectors=args.true_vectors) for s in sizes}
        result["keyword"] = {str(s): bench_keyword(s, tmp) for s in sizes}
    result["load_avg_1m_end"] = round(os.getloadavg()[0], 2)
    result["note"] = (
        "sync/query vectors: sums of two real sentence embeddings ('real'; random unit vectors without "
        "LoCoMo), plus a random-vector sync as HNSW's worst case; load averages show CPU contention"
    )
    print(orjson.dumps(result).decode())


if __name__ == "__main__":
    main()
