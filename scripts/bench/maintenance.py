#!/usr/bin/env python3
"""Maintenance at scale: each job's time on a 100k-fact workspace (embedding excluded), and the
wall time of `knowledge-engine maintain --once` (process start and store load included).

Last line: one JSON object. Usage: python scripts/bench/maintenance.py [--facts N] [--messages M]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from knowledge_engine.config import load_config  # noqa: E402
from knowledge_engine.engine import KnowledgeEngine  # noqa: E402
from knowledge_engine.maintenance import run_all  # noqa: E402
from knowledge_engine.model.records import Message  # noqa: E402
from knowledge_engine.store.messages import MessageLog  # noqa: E402


def build(folder: Path, n_facts: int, n_messages: int) -> None:
    """A workspace as the engine writes it: facts with 3 evidence each, 5% superseded, some tombstones."""
    now = datetime.now(UTC)
    t0 = now - timedelta(days=30)
    facts = []
    for i in range(n_facts):
        ts = (t0 + timedelta(seconds=i)).isoformat()
        facts.append({
            "id": f"f-{i:016x}", "subject": f"Person {i % 5000}", "predicate": "likes",
            "object": f"Thing {i}",
            "subject_id": f"person:person-{i % 5000}", "source": "spacy", "confidence": 0.6,
            "relevance": 0.5 + (i % 50) / 100, "created_at": ts, "last_accessed": ts,
            "invalid_at": ts if i % 20 == 0 else None,
            "evidence": [{"message_id": f"m{(i + j) % max(1, n_messages)}", "session": "s", "role": "user",
                          "timestamp": ts} for j in range(3)],
            "updated_at": ts,
        })
    tombs = {f"f-gone-{i}": (t0 - timedelta(days=10)).isoformat() for i in range(1000)}
    meta = {"last_decay_at": (now - timedelta(days=1, hours=2)).isoformat()}
    doc = {"schema": 1, "meta": meta, "tombstones": tombs, "facts": facts}
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "facts.json").write_bytes(orjson.dumps(doc))
    with MessageLog(folder) as log:
        log.append_many(
            Message(id=f"m{i}", text=f"message {i} about person {i % 5000} and thing {i}", role="user",
                    session=f"s{i % 50}", timestamp=t0 + timedelta(seconds=i))
            for i in range(n_messages)
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--facts", type=int, default=100_000)
    ap.add_argument("--messages", type=int, default=20_000)
    args = ap.parse_args()
    cfg_dict = {"embeddings": {"enabled": False}, "storage": {"maxFacts": args.facts + 1},
                "memory": {"maxMessages": args.messages - 1000}}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "ws"
        build(folder, args.facts, args.messages)
        size_mb = (folder / "facts.json").stat().st_size / 1e6
        engine = KnowledgeEngine(load_config(cfg_dict))
        t = time.perf_counter()
        ws = engine.open_workspace(folder)
        load_s = time.perf_counter() - t
        t = time.perf_counter()
        records = run_all(engine, ws)
        jobs_s = time.perf_counter() - t
        engine.stop(30)
        per_job = {r["job"]: {"status": r["status"], "ms": r["duration_ms"]} for r in records}
        for r in records:
            print(f"{r['job']:>10} {r['status']:>8} {r['duration_ms']:>9.1f} ms  {r['changed']}")
        build(folder, args.facts, 0)  # decay due again for the CLI run
        cfg = Path(tmp) / "config.json"
        cfg.write_text(json.dumps(cfg_dict))
        t = time.perf_counter()
        cmd = [sys.executable, "-m", "knowledge_engine.cli.app", "maintain", "--once", "-w", str(folder),
               "-c", str(cfg), "--json"]
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        cli_s = time.perf_counter() - t
    result = {
        "facts": args.facts, "messages": args.messages, "facts_json_mb": round(size_mb, 1),
        "store_load_s": round(load_s, 2), "jobs_s_excluding_load_and_embedding": round(jobs_s, 2),
        "maintain_once_cli_wall_s": round(cli_s, 2), "cli_exit": proc.returncode, "jobs": per_job,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
