#!/usr/bin/env python3
"""Facts benchmark: spaCy fact tier throughput and quality, LLM batching and end-to-end latency.

1. spaCy fact tier messages/s: the real SpacyTier (NER + dependency triples) over LoCoMo turns
   (../shared/data/locomo) or the bundled sample conversation, in the engine's batch size; with
   the default `extraction.spacy.workers` (worker processes) and in-process (`spacy_inprocess_*`).
2. Precision/recall on tests/data/facts_labelled.jsonl, scored exactly as
   tests/test_extract_dependency_quality.py scores it (same matching rule). `--save-rows FILE` keeps
   each row's prediction as a digest; `--changed-rows FILE` then counts, per split, the rows whose
   prediction changed since (dev rows by id; held-out rows only counted, never shown, since a
   digest cannot be read back). `--labelled-only` runs this part alone (seconds).
3. LLM batches vs messages: a burst of n messages through the hooks into an engine with the LLM
   tier on, against the loopback Ollama server (tests/servers/ollama_server.py); counts the
   /api/chat calls (expected ceil(n / batchSize)) and checks every message got its LLM fact.
4. End to end: time from `message_received` returning to the LLM fact being in the store, with
   batchSize 1 (a batch is sent as soon as a message arrives), median and max of several runs.

Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from knowledge_engine.config import SpacyConfig  # noqa: E402
from knowledge_engine.extract.spacy_ner import SpacyTier  # noqa: E402
from knowledge_engine.extract.workers import resolve_workers  # noqa: E402
from knowledge_engine.host import HookRunner, PluginApi  # noqa: E402
from knowledge_engine.index.embeddings.local import LocalEmbedder  # noqa: E402
from knowledge_engine.model.records import Message  # noqa: E402
from knowledge_engine.plugin import KnowledgePlugin, register  # noqa: E402
from scripts.bench.ingest import load_texts  # noqa: E402
from tests.servers.ollama_server import FakeOllamaServer  # noqa: E402
from tests.test_extract_dependency_quality import DATA, score  # noqa: E402


def _cpu_s(pids: list[int]) -> float:
    """CPU seconds (user + system) used so far by this process and the given worker processes."""
    total = time.process_time()
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def spacy_throughput(n: int, batch: int, workers: int | str = "auto", repeat: int = 1) -> dict[str, Any]:
    """Best of `repeat` passes; keys prefixed `spacy_` (pool) or `spacy_inprocess_` (workers = 0)."""
    tier = SpacyTier(SpacyConfig(batch_size=batch, workers=workers), embedder=LocalEmbedder)
    assert tier.available, "spaCy model not installed"
    texts = load_texts(n)
    msgs = [Message(id=f"t{i}", text=t, role="user", speaker="Alex") for i, t in enumerate(texts)]
    tier.extract(msgs[:batch])  # warm-up (model load, first batch)
    best: tuple[float, float, int] = (float("inf"), 0.0, 0)
    for _ in range(repeat):
        pids = tier.pids()
        t0, c0 = time.perf_counter(), _cpu_s(pids)
        facts = 0
        for start in range(0, len(msgs), batch):
            facts += sum(len(ex.facts) for ex in tier.extract(msgs[start : start + batch]))
        elapsed, cpu = time.perf_counter() - t0, _cpu_s(pids) - c0
        best = min(best, (elapsed, cpu, facts))
    tier.close()
    elapsed, cpu, facts = best
    prefix = "spacy_inprocess" if tier.workers == 0 else "spacy"
    return {
        f"{prefix}_messages": len(msgs),
        f"{prefix}_msg_per_s": round(len(msgs) / elapsed, 1),
        # per CPU-second of this process and its spaCy workers: comparable across runs on a busy machine
        f"{prefix}_msg_per_cpu_s": round(len(msgs) / cpu, 1) if cpu else None,
        f"{prefix}_facts": facts,
    }


def row_digest(predicted: list[tuple[str, str, str]]) -> str:
    """A row's prediction, compared between runs without being readable (held-out rows stay unread)."""
    return hashlib.sha256(json.dumps(sorted(predicted)).encode()).hexdigest()[:16]


def changed_rows(before: dict[str, dict[str, str]], now: dict[str, dict[str, str]]) -> dict[str, Any]:
    """Per split: how many rows' predictions differ from `before` (a row in only one of them counts);
    the dev split also names them."""
    out: dict[str, Any] = {}
    for split in sorted(set(before) | set(now)):
        old, new = before.get(split, {}), now.get(split, {})
        ids = sorted(i for i in set(old) | set(new) if old.get(i) != new.get(i))
        out[f"changed_{split}"] = len(ids)
        if split == "dev":
            out["changed_dev_ids"] = ids
    return out


