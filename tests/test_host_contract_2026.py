"""The host contract as OpenClaw 2026.9.6 really fires it, replayed from recorded payloads.

`tests/data/openclaw-2026.9-hooks.jsonl` holds every call of the hooks the engine registers, in the
order the real gateway fired them across four gateway runs (webchat `chat.send`, an A2A message,
`openclaw agent` turns, a plugin reload and shutdowns). Contents the recorder elided were restored
from the same run's prompt and model output; `$DIR` stands for the gateway's scratch folder.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from knowledge_engine import plugin as plugin_mod
from knowledge_engine.host import HookRunner, PluginApi
from knowledge_engine.plugin import KnowledgePlugin, register
from knowledge_engine.store.messages import MessageLog

pytestmark = pytest.mark.slow  # real processes and spaCy: outside the fast loop

FIXTURE = Path(__file__).parent / "data" / "openclaw-2026.9-hooks.jsonl"
FAKE_PREFIX = "FAKE-REPLY:"


def _subst(value: Any, scratch: str) -> Any:
    if isinstance(value, str):
        return value.replace("$DIR", scratch)
    if isinstance(value, list):
        return [_subst(v, scratch) for v in value]
    if isinstance(value, dict):
        return {k: _subst(v, scratch) for k, v in value.items()}
    return value


def _reply_text(n: int) -> str:
    return f"Noted ({n}). Write to desk{n}@replies.example for help."


def _rewrite_replies(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A distinct reply per model response (the recorded fake model said the same thing everywhere), the
    same in every hook that carries it: keyed by `responseId`; `message_sending` has none and delivers the
    session's latest reply."""
    numbers: dict[str, int] = {}
    latest: dict[str | None, str] = {}

    def fix(value: Any, rid: str | None, session: str | None) -> Any:
        if isinstance(value, str) and value.startswith(FAKE_PREFIX):
            if rid is None:
                return latest.get(session, _reply_text(-1))
            latest[session] = _reply_text(numbers.setdefault(rid, len(numbers)))
            return latest[session]
        if isinstance(value, list):
            return [fix(v, rid, session) for v in value]
        if isinstance(value, dict):
            return {k: fix(v, value.get("responseId", rid), session) for k, v in value.items()}
        return value

    out = []
    for call in calls:
        event = call["event"]
        session = call["ctx"].get("sessionKey") or event.get("sessionKey")
        last = event.get("lastAssistant")
        rid = last.get("responseId") if isinstance(last, dict) else None
        out.append({**call, "event": fix(event, rid, session)})
    return out


def recorded_calls(scratch: Path) -> list[dict[str, Any]]:
    calls = [json.loads(line) for line in FIXTURE.read_text().splitlines() if line.strip()]
    return _rewrite_replies([_subst(c, str(scratch)) for c in calls])


@pytest.fixture
def gateway(tmp_path: Path) -> Iterator[tuple[HookRunner, KnowledgePlugin]]:
    config = {
        "workspaceTemplate": "{workspaceDir}/knowledge-engine",
        "workspaceRoot": str(tmp_path / "fallback-root"),
        "storage": {"writeDebounceMs": 50},
        "embeddings": {"enabled": False},
    }
    api = PluginApi("knowledge-engine", config)
    plugin = register(api)
    assert plugin is not None
    yield HookRunner(api.registrations), plugin
    plugin.engine.stop(5)


async def replay(runner: HookRunner, calls: list[dict[str, Any]], *, skip_stop: bool = True) -> list[Any]:
    results = []
    for call in calls:
        if skip_stop and call["hook"] == "gateway_stop":
            continue
        if runner.has_hooks(call["hook"]):
            results.append(await runner.run(call["hook"], call["event"], call["ctx"]))
    return results


def stored(folder: Path) -> list[tuple[str | None, str, str]]:
    with MessageLog(folder) as log:
        return [(m.session, m.role, m.text) for m in log.iter()]


def test_the_fixture_covers_every_hook_the_engine_registers() -> None:
    hooks = {json.loads(line)["hook"] for line in FIXTURE.read_text().splitlines()}
    assert {"message_received", "message_sending", "message_sent", "llm_output", "agent_end",
            "before_prompt_build", "session_start", "gateway_stop"} <= hooks


Replayed = tuple[HookRunner, list[dict[str, Any]], Path]


