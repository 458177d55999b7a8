"""One engine process ("node") for the multi-node tests and the backend bench (issue 17).

A fresh interpreter that registers the plugin through the reference host (as a gateway would), with
its own workspace folder (its ingest journal) and the shared agent, and obeys JSON commands on stdin,
one per line, answering each with one JSON line on stdout:

- `{"op": "feed", "prefix": "a", "start": 0, "stop": 100, "kind": "stream"|"same"|"bench", "delay": 0}`:
  messages `<prefix>-<i>` through `message_received`; after each hook returns the id is appended to the
  ack file (acknowledged). `"messages": [[id, text], ...]` feeds exactly these instead. Answers with the
  hook latencies (ms) and the wall-clock times of the first and last hook.
- `{"op": "flush", "timeout": 60}`: `engine.flush` until it reports success (or the timeout).
- `{"op": "prompt", "prompt": q, "needle": s, "section": "Known Facts", "timeout": 60}`:
  `before_prompt_build` until the injected block (its `### section`, if given) contains `needle`;
  answers with the wall-clock time it first did (`seen`).
- `{"op": "prompts", "questions": [...]}`: one `before_prompt_build` each; the latencies (ms).
- `{"op": "counters"}`, `{"op": "stop"}`.

Started as `python tests/pg_node_process.py CONFIG_JSON AGENT ACK_FILE`; prints `{"ready": ...}` once the
workspace is open and the extraction tiers are loaded.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from knowledge_engine.host import HookRunner, PluginApi
from knowledge_engine.observe import counters
from knowledge_engine.plugin import register
from tests.test_integrity_harness import GEN  # the harness's message stream

SAME = "Dana Reyes works at Globex Corporation."  # every "same" message states this one fact


def text_for(kind: str, i: int) -> str:
    """Message i of a stream kind: the integrity harness's realistic stream, one shared fact, or the
    bench's (the stream with the number in it, so no two bench messages are alike)."""
    if kind == "same":
        return SAME
    text: str = GEN["text_of"](i)
    return f"{text} Ticket {i}." if kind == "bench" else text


def section(block: str, heading: str | None) -> str:
    """The part of an injected block under `### heading` (the whole block when None)."""
    if heading is None:
        return block
    start = block.find(f"### {heading}")
    if start < 0:
        return ""
    end = block.find("\n### ", start + 4)
    return block[start : end if end >= 0 else len(block)]


