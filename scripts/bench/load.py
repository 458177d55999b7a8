#!/usr/bin/env python3
"""Load benchmark: a sustained message stream with bursts into one process, hooks firing meanwhile.

One engine (registered through PluginApi, driven through HookRunner exactly as a host would)
serves several agents. A producer sends `message_received` at --rate msg/s for --duration s,
plus a burst of --burst messages every --burst-every s; --hook-callers tasks call
`before_prompt_build` concurrently the whole time. At the end the engine is flushed and the
figures are printed: accepted, processed, dropped (must be 0), spilled, queue high-water mark,
hook p50/p95/p99 under load, RSS at start, after warm-up and at the end. Last line: one JSON object.

Messages are LoCoMo turns when ../shared/data/locomo is present (real chat text), else the
bundled sample conversation. Embeddings are off by default (the Chroma sync runs on flush and
on a schedule, not on the message path); --embeddings turns them on.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from knowledge_engine.host import HookRunner, PluginApi  # noqa: E402
from knowledge_engine.observe import counters  # noqa: E402
from knowledge_engine.plugin import KnowledgePlugin, register  # noqa: E402
from scripts.bench.common import percentile  # noqa: E402
from scripts.bench.ingest import load_texts  # noqa: E402

COUNTERS = (
    "ingest.accepted",
    "ingest.processed",
    "ingest.dropped",
    "ingest.spilled",
    "ingest.failed",
    "hook.errors",
)


def rss_mb() -> float:
    """Current resident set size (not the peak), from /proc."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@dataclass
class Run:
    sent: int = 0  # all messages, sustained and burst
    steady: int = 0  # the sustained stream's share (paces the stream independently of bursts)
    bursts: int = 0
    hook_ms: list[float] = field(default_factory=list)
    hook_injected: int = 0
    rss_warm: float = 0.0
    stop: bool = False
    round: int = 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--duration", type=float, default=60.0, help="Seconds of sustained stream.")
    p.add_argument("--rate", type=float, default=200.0, help="Sustained messages per second.")
    p.add_argument("--agents", type=int, default=4, help="Agents (workspaces) in the one process.")
    p.add_argument("--burst", type=int, default=2000, help="Messages per burst (0 = none).")
    p.add_argument(
        "--burst-every", type=float, default=20.0, help="Seconds between bursts (first at this time)."
    )
    p.add_argument("--hook-callers", type=int, default=2, help="Concurrent before_prompt_build loops.")
    p.add_argument(
        "--hook-interval", type=float, default=0.05, help="Pause of each hook loop between calls (s)."
    )
    p.add_argument(
        "--warmup",
        type=float,
        default=0.5,
        help="Share of the duration counted as warm-up for RSS (0.5 includes the first burst by default).",
    )
    p.add_argument(
        "--rounds", type=int, default=1, help="Repeat the whole stream in the same process (leak check)."
    )
    p.add_argument("--flush-timeout", type=float, default=1800.0, help="Seconds allowed to drain at the end.")
    p.add_argument(
        "--embeddings", action="store_true", help="Keep the semantic layer on (Chroma sync on flush)."
    )
    p.add_argument("--workspace-root", type=Path, default=None, help="Where the agents' workspaces go (tmp).")
    return p.parse_args(argv)


def plugin_config(root: Path, embeddings: bool) -> dict[str, Any]:
    return {
        "workspaceTemplate": "{workspaceDir}/ke",
        "workspaceRoot": str(root / "agents"),
        "embeddings": {"enabled": embeddings},
        "maintenance": {"enabled": False},
    }


def _ctx(root: Path, agent: str) -> dict[str, Any]:
    return {
        "agentId": agent,
        "sessionKey": f"agent:{agent}:main",
        "workspaceDir": str(root / agent),
        "trigger": "user",
    }


async def _send(runner: HookRunner, root: Path, agent: str, n: str, text: str) -> None:
    event = {
        "content": text,
        "messageId": f"{agent}-{n}",
        "sessionKey": f"agent:{agent}:main",
        "from": "u",
        "metadata": {"senderName": f"User {agent}"},
    }
    await runner.run("message_received", event, {"channelId": "bench", "sessionKey": f"agent:{agent}:main"})


async def producer(
    runner: HookRunner, root: Path, agents: list[str], texts: list[str], args: argparse.Namespace, run: Run
) -> None:
    loop = asyncio.get_running_loop()
    start = loop.time()
    next_burst = args.burst_every
    warm_at = args.duration * args.warmup

    async def send_next() -> None:
        i = run.sent
        await _send(runner, root, agents[i % len(agents)], f"{run.round}-{i}", texts[i % len(texts)])
        run.sent += 1

    while (elapsed := loop.time() - start) < args.duration:
        due = int(elapsed * args.rate)
        while run.steady < due:
            await send_next()
            run.steady += 1
        if args.burst and elapsed >= next_burst:
            for _ in range(args.burst):
                await send_next()
            run.bursts += 1
            next_burst += args.burst_every
        if not run.rss_warm and run.round == 0 and elapsed >= warm_at:
            run.rss_warm = rss_mb()
        await asyncio.sleep(0.005)
    run.stop = True


