"""A Python host's first turn in a fresh interpreter (the README's plugin flow): test_retrieve_cold_start.

`python -m tests.cold_start_host ingest AGENT_DIR QUESTION`: register, session_start, one message in,
wait until the engine has stored it and its fact, then the first before_prompt_build.
`python -m tests.cold_start_host restart AGENT_DIR QUESTION`: register, session_start and at once the
first before_prompt_build, on a folder an earlier process filled.
Prints one JSON line: the first turn's block, its provenance and the local breaker's state.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from typing import Any

import orjson

from knowledge_engine.host import HookRunner, PluginApi
from knowledge_engine.plugin import register
from knowledge_engine.retrieve.retriever import retriever_for

SESSION = "agent:main:chat"
PLUGIN_CONFIG: dict[str, Any] = {"extraction": {"llm": {"enabled": False}}}  # all defaults otherwise


async def first_turn(mode: str, agent_dir: str, question: str) -> dict[str, Any]:
    api = PluginApi("knowledge-engine", PLUGIN_CONFIG)
    plugin = register(api)
    assert plugin is not None
    runner = HookRunner(api.registrations)
    agent = {"agentId": "main", "workspaceDir": agent_dir}
    await runner.run("session_start", {"sessionId": "s1", "sessionKey": SESSION}, agent)
    ws = plugin.engine.workspace("main", agent_dir)
    if mode == "ingest":
        await runner.run(
            "message_received",
            {"from": "u1", "content": "I moved to Lisbon", "messageId": "m1", "sessionKey": SESSION},
            {"channelId": "web"},
        )
        deadline = time.monotonic() + 240  # spaCy's workers start on a loaded machine
        while not (ws.facts.all() and ws.messages.get("m1")) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
    event = {"prompt": question, "messages": [{"role": "user", "content": question}]}
    result = await runner.run(
        "before_prompt_build", event, {**agent, "sessionKey": SESSION, "trigger": "user"}
    )
    retriever = retriever_for(plugin.engine, ws)
    breakers = {
        name: {"open": b.is_open, "timeouts": b.consecutive_timeouts, "errors": b.consecutive_errors}
        for name, b in retriever.breakers.items()
    }
    report = {
        "block": (result or {}).get("appendSystemContext", ""),
        "provenance": retriever.last_provenance,
        "breakers": breakers,
    }
    await runner.run("gateway_stop", {"reason": "shutdown"}, {})
    return report


def main() -> None:
    mode, agent_dir, question = sys.argv[1:4]
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)  # the engine's events, for a failure's report
    report = asyncio.run(first_turn(mode, agent_dir, question))
    sys.stdout.buffer.write(orjson.dumps(report) + b"\n")


if __name__ == "__main__":
    main()
