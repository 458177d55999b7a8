"""The host contract from a Python host: typed runner helpers, one message, the next prompt's block.

Run: .venv/bin/python examples/host_contract.py [FOLDER]   (default: a temporary folder)
"""

import asyncio
import sys
import tempfile

from knowledge_engine.host import HookRunner, PluginApi
from knowledge_engine.plugin import register  # the engine's entry point

api = PluginApi("knowledge-engine", plugin_config={"storage": {"writeDebounceMs": 5000}})
plugin = register(api)  # records api.on(...) calls
runner = HookRunner(api.registrations)  # or HookRunner.from_apis(api1, api2, ...)


async def main(agent_dir: str) -> None:
    ctx = {"agentId": "main", "workspaceDir": agent_dir, "sessionKey": "agent:main:main"}
    await runner.run_session_start({"sessionId": "s1", "sessionKey": "agent:main:main"}, ctx)
    await runner.run_message_received(
        {
            "from": "user:42",
            "content": "Dana moved to Lisbon.",
            "messageId": "m1",
            "timestamp": "2026-01-01T10:00:00Z",
            "sessionKey": "agent:main:main",
        },
        {"channelId": "cli", "agentId": "main", "workspaceDir": agent_dir},
    )  # returns at once: extraction runs on a worker thread
    # Wait until it is stored (a host's model call gives it this time; a cold start takes seconds).
    await asyncio.to_thread(plugin.engine.flush, 600.0)
    injected = await runner.run_before_prompt_build(
        {"prompt": "Where does Dana live?", "messages": []}, {**ctx, "trigger": "user"}
    )
    print(injected.get("appendSystemContext", ""))  # the engine's default `retrieval.injectionTarget`
    await runner.run_gateway_stop({"reason": "shutdown"}, {"workspaceDir": agent_dir})


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="ke-example-")))
