#!/usr/bin/env python3
"""CLI benchmark: wall time of `stats`, `facts --json`, `search` and `maintain --once` at 10k and 100k facts.

Each command runs as a subprocess, so interpreter startup and imports are included (what an
operator or a cron job waits for). Workspaces are generated through the stores (no extraction):
N facts over N/10 entities and N/10 messages. `search` is measured twice: keyword arms only
(`--no-semantic`) and with the semantic arms (loads the embedder; the index is synced first for
the 10k workspace only, since embedding 100k facts takes minutes and is measured by the sync bench).
Prints figures; the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from knowledge_engine.config import load_config  # noqa: E402
from knowledge_engine.model.records import Entity, Evidence, Fact, Message, entity_id, fact_id  # noqa: E402
from knowledge_engine.store.workspace import Workspace  # noqa: E402

EXE = str(Path(sys.executable).parent / "knowledge-engine")
PREDICATES = ["works-at", "lives-in", "knows", "likes", "visited", "owns", "studies-at", "manages"]
WORDS = ["alpha", "harbor", "violet", "granite", "maple", "orbit", "cedar", "lumen", "quartz", "tundra"]


def build(folder: Path, n_facts: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    ws = Workspace(folder, load_config({"storage": {"maxFacts": 10 * n_facts, "maxEntities": 10 * n_facts}}))
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    n_ent = max(10, n_facts // 10)
    names = [f"{rng.choice(WORDS).title()} {rng.choice(WORDS).title()} {i}" for i in range(n_ent)]
    for i, name in enumerate(names):
        eid = entity_id("person", name)
        ws.entities.table.put(
            Entity(
                id=eid,
                type="person",
                value=name,
                count=rng.randint(1, 50),
                first_seen=t0,
                last_seen=t0 + timedelta(minutes=i),
            )
        )
    msgs = []
    for i in range(n_facts):
        s, o = rng.sample(range(n_ent), 2)
        pred = rng.choice(PREDICATES)
        mid = f"m-{i // 10}"
        when = t0 + timedelta(minutes=i)
        ws.facts.table.put(
            Fact(
                id=fact_id(names[s], pred, names[o]) + f"{i:x}",
                subject=names[s],
                predicate=pred,
                object=names[o],
                subject_id=entity_id("person", names[s]),
                object_id=entity_id("person", names[o]),
                relevance=rng.random(),
                created_at=when,
                last_accessed=when,
                valid_at=when,
                evidence=[Evidence(message_id=mid, session=f"s{i // 1000}", timestamp=when)],
            )
        )
        if i % 10 == 0:
            msgs.append(
                Message(
                    id=mid,
                    text=f"{names[s]} {pred.replace('-', ' ')} {names[o]} near the "
                    f"{rng.choice(WORDS)} {rng.choice(WORDS)}",
                    role="user",
                    session=f"s{i // 1000}",
                    timestamp=when,
                )
            )
    ws.flush()
    ws.messages.append_many(msgs)
    ws.close()


CPU: dict[str, float] = {}


def timed(args: list[str], repeat: int, key: str = "") -> float:
    """Median wall seconds of `repeat` runs (CPU seconds of the median-wall run go to CPU[key]).

    CPU time is reported next to wall time because a loaded machine (parallel test runs) inflates
    wall time without the command doing more work. A failing command aborts the bench.
    """
    runs = []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        res = subprocess.run([EXE, *args], capture_output=True, env={**os.environ, "COLUMNS": "200"})
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        runs.append((wall, cpu))
        if res.returncode != 0:
            raise SystemExit(f"{args[0]} failed ({res.returncode}): {res.stderr.decode()[-500:]}")
    wall, cpu = sorted(runs)[len(runs) // 2]
    if key:
        CPU[key.replace("_s_", "_cpu_s_")] = round(cpu, 3)
    return round(wall, 3)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="ke-bench-cli-") as tmp:
        for n in [int(x) for x in args.sizes.split(",")]:
            folder = Path(tmp) / f"ws{n}"
            t0 = time.perf_counter()
            build(folder, n)
            print(
                f"built {n} facts in {time.perf_counter() - t0:.1f} s "
                f"({(folder / 'facts.json').stat().st_size >> 20} MB facts.json)"
            )
            w = ["-w", str(folder)]
            tag = f"{n // 1000}k"
            out[f"stats_s_{tag}"] = timed(["stats", *w, "--json"], args.repeat, f"stats_s_{tag}")
            out[f"facts_json_s_{tag}"] = timed(
                ["facts", *w, "--json", "--limit", "200"], args.repeat, f"facts_json_s_{tag}"
            )
            out[f"facts_json_all_s_{tag}"] = timed(
                ["facts", *w, "--json", "--limit", "0"], 1, f"facts_json_all_s_{tag}"
            )
            out[f"search_keyword_s_{tag}"] = timed(
                ["search", "harbor maple works", *w, "--no-semantic", "--json"],
                args.repeat,
                f"search_keyword_s_{tag}",
            )
            if n <= 10000:
                timed(["sync", *w, "--json"], 1)
            out[f"search_semantic_s_{tag}"] = timed(
                ["search", "who works at harbor", *w, "--json"], args.repeat, f"search_semantic_s_{tag}"
            )
            if n >= 100000:
                out[f"maintain_once_s_{tag}"] = timed(
                    [
                        "maintain",
                        *w,
                        "--once",
                        "--json",
                        "--job",
                        "decay",
                        "--job",
                        "prune",
                        "--job",
                        "compact",
                    ],
                    1,
                    f"maintain_once_s_{tag}",
                )
            for k, v in out.items():
                if k.endswith(tag):
                    print(f"{k:28s} {v:8.3f} s wall  {CPU.get(k.replace('_s_', '_cpu_s_'), 0):8.3f} s cpu")
    out.update(CPU)
    out["load_average_1m"] = round(os.getloadavg()[0], 2)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