@pytest.fixture
def replayed(gateway: tuple[HookRunner, KnowledgePlugin], tmp_path: Path) -> Replayed:
    """Every recorded call replayed and flushed: (runner, calls, the agent's workspace folder)."""
    runner, plugin = gateway
    calls = recorded_calls(tmp_path)
    asyncio.run(replay(runner, calls))
    assert plugin.engine.flush(60, sync=False)
    return runner, calls, tmp_path / "workspace" / "knowledge-engine"


def test_every_turn_user_and_assistant_side_is_stored_once(replayed: Replayed, tmp_path: Path) -> None:
    _, calls, folder = replayed
    rows = stored(folder)
    # one workspace for agent main, though message hooks carry neither agentId nor workspaceDir
    assert not (tmp_path / "fallback-root").exists()
    users = [(s, t) for s, r, t in rows if r == "user"]
    assistants = [(s, t) for s, r, t in rows if r == "assistant"]
    builds = [c for c in calls if c["hook"] == "before_prompt_build"]
    prompts = {(c["ctx"]["sessionKey"], c["event"]["prompt"]) for c in builds}
    assert sorted(users) == sorted(prompts)  # webchat, A2A and `openclaw agent` turns, each once
    assert len(users) == len(set(users))
    sessions = {s for s, _ in prompts}
    # one reply per turn: shim1 had two turns, and the A2A/webchat replies also fired message_sending
    assert len(assistants) == len(prompts)
    assert {s for s, _ in assistants} == sessions
    assert all(t.startswith("Noted (") for _, t in assistants)
    assert len({t for _, t in assistants}) == len(assistants)  # every model response once


def test_facts_from_both_sides_come_back_in_a_later_turn(replayed: Replayed) -> None:
    runner, calls, folder = replayed
    entities = json.loads((folder / "entities.json").read_text())
    values = json.dumps(entities)
    assert "Helix Robotics" in values  # the user's webchat message
    assert "desk1@replies.example" in values  # an assistant reply that only agent_end/llm_output carried

    ctx = next(c["ctx"] for c in calls if c["hook"] == "before_prompt_build")
    result = asyncio.run(
        runner.run("before_prompt_build", {"prompt": "Where does Maya work?", "messages": []}, ctx)
    )
    assert result and "Helix Robotics" in " ".join(result.values())


def test_a_history_replayed_after_a_restart_is_not_stored_again(tmp_path: Path) -> None:
    config = {"workspaceTemplate": "{workspaceDir}/ke", "storage": {"writeDebounceMs": 50},
              "embeddings": {"enabled": False}, "retrieval": {"enabled": False}}
    calls = recorded_calls(tmp_path)
    last_end = [c for c in calls if c["hook"] == "agent_end"][-2]  # shim1's second turn: the whole history
    for _ in range(2):  # two processes' worth of engines, the second sees the same history
        api = PluginApi("knowledge-engine", config)
        plugin = register(api)
        assert plugin is not None
        asyncio.run(HookRunner(api.registrations).run("agent_end", last_end["event"], last_end["ctx"]))
        assert plugin.engine.flush(60, sync=False)
        plugin.engine.stop(5)
    rows = stored(tmp_path / "workspace" / "ke")
    assert len(rows) == len(last_end["event"]["messages"]) == 4


