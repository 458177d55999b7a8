#!/usr/bin/env python3
"""The storage backends side by side (issue 17): the file store and PostgreSQL with 1, 2 and 4 nodes.

For each backend a store of --facts facts and --messages messages is built once (the retrieval
bench's data: repeated LoCoMo turns, distinct synthetic facts; scripts/bench/retrieval.fill), then for
each node count N engine processes (tests/pg_node_process.py: the plugin through the reference host,
spaCy in-process) serve the same agent. Files: every node opens the one shared folder (lock + merge;
the first node owns the ingest journal). PostgreSQL: every node has its own folder (its journal) and
the one database (a server of its own in a temp dir unless --pg-url).

Measured per (backend, N):
- ingest msg/s: N nodes feed --ingest messages each through `message_received` at once; the rate is
  all messages over the time from the first hook to the last node's successful flush (the messages and
  what was extracted from them are in the store);
- `message_received` p99 (ms, all nodes' hooks pooled);
- `before_prompt_build` p50/p95 (ms): --queries LoCoMo questions per node, all nodes at once, embeddings
  off (the keyword and fact arms: what the backend serves; the vector arm needs a model and is the
  retrieval bench's subject).

Targets reported: PostgreSQL `before_prompt_build` p95 <= 50 ms and ingest >= 80 % of the file
backend's at one node; PostgreSQL aggregate ingest grows with nodes. Last line: one JSON object.

Usage: .venv/bin/python scripts/bench/backend.py [--facts 10000] [--messages 50000] [--ingest 400]
       [--queries 100] [--nodes 1,2,4] [--backends files,postgres] [--pg-url URL] [--quick] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import logging
import os
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from scripts.bench.common import LOCOMO_DEV, load_locomo, percentile
from scripts.bench.retrieval import fill
from tests.pg_node_process import NodeProc

AGENT = "bench"
WARM_UP = 5
QUICK = {"facts": 1000, "messages": 5000, "ingest": 100, "queries": 30}


def node_config(backend: str, folder: Path, url: str | None) -> dict[str, Any]:
    storage: dict[str, Any] = {"backend": backend, "writeDebounceMs": 200}
    if url is not None:
        storage["postgres"] = {"url": url}
    return {
        "workspace": str(folder / "{agentId}"),
        "embeddings": {"enabled": False},
        "maintenance": {"enabled": False},
        "retrieval": {"cacheTtlMs": 0},
        "storage": storage,
        "extraction": {"spacy": {"workers": 0}, "llm": {"enabled": False}},
    }


@contextlib.contextmanager
def database(pg_url: str | None) -> Iterator[str]:
    """A fresh database on the given server, or on a server of our own in a temp dir."""
    import psycopg

    with contextlib.ExitStack() as stack:
        if pg_url is None:
            from tests.fixtures.postgres import pg_server_in_tempdir

            pg_url = stack.enter_context(pg_server_in_tempdir()).url
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute('DROP DATABASE IF EXISTS "ke_bench" WITH (FORCE)')
            conn.execute('CREATE DATABASE "ke_bench"')
        yield psycopg.conninfo.make_conninfo(pg_url, dbname="ke_bench")


def build(backend: str, root: Path, url: str | None, n_messages: int, n_facts: int) -> dict[str, Any]:
    """The store every run of this backend starts from, written through a Workspace of this process."""
    from knowledge_engine.config import load_config
    from knowledge_engine.store.workspace import Workspace

    folder = root / ("shared" if backend == "files" else "builder")
    t0 = time.perf_counter()
    ws = Workspace(folder / AGENT, load_config(node_config(backend, folder, url)), AGENT)
    fill(ws, n_messages, n_facts)
    ws.close()
    return {"build_s": round(time.perf_counter() - t0, 1)}


def node_folder(backend: str, root: Path, k: int) -> Path:
    return root / "shared" if backend == "files" else root / f"node{k}"


def run_nodes(
    backend: str, root: Path, url: str | None, n: int, args: argparse.Namespace, questions: list[str]
) -> dict[str, Any]:
    """One (backend, N) row: start N nodes, ingest on all at once, then prompts on all at once."""
    nodes: list[NodeProc] = []
    try:
        for k in range(n):
            folder = node_folder(backend, root, k)
            tag = f"{n}n{k}"
            nodes.append(
                NodeProc(
                    node_config(backend, folder, url),
                    AGENT,
                    root / f"ack-{tag}",
                    root / f"node-{tag}.log",
                    timeout=600,
                )
            )
        for k, node in enumerate(nodes):
            node.send(op="feed", prefix=f"{backend}-{n}n{k}", start=0, stop=args.ingest, kind="bench")
        fed = [node.result(1800) for node in nodes]
        for node in nodes:
            node.send(op="flush", timeout=1800)
        flushed = [node.result(1900) for node in nodes]
        ingest_s = max(f["t"] for f in flushed) - min(f["first"] for f in fed)
        for k, node in enumerate(nodes):
            qs = random.Random(k).sample(questions, min(args.queries + WARM_UP, len(questions)))
            node.send(op="prompts", questions=qs)
        # the first prompts of a node build its caches (the fact term index): not counted, as in retrieval.py
        prompt_ms = [ms for node in nodes for ms in node.result(1800)["prompt_ms"][WARM_UP:]]
    finally:
        for node in nodes:
            node.stop()
    hook_ms = [ms for f in fed for ms in f["hook_ms"]]
    return {
        "backend": backend,
        "nodes": n,
        "flushed_ok": all(f["ok"] for f in flushed),
        "ingest_messages": n * args.ingest,
        "ingest_msg_s": round(n * args.ingest / ingest_s, 1),
        "message_received_p99_ms": round(percentile(hook_ms, 99), 3),
        "before_prompt_build_p50_ms": round(percentile(prompt_ms, 50), 2),
        "before_prompt_build_p95_ms": round(percentile(prompt_ms, 95), 2),
    }


def run_backend(
    backend: str, root: Path, url: str | None, args: argparse.Namespace, questions: list[str]
) -> list[dict[str, Any]]:
    built = build(backend, root, url, args.messages, args.facts)
    rows = []
    for n in args.nodes:
        row = run_nodes(backend, root, url, n, args, questions)
        rows.append({**row, **built})
        if not args.json:
            print(row, flush=True)
    return rows


def targets(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The issue's targets against the rows measured (None: not measured in this run)."""
    by = {(r["backend"], r["nodes"]): r for r in rows}
    pg1, files1 = by.get(("postgres", 1)), by.get(("files", 1))
    pg = sorted((r for r in rows if r["backend"] == "postgres"), key=lambda r: r["nodes"])
    rates = [r["ingest_msg_s"] for r in pg]
    return {
        "postgres_prompt_p95_le_50ms": None if pg1 is None else pg1["before_prompt_build_p95_ms"] <= 50,
        "postgres_ingest_ratio_1_node": None
        if pg1 is None or files1 is None
        else round(pg1["ingest_msg_s"] / files1["ingest_msg_s"], 2),
        "postgres_ingest_ge_80pct_files": None
        if pg1 is None or files1 is None
        else pg1["ingest_msg_s"] >= 0.8 * files1["ingest_msg_s"],
        "postgres_ingest_grows_with_nodes": None
        if len(rates) < 2
        else all(b > a for a, b in itertools.pairwise(rates)),
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--facts", type=int, default=10000)
    ap.add_argument("--messages", type=int, default=50000)
    ap.add_argument("--ingest", type=int, default=400, help="messages fed per node")
    ap.add_argument("--queries", type=int, default=100, help="before_prompt_build calls per node")
    ap.add_argument("--nodes", default="1,2,4")
    ap.add_argument("--backends", default="files,postgres")
    ap.add_argument("--pg-url", default=None, help="a server to use (default: one of our own in a temp dir)")
    ap.add_argument("--quick", action="store_true", help=f"a small run: {QUICK}")
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    args = ap.parse_args(argv)
    if args.quick:
        for key, value in QUICK.items():
            setattr(args, key, value)
    args.nodes = [int(n) for n in args.nodes.split(",")]
    args.backends = args.backends.split(",")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    if not LOCOMO_DEV.exists():
        print(f"LoCoMo file not found: {LOCOMO_DEV}", file=sys.stderr)
        return 2
    questions = [q.question for c in load_locomo(LOCOMO_DEV) for q in c.questions if q.question]
    rows: list[dict[str, Any]] = []
    load_before = os.getloadavg()[0]  # the figures are only comparable on an otherwise idle machine
    with tempfile.TemporaryDirectory(prefix="backend-bench-") as tmp:
        for backend in args.backends:
            root = Path(tmp) / backend
            root.mkdir()
            if backend == "postgres":
                with database(args.pg_url) as url:
                    rows += run_backend(backend, root, url, args, questions)
                    from knowledge_engine.store.postgres.connect import close_all

                    close_all()
            else:
                rows += run_backend(backend, root, None, args, questions)
    out = {
        "bench": "backend",
        "facts": args.facts,
        "messages": args.messages,
        "ingest_per_node": args.ingest,
        "queries_per_node": args.queries,
        "embeddings": False,
        "load_average": [round(load_before, 1), round(os.getloadavg()[0], 1)],
        "cpus": os.cpu_count(),
        "rows": rows,
        "targets": targets(rows),
    }
    print(orjson.dumps(out).decode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