async def hook_caller(
    runner: HookRunner,
    root: Path,
    agents: list[str],
    texts: list[str],
    args: argparse.Namespace,
    run: Run,
    seed: int,
) -> None:
    rng = random.Random(seed)
    while not run.stop:
        agent = rng.choice(agents)
        words = rng.choice(texts).split()
        query = "What do you remember about " + " ".join(words[:8]) + "?"
        t0 = time.perf_counter()
        result = await runner.run("before_prompt_build", {"prompt": query, "messages": []}, _ctx(root, agent))
        run.hook_ms.append((time.perf_counter() - t0) * 1000)
        run.hook_injected += bool(result)
        await asyncio.sleep(args.hook_interval)


async def drive(
    runner: HookRunner, root: Path, agents: list[str], texts: list[str], args: argparse.Namespace, run: Run
) -> None:
    for agent in agents:
        await runner.run(
            "session_start",
            {"sessionId": f"{agent}-s", "sessionKey": f"agent:{agent}:main"},
            _ctx(root, agent),
        )
    tasks = [hook_caller(runner, root, agents, texts, args, run, i) for i in range(args.hook_callers)]
    await asyncio.gather(producer(runner, root, agents, texts, args, run), *tasks)


def measure(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    api = PluginApi("knowledge-engine", plugin_config(root, args.embeddings))
    plugin: KnowledgePlugin | None = register(api)
    assert plugin is not None
    engine = plugin.engine
    engine.pipeline  # load spaCy before the clock starts  # noqa: B018
    runner = HookRunner(api.registrations)
    texts = load_texts(5000)
    agents = [f"agent{i}" for i in range(args.agents)]
    before = {k: counters.get(k) for k in COUNTERS}
    rss_start = rss_mb()
    run = Run()
    rss_rounds: list[float] = []
    stream_s = drain_s = 0.0
    flushed = True
    for r in range(max(1, args.rounds)):  # later rounds reuse the engine: RSS growth there is not filling up
        t0 = time.perf_counter()
        run.round, run.stop, run.steady = r, False, 0
        asyncio.run(drive(runner, root, agents, texts, args, run))
        stream_s += time.perf_counter() - t0
        t1 = time.perf_counter()
        flushed = engine.flush(args.flush_timeout, sync=args.embeddings) and flushed
        drain_s += time.perf_counter() - t1
        rss_rounds.append(round(rss_mb(), 1))
    delta = {k: counters.get(k) - before[k] for k in COUNTERS}
    stored = sum(ws.messages.count() for ws in engine.workspaces())
    rss_end = rss_mb()
    engine.stop(10)
    warm = run.rss_warm or rss_start
    return {
        "duration_s": args.duration,
        "rate": args.rate,
        "agents": args.agents,
        "burst": args.burst,
        "bursts": run.bursts,
        "sent": run.sent,
        "accepted": delta["ingest.accepted"],
        "processed": delta["ingest.processed"],
        "dropped": delta["ingest.dropped"],
        "spilled": delta["ingest.spilled"],
        "failed": delta["ingest.failed"],
        "stored_messages": stored,
        "flushed": flushed,
        "queue_high_water": engine.queue.high_water,
        "achieved_rate": round(run.sent / stream_s, 1),
        "drain_after_stream_s": round(drain_s, 2),
        "hook_calls": len(run.hook_ms),
        "hook_injected": run.hook_injected,
        "hook_errors": delta["hook.errors"],
        "hook_p50_ms": round(percentile(run.hook_ms, 50), 2),
        "hook_p95_ms": round(percentile(run.hook_ms, 95), 2),
        "hook_p99_ms": round(percentile(run.hook_ms, 99), 2),
        "rss_start_mb": round(rss_start, 1),
        "rss_warm_mb": round(warm, 1),
        "rss_end_mb": round(rss_end, 1),
        "rss_growth_after_warmup": round((rss_end - warm) / warm, 4) if warm else None,
        "rss_after_round_mb": rss_rounds,
        "rss_growth_last_round": round((rss_rounds[-1] - rss_rounds[-2]) / rss_rounds[-2], 4)
        if len(rss_rounds) > 1
        else None,
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    if args.workspace_root is not None:
        result = measure(args, args.workspace_root)
    else:
        with tempfile.TemporaryDirectory(prefix="ke-load-") as tmp:
            result = measure(args, Path(tmp))
    print(
        f"sent {result['sent']} ({result['achieved_rate']} msg/s, {result['bursts']} bursts of {args.burst}) "
        f"to {args.agents} agents; accepted {result['accepted']}, processed {result['processed']}, "
        f"dropped {result['dropped']}, spilled {result['spilled']}; "
        f"queue high-water {result['queue_high_water']}"
    )
    print(
        f"before_prompt_build under load: {result['hook_calls']} calls, p50 {result['hook_p50_ms']} ms, "
        f"p95 {result['hook_p95_ms']} ms, p99 {result['hook_p99_ms']} ms"
    )
    print(
        f"RSS start {result['rss_start_mb']} MB, after warm-up {result['rss_warm_mb']} MB, "
        f"end {result['rss_end_mb']} MB (growth after warm-up {result['rss_growth_after_warmup']})"
    )
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