def test_plugin_replacement_flushes_and_a_new_config_takes_over_without_loss(tmp_path: Path) -> None:
    base = {"workspace": str(tmp_path / "ke"), "storage": {"writeDebounceMs": 60_000},
            "embeddings": {"enabled": False}, "retrieval": {"enabled": False}}
    ctx = {"channelId": "webchat", "sessionKey": "agent:main:s1"}
    agent_ctx = {"agentId": "main", "sessionKey": "agent:main:s1", "workspaceDir": str(tmp_path)}
    api = PluginApi("knowledge-engine", base)
    first = register(api)
    assert first is not None
    runner = HookRunner(api.registrations)

    async def turn(r: HookRunner, i: int) -> None:
        await r.run("before_prompt_build", {"prompt": "hi", "messages": []}, agent_ctx)
        event = {"from": "", "content": f"Contact ops{i}@example.org today.", "messageId": f"m{i}",
                 "sessionKey": "agent:main:s1"}
        await r.run("message_received", event, ctx)

    async def first_half() -> None:
        for i in range(20):
            await turn(runner, i)
        await runner.run("gateway_stop", {"reason": "plugin replacement"}, {"port": 1})

    first.engine.pipeline  # noqa: B018  (a warm engine, as a gateway's is when a reload comes)
    asyncio.run(first_half())
    assert not first.engine._stopped  # replacement flushes; it does not stop
    facts = (tmp_path / "ke" / "entities.json").read_text()
    assert all(f"ops{i}@example.org" in facts for i in range(20))  # the 60 s debounce did not hold them

    api2 = PluginApi("knowledge-engine", {**base, "storage": {"writeDebounceMs": 50}})
    second = register(api2)
    assert second is not None and second.engine is not first.engine
    assert first.engine._stopped  # the old config's engine is stopped once the new one takes over
    assert all(e is not first.engine for e in plugin_mod._ENGINES.values())  # and not kept alive
    runner2 = HookRunner(api2.registrations)
    asyncio.run(turn(runner2, 20))
    assert second.engine.flush(60, sync=False)
    entities = (tmp_path / "ke" / "entities.json").read_text()
    assert all(f"ops{i}@example.org" in entities for i in range(21))
    second.engine.stop(5)


def test_discovery_registration_starts_nothing(tmp_path: Path) -> None:
    api = PluginApi("knowledge-engine", {"workspaceRoot": str(tmp_path)}, registration_mode="discovery")
    assert register(api) is None
    assert api.registrations == []
    bad = PluginApi("knowledge-engine", {"retrieval": {"budgetMs": "soon"}}, registration_mode="discovery")
    with pytest.raises(Exception, match="budgetMs"):
        register(bad)


def _held_config(tmp_path: Path) -> dict[str, Any]:
    return {"workspaceTemplate": "{workspaceDir}/ke", "workspaceRoot": str(tmp_path / "root"),
            "storage": {"writeDebounceMs": 50}, "embeddings": {"enabled": False}}


def _first_message(i: int) -> tuple[dict[str, Any], dict[str, Any]]:
    event = {"from": "", "content": f"Mail ops{i}@example.org please.", "messageId": f"first-{i}",
             "sessionKey": "agent:main:fresh"}
    return event, {"channelId": "webchat", "sessionKey": "agent:main:fresh"}


def test_a_first_message_waits_for_the_turn_to_name_its_folder(tmp_path: Path) -> None:
    api = PluginApi("knowledge-engine", _held_config(tmp_path))
    plugin = register(api)
    assert plugin is not None
    runner = HookRunner(api.registrations)
    agent_ctx = {"agentId": "main", "sessionKey": "agent:main:fresh", "workspaceDir": str(tmp_path / "ws")}

    async def turn() -> None:
        await runner.run("message_received", *_first_message(0))  # before any agent hook, as in 2026.9
        await runner.run("before_prompt_build", {"prompt": "hi", "messages": []}, agent_ctx)

    asyncio.run(turn())
    assert plugin.engine.flush(60, sync=False)
    assert [t for _, _, t in stored(tmp_path / "ws" / "ke")] == ["Mail ops0@example.org please."]
    assert not (tmp_path / "root").exists()
    plugin.engine.stop(5)


def test_a_held_message_is_not_lost_when_no_agent_hook_follows(tmp_path: Path) -> None:
    api = PluginApi("knowledge-engine", _held_config(tmp_path))
    plugin = register(api)
    assert plugin is not None
    asyncio.run(HookRunner(api.registrations).run("message_received", *_first_message(1)))
    assert plugin.awaiting.pending() == 1
    assert plugin.engine.flush(60, sync=False)  # a sidecar's /drain or shutdown flush releases it
    assert plugin.awaiting.pending() == 0
    assert [t for _, _, t in stored(tmp_path / "root" / "main")] == ["Mail ops1@example.org please."]
    plugin.engine.stop(5)


def _engine_config(tmp_path: Path) -> dict[str, Any]:
    return {"workspace": str(tmp_path / "ke"), "storage": {"writeDebounceMs": 50},
            "embeddings": {"enabled": False}, "retrieval": {"enabled": False}}


