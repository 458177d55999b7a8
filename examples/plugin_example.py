"""The engine as a plugin of a Python agent loop: one turn in, the next turn's prompt gets the fact.

Run: .venv/bin/python examples/plugin_example.py [FOLDER]   (default: a temporary folder)
"""

import asyncio
import sys
import tempfile

from knowledge_engine.host import HookRunner, PluginApi
from knowledge_engine.plugin import register

plugin_config = {  # any key of config.example.json
    "extraction": {"llm": {"enabled": False}},  # regex + spaCy tiers only: no model server needed
    "retrieval": {"maxInjectChars": 2000},
}


async def main(agent_dir: str) -> None:
    api = PluginApi("knowledge-engine", plugin_config)
    plugin = register(api)  # validates the config; raises ConfigError listing every bad key
    runner = HookRunner(api.registrations)  # or your host's own runner with the same semantics
    # the knowledge goes to <workspaceDir>/knowledge-engine (`workspaceTemplate`)
    agent = {"agentId": "main", "workspaceDir": agent_dir}
    session = "agent:main:chat"

    await runner.run("session_start", {"sessionId": "s1", "sessionKey": session}, agent)
    await runner.run(
        "message_received",
        {"from": "u1", "content": "I moved to Lisbon", "messageId": "m1", "sessionKey": session},
        {"channelId": "web"},  # message hooks carry only the session key; the agent comes from it
    )
    # The hook returned at once; extraction runs on a worker thread. A host spends the model's reply
    # here; a script waits until the engine has stored the message and its facts (the first message
    # waits for spaCy's worker processes to start: seconds, or a minute on a busy machine).
    await asyncio.to_thread(plugin.engine.flush, 600.0)

    question = "Where do I live?"
    result = await runner.run(
        "before_prompt_build",
        {"prompt": question, "messages": [{"role": "user", "content": question}]},
        {**agent, "sessionKey": session, "trigger": "user"},
    )
    print(result["appendSystemContext"] if result else "(nothing injected)")
    await runner.run("gateway_stop", {"reason": "shutdown"}, {})


if __name__ == "__main__":
    folder = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="ke-example-")
    asyncio.run(main(folder))