def labelled_quality(digests: dict[str, dict[str, str]] | None = None) -> dict[str, Any]:
    """Precision and recall per split; each row's prediction digest goes into `digests` (per split)."""
    tier = SpacyTier(SpacyConfig(), embedder=LocalEmbedder)  # as the engine builds it
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    msgs = [
        Message(id=str(r["id"]), text=str(r["text"]), role=str(r["role"]), speaker=r["speaker"]) for r in rows
    ]
    totals = {"all": [0, 0, 0], "dev": [0, 0, 0], "heldout": [0, 0, 0]}
    extractions = tier.extract(msgs)
    tier.close()
    for row, ex in zip(rows, extractions, strict=True):
        predicted = [(f.subject, f.predicate, f.object) for f in ex.facts]
        if digests is not None:
            digests.setdefault(str(row.get("split", "dev")), {})[str(row["id"])] = row_digest(predicted)
        counts = score(predicted, [tuple(t) for t in row["triples"]])
        for split in ("all", str(row.get("split", "dev"))):
            totals[split] = [a + b for a, b in zip(totals[split], counts, strict=True)]
    out: dict[str, Any] = {"labelled_messages": len(rows)}
    for split, (tp, fp, fn) in totals.items():
        out[f"precision_{split}"] = round(tp / (tp + fp), 3) if tp + fp else 1.0
        out[f"recall_{split}"] = round(tp / (tp + fn), 3) if tp + fn else 1.0
    return out


def person(i: int) -> str:
    """Distinct capitalised names the fake server's patterns recognise (letters only)."""
    return "N" + "".join(chr(97 + int(d)) for d in str(i))


def _plugin(root: Path, server: FakeOllamaServer, batch_size: int) -> tuple[KnowledgePlugin, HookRunner]:
    config = {
        "workspaceTemplate": "{workspaceDir}/ke",
        "workspaceRoot": str(root / "agents"),
        "embeddings": {"enabled": False},
        "maintenance": {"enabled": False},
        "extraction": {
            "llm": {
                "enabled": True,
                "endpoint": server.url,
                "batchSize": batch_size,
                "cooldownMs": 600000,
                "retryBackoffMs": 50,
            }
        },
    }
    api = PluginApi("knowledge-engine", config)
    plugin = register(api)
    assert plugin is not None
    plugin.engine.pipeline  # noqa: B018
    return plugin, HookRunner(api.registrations)


async def _send(runner: HookRunner, folder: Path, i: int, text: str) -> None:
    ctx = {"agentId": "bench", "sessionKey": "agent:bench:main", "workspaceDir": str(folder)}
    if i == 0:
        await runner.run("session_start", {"sessionId": "b", "sessionKey": "agent:bench:main"}, ctx)
    event = {
        "content": text,
        "messageId": f"m{i}",
        "sessionKey": "agent:bench:main",
        "from": "u",
        "timestamp": "2026-11-29T10:00:00Z",
        "metadata": {"senderName": "Alex"},
    }
    await runner.run("message_received", event, {"channelId": "bench", "sessionKey": "agent:bench:main"})


def llm_batches(root: Path, n: int, batch_size: int) -> dict[str, Any]:
    server = FakeOllamaServer().start()
    plugin, runner = _plugin(root / "batches", server, batch_size)
    folder = root / "batches" / "agent"

    async def burst() -> None:
        for i in range(n):
            await _send(runner, folder, i, f"{person(i)} works at Company{i}.")

    try:
        asyncio.run(burst())
        plugin.engine.flush(300, sync=False)  # the partial last batch goes out at flush
        ws = plugin.engine.workspace("bench", str(folder))
        stats = plugin.engine.llm_stats(ws) or {}
        with_fact = sum(1 for i in range(n) if _has_llm_fact(ws, person(i)))
        calls = len(server.calls())
    finally:
        plugin.engine.stop(10)
        server.stop()
    return {
        "llm_messages": n,
        "llm_batch_size": batch_size,
        "llm_calls": calls,
        "llm_calls_expected": math.ceil(n / batch_size),
        "llm_delivered_messages": stats.get("delivered_messages"),
        "llm_messages_with_fact": with_fact,
    }


def _has_llm_fact(ws: Any, subject: str) -> bool:
    """The LLM's triple is in the store (as a new fact, or reinforcing the spaCy tier's same fact)."""
    ent = ws.entities.resolve(subject)
    if ent is None or "llm" not in ent.sources:
        return False
    return any(f.subject == ent.value and f.predicate == "works-at" for f in ws.facts.all())


