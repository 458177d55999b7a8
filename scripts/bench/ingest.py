#!/usr/bin/env python3
"""Ingest benchmark: extraction throughput, hook latency, store load/flush at scale, peak RSS.

Messages are the turns of the LoCoMo dev conversations (../shared/data/locomo) when present,
else the bundled sample conversation. Prints figures; the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from knowledge_engine.config import load_config  # noqa: E402
from knowledge_engine.extract.pipeline import ExtractionPipeline  # noqa: E402
from knowledge_engine.store.records import Evidence, Message  # noqa: E402
from knowledge_engine.store.workspace import Workspace  # noqa: E402

LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"


def load_texts(limit: int) -> list[str]:
    texts: list[str] = []
    if LOCOMO.exists():
        for conv in json.loads(LOCOMO.read_text()):
            c = conv["conversation"]
            for key, turns in c.items():
                if key.startswith("session_") and isinstance(turns, list):
                    texts.extend(t["text"] for t in turns if t.get("text"))
    else:
        sample = ROOT / "knowledge_engine" / "data" / "sample_conversation.jsonl"
        texts = [json.loads(line)["text"] for line in sample.read_text().splitlines() if line.strip()]
    while len(texts) < limit:
        texts = texts + texts
    return texts[:limit]


def messages(texts: list[str]) -> list[Message]:
    return [
        Message(id=f"m{i}", text=t, role="user" if i % 2 == 0 else "assistant", speaker="Ann")
        for i, t in enumerate(texts)
    ]


def throughput(pipeline: ExtractionPipeline, msgs: list[Message], batch: int = 256) -> float:
    pipeline.run(msgs[:64])  # warm-up (model load, caches)
    t0 = time.perf_counter()
    for i in range(0, len(msgs), batch):
        pipeline.run(msgs[i : i + batch])
    return len(msgs) / (time.perf_counter() - t0)


def hook_latency(n: int) -> tuple[float, float]:
    from knowledge_engine.host import PluginApi
    from knowledge_engine.plugin import register

    with tempfile.TemporaryDirectory() as tmp:
        api = PluginApi(
            "knowledge-engine", {"workspace": tmp + "/{agentId}", "retrieval": {"enabled": False}}
        )
        plugin = register(api)
        assert plugin is not None
        handler = plugin.message_received
        lat: list[float] = []

        async def go() -> None:
            for i in range(n):
                ev = {
                    "content": f"Message {i} about Acme Corp in Berlin",
                    "messageId": f"h{i}",
                    "sessionKey": "agent:bench:main",
                }
                t0 = time.perf_counter()
                await handler(ev, {"channelId": "bench"})
                lat.append((time.perf_counter() - t0) * 1000)

        asyncio.run(go())
        plugin.engine.stop(30)
    lat.sort()
    return lat[len(lat) // 2], lat[int(len(lat) * 0.99)]


def store_scale(n: int) -> tuple[float, float]:
    cfg = load_config({"storage": {"writeDebounceMs": 0, "maxFacts": n * 2}})
    rnd = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace(Path(tmp), cfg)
        for i in range(n):
            ws.facts.add(
                f"person {i % 5000}",
                rnd.choice(["likes", "visited", "works-on"]),
                f"thing {i}",
                evidence=[Evidence(message_id=f"m{i}", session="s1", role="user")],
            )
        t0 = time.perf_counter()
        ws.facts.table.flush(force=True)
        flush_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        again = Workspace(Path(tmp), cfg)
        load_s = time.perf_counter() - t0
        assert len(again.facts) == n
    return load_s, flush_s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--messages", type=int, default=5000)
    ap.add_argument("--json", action="store_true", help="only the JSON line")
    args = ap.parse_args()
    msgs = messages(load_texts(args.messages))
    base = load_config({})
    regex_only = ExtractionPipeline(
        base.extraction.model_copy(
            update={"spacy": base.extraction.spacy.model_copy(update={"enabled": False})}
        )
    )
    full = ExtractionPipeline(base.extraction)
    out: dict[str, float | int | str] = {}
    out["messages"] = len(msgs)
    out["regex_msgs_per_s"] = round(throughput(regex_only, msgs), 1)
    out["regex_spacy_msgs_per_s"] = round(throughput(full, msgs[: min(len(msgs), 3000)]), 1)
    p50, p99 = hook_latency(5000)
    out["hook_message_received_p50_ms"] = round(p50, 4)
    out["hook_message_received_p99_ms"] = round(p99, 4)
    for n in (10_000, 100_000):
        load_s, flush_s = store_scale(n)
        out[f"store_load_{n // 1000}k_s"] = round(load_s, 3)
        out[f"store_flush_{n // 1000}k_s"] = round(flush_s, 3)
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    out["data"] = "locomo-dev" if LOCOMO.exists() else "sample"
    if not args.json:
        for k, v in out.items():
            print(f"{k:34s} {v}")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