def _one_process(tmp_path: Path, calls: list[tuple[str, dict[str, Any], dict[str, Any]]]) -> None:
    api = PluginApi("knowledge-engine", _engine_config(tmp_path))
    plugin = register(api)
    assert plugin is not None
    runner = HookRunner(api.registrations)

    async def run_all() -> None:
        for hook, event, ctx in calls:
            if hook == FLUSH:
                assert await asyncio.to_thread(plugin.engine.flush, 60, False)
                continue
            await runner.run(hook, event, ctx)

    asyncio.run(run_all())
    assert plugin.engine.flush(60, sync=False)
    plugin.engine.stop(5)


AGENT_CTX = {"agentId": "main", "sessionKey": "agent:main:w", "trigger": "user"}
FLUSH = "<flush>"  # in `_one_process`' calls: flush everything before the next call
MSG_CTX = {"channelId": "webchat", "sessionKey": "agent:main:w"}


@pytest.mark.parametrize("channel", ["webchat", "a2a"])
def test_a_message_received_before_a_restart_is_not_stored_again_from_the_history(
    tmp_path: Path, channel: str
) -> None:
    """webchat's history says `K:user` for chat.send's `K`; A2A's history key is unrelated to the
    messageId, so the text at about the same time decides."""
    now_ms = 1_796_094_256_588
    text = "Maya works at Helix Robotics in Berlin."
    received = {"from": "", "content": text, "messageId": "k-1", "sessionKey": "agent:main:w"}
    key = "k-1:user" if channel == "webchat" else "channel-user:v1:0f3a"
    history = [{"role": "user", "content": [{"type": "text", "text": text}], "timestamp": now_ms + 900,
                "idempotencyKey": key},
               {"role": "assistant", "content": [{"type": "text", "text": "Noted."}],
                "timestamp": now_ms + 1500, "responseId": "chatcmpl-1"}]
    _one_process(tmp_path, [("message_received", {**received, "timestamp": now_ms}, MSG_CTX)])
    _one_process(tmp_path, [("agent_end", {"messages": history, "success": True}, AGENT_CTX)])  # restarted
    assert sorted(r for _, r, _ in stored(tmp_path / "ke")) == ["assistant", "user"]


def test_the_hosts_heartbeat_runs_are_not_stored(tmp_path: Path) -> None:
    beat = {**AGENT_CTX, "trigger": "heartbeat"}
    beat_text = "First heartbeat alert: all quiet."
    reply = {"role": "assistant", "content": beat_text, "timestamp": 5, "responseId": "hb"}
    _one_process(tmp_path, [
        ("agent_end", {"messages": [reply], "success": True}, beat),
        ("llm_output", {"assistantTexts": [beat_text], "lastAssistant": reply}, beat),
        ("message_sending", {"to": "x", "content": beat_text}, MSG_CTX),
        ("message_received", {"from": "", "content": "Is Dana back?", "messageId": "u1",
                              "sessionKey": "agent:main:w"}, MSG_CTX),
        ("llm_output", {"assistantTexts": ["Dana is back on Monday."]}, AGENT_CTX),
    ])
    assert sorted(t for _, _, t in stored(tmp_path / "ke")) == ["Dana is back on Monday.", "Is Dana back?"]


def test_the_same_words_said_twice_are_two_messages(tmp_path: Path) -> None:
    """`openclaw agent` turns reach the engine only through agent_end: a user who says "yes" in two turns
    a minute apart said it twice."""
    from knowledge_engine.model.records import utcnow

    t0 = int(utcnow().timestamp() * 1000) + 60_000  # turns of this process, not history from before it
    turn1 = [{"role": "user", "content": "yes", "timestamp": t0},
             {"role": "assistant", "content": "Booked for Monday.", "timestamp": t0 + 500,
              "responseId": "r1"}]
    turn2 = [*turn1, {"role": "user", "content": "yes", "timestamp": t0 + 60_000},
             {"role": "assistant", "content": "Booked for Tuesday.", "timestamp": t0 + 60_500,
              "responseId": "r2"}]
    _one_process(tmp_path, [("agent_end", {"messages": turn1, "success": True}, AGENT_CTX),
                            (FLUSH, {}, {}),  # the first "yes" is in the log when the second comes
                            ("agent_end", {"messages": turn2, "success": True}, AGENT_CTX)])
    assert sorted(t for _, _, t in stored(tmp_path / "ke")) == [
        "Booked for Monday.", "Booked for Tuesday.", "yes", "yes"]