def llm_end_to_end(root: Path, runs: int) -> dict[str, Any]:
    server = FakeOllamaServer().start()
    plugin, runner = _plugin(root / "e2e", server, 1)
    folder = root / "e2e" / "agent"
    ws = plugin.engine.workspace("bench", str(folder))
    times: list[float] = []
    try:
        for i in range(runs):
            subject = person(10_000 + i)
            t0 = time.perf_counter()
            asyncio.run(_send(runner, folder, i, f"{subject} works at Initech{i}."))
            deadline = t0 + 60
            while time.perf_counter() < deadline:
                if _has_llm_fact(ws, subject):
                    times.append((time.perf_counter() - t0) * 1000)
                    break
                time.sleep(0.002)
    finally:
        plugin.engine.stop(10)
        server.stop()
    return {
        "llm_e2e_runs": runs,
        "llm_e2e_found": len(times),
        "llm_e2e_median_ms": round(statistics.median(times), 1) if times else None,
        "llm_e2e_max_ms": round(max(times), 1) if times else None,
    }


def labelled_report(save: Path | None, since: Path | None) -> dict[str, Any]:
    """Part 2, printed; with the digests saved and/or compared with an earlier run's."""
    digests: dict[str, dict[str, str]] = {}
    result = labelled_quality(digests)
    print(
        f"labelled set ({result['labelled_messages']} messages): P {result['precision_all']} "
        f"R {result['recall_all']} (held-out P {result['precision_heldout']} R {result['recall_heldout']})"
    )
    if since is not None:
        result.update(changed_rows(json.loads(since.read_text(encoding="utf-8")), digests))
        print(
            "rows changed since "
            + str(since)
            + ": "
            + ", ".join(
                f"{k[len('changed_') :]} {v}"
                for k, v in result.items()
                if k.startswith("changed_") and k != "changed_dev_ids"
            )
            + (f" (dev: {', '.join(result['changed_dev_ids'])})" if result.get("changed_dev_ids") else "")
        )
    if save is not None:
        save.write_text(json.dumps(digests, sort_keys=True), encoding="utf-8")
    return result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--messages", type=int, default=2000, help="Messages for the spaCy throughput run.")
    p.add_argument("--batch", type=int, default=64, help="spaCy batch size (the engine's default).")
    p.add_argument("--llm-messages", type=int, default=95, help="Messages in the LLM burst.")
    p.add_argument("--llm-batch-size", type=int, default=10, help="extraction.llm.batchSize.")
    p.add_argument("--e2e-runs", type=int, default=10, help="Messages timed end to end.")
    p.add_argument("--repeat", type=int, default=1, help="spaCy throughput passes; the best is kept.")
    p.add_argument("--labelled-only", action="store_true", help="Only the labelled set's part (2).")
    p.add_argument("--save-rows", type=Path, help="Write each labelled row's prediction digest here.")
    p.add_argument("--changed-rows", type=Path, help="Count the rows changed since a --save-rows file.")
    args = p.parse_args(argv)
    if args.labelled_only:
        result = labelled_report(args.save_rows, args.changed_rows)
        print(json.dumps(result))
        return result
    result: dict[str, Any] = {"spacy_workers": resolve_workers(SpacyConfig().workers)}
    result.update(spacy_throughput(args.messages, args.batch, repeat=args.repeat))
    result.update(spacy_throughput(args.messages, args.batch, workers=0, repeat=args.repeat))
    for prefix, how in (("spacy", f"{result['spacy_workers']} workers"), ("spacy_inprocess", "in-process")):
        print(
            f"spaCy fact tier ({how}): {result[f'{prefix}_msg_per_s']} msg/s wall, "
            f"{result[f'{prefix}_msg_per_cpu_s']} msg per CPU-s, "
            f"over {result[f'{prefix}_messages']} messages"
        )
    result.update(labelled_report(args.save_rows, args.changed_rows))
    with tempfile.TemporaryDirectory(prefix="ke-facts-") as tmp:
        result.update(llm_batches(Path(tmp), args.llm_messages, args.llm_batch_size))
        print(
            f"LLM: {result['llm_calls']} calls for {result['llm_messages']} messages "
            f"(expected {result['llm_calls_expected']}); {result['llm_messages_with_fact']} got their fact"
        )
        result.update(llm_end_to_end(Path(tmp), args.e2e_runs))
        print(
            f"message_received -> stored LLM fact: median {result['llm_e2e_median_ms']} ms, "
            f"max {result['llm_e2e_max_ms']} ms ({result['llm_e2e_found']}/{result['llm_e2e_runs']} found)"
        )
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