class Node:
    def __init__(self, config: dict[str, Any], agent: str, ack: Path) -> None:
        self.api = PluginApi("knowledge-engine", config)
        plugin = register(self.api)
        assert plugin is not None
        self.engine = plugin.engine
        self.runner = HookRunner(self.api.registrations)
        self.session = f"agent:{agent}:main"
        self.ctx = {"agentId": agent, "sessionKey": self.session, "trigger": "user"}
        self.ack = os.open(ack, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    async def start(self) -> dict[str, Any]:
        ws = self.engine.workspace(self.ctx["agentId"], None)  # opening it replays its journal
        self.engine.pipeline.run([])  # the tiers load now, not inside the first measured hook
        return {"ready": True, "pid": os.getpid(), "folder": str(ws.folder)}

    async def feed(self, cmd: dict[str, Any]) -> dict[str, Any]:
        msgs = cmd.get("messages") or [
            [f"{cmd['prefix']}-{i}", text_for(cmd.get("kind", "stream"), i)]
            for i in range(cmd["start"], cmd["stop"])
        ]
        delay = float(cmd.get("delay", 0))
        lat: list[float] = []
        first = time.time()
        for n, (mid, text) in enumerate(msgs):
            event = {
                "content": text,
                "messageId": mid,
                "timestamp": GEN["ts_of"](n),
                "from": "u",
                "sessionKey": self.session,
            }
            t0 = time.perf_counter()
            await self.runner.run("message_received", event, {"sessionKey": self.session})
            lat.append((time.perf_counter() - t0) * 1000)
            os.write(self.ack, f"{mid}\n".encode())  # acknowledged: the hook returned
            if delay:
                await asyncio.sleep(delay)
        return {"fed": len(msgs), "first": first, "last": time.time(), "hook_ms": lat}

    async def flush(self, cmd: dict[str, Any]) -> dict[str, Any]:
        deadline = time.monotonic() + float(cmd.get("timeout", 60))
        tries = 0
        while True:
            tries += 1
            ok = await asyncio.to_thread(self.engine.flush, 30, False)
            if ok or time.monotonic() > deadline:
                return {"ok": ok, "tries": tries, "t": time.time()}
            await asyncio.sleep(0.2)

    async def block(self, prompt: str) -> str:
        event = {"prompt": prompt, "messages": [{"role": "user", "content": prompt}]}
        out = await self.runner.run("before_prompt_build", event, self.ctx)
        return str((out or {}).get("appendSystemContext") or "")

    async def prompt(self, cmd: dict[str, Any]) -> dict[str, Any]:
        deadline = time.monotonic() + float(cmd.get("timeout", 60))
        tries = 0
        while time.monotonic() < deadline:
            tries += 1
            if cmd["needle"] in section(await self.block(cmd["prompt"]), cmd.get("section")):
                return {"found": True, "seen": time.time(), "tries": tries}
            await asyncio.sleep(0.02)
        return {"found": False, "tries": tries}

    async def prompts(self, cmd: dict[str, Any]) -> dict[str, Any]:
        lat: list[float] = []
        for q in cmd["questions"]:
            t0 = time.perf_counter()
            await self.block(q)
            lat.append((time.perf_counter() - t0) * 1000)
        return {"prompt_ms": lat}

    async def handle(self, cmd: dict[str, Any]) -> dict[str, Any]:
        op = cmd["op"]
        if op == "counters":
            return {"counters": counters.snapshot()}
        if op == "stop":
            await self.runner.run("gateway_stop", {"reason": "node stop"}, {})
            return {"stopped": True}
        handler = {"feed": self.feed, "flush": self.flush, "prompt": self.prompt, "prompts": self.prompts}
        return await handler[op](cmd)


async def main() -> None:
    config, agent, ack = json.loads(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    node = Node(config, agent, ack)
    print(json.dumps(await node.start()), flush=True)
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            return
        cmd = json.loads(line)
        print(json.dumps(await node.handle(cmd)), flush=True)
        if cmd["op"] == "stop":
            return


if __name__ == "__main__":
    asyncio.run(main())


# ---------------------------------------------------------------------------- the driving side
class NodeProc:
    """A node started as a subprocess, driven by `call()` (tests, scripts/bench/backend.py)."""

    def __init__(
        self, config: dict[str, Any], agent: str, ack: Path, log: Path, timeout: float = 300
    ) -> None:
        import queue
        import subprocess
        import threading

        self.ack = ack
        self._log = open(log, "ab")  # noqa: SIM115 - open as long as the process runs
        self.proc = subprocess.Popen(
            [sys.executable, __file__, json.dumps(config), agent, str(ack)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
        )
        self._lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.ready = self._reply(timeout)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put("")

    def _reply(self, timeout: float) -> dict[str, Any]:
        import queue

        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"node {self.proc.pid} gave no answer in {timeout} s") from None
        if not line:
            raise RuntimeError(f"node {self.proc.pid} exited with {self.proc.wait()}")
        reply: dict[str, Any] = json.loads(line)
        return reply

    def send(self, **cmd: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()

    def result(self, timeout: float = 300) -> dict[str, Any]:
        return self._reply(timeout)

    def call(self, timeout: float = 300, **cmd: Any) -> dict[str, Any]:
        self.send(**cmd)
        return self.result(timeout)

    def acked(self) -> list[str]:
        """The acknowledged message ids (a line cut by a kill was never acknowledged)."""
        if not self.ack.exists():
            return []
        raw = self.ack.read_bytes()
        return raw[: raw.rfind(b"\n") + 1].decode().split()

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(30)
        self._log.close()

    def stop(self, timeout: float = 120) -> None:
        if self.proc.poll() is None:
            try:
                self.call(timeout, op="stop")
                self.proc.wait(timeout)
            except Exception:
                self.proc.kill()
                self.proc.wait(30)
        self._log.close()
