"""Two agents, two workspaces, concurrent traffic through one engine and one hook runner.

Checked on every layer an agent's knowledge lives in: the fact and entity files, the message log,
the prompt cache (the same question asked by both), the injected blocks, and the Chroma collections
on a shared real Chroma server, read directly with chromadb's own client.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chromadb
import pytest
from chromadb.config import Settings

from knowledge_engine.config import load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.host import HookRunner, PluginApi
from knowledge_engine.model.records import Message
from knowledge_engine.plugin import KnowledgePlugin, register
from knowledge_engine.retrieve.retriever import retriever_for
from knowledge_engine.store.workspace import Workspace
from tests.servers.ollama_server import FakeOllamaServer

WORLDS: dict[str, dict[str, Any]] = {
    "alpha": {"org": "Initech", "city": "Austin", "pet": "Brisketfox",
              "words": ["Initech", "Austin", "Brisketfox"]},
    "beta": {"org": "Umbrella Health", "city": "Oslo", "pet": "Quillbadger",
             "words": ["Umbrella", "Oslo", "Quillbadger"]},
}
N = 60
QUESTION = "Where do I work, where do I live, and what is my pet called?"


@pytest.fixture
def ollama() -> Iterator[FakeOllamaServer]:
    server = FakeOllamaServer(embed_dim=16).start()
    try:
        yield server
    finally:
        server.stop()


def plugin_config(tmp_path: Path, chroma_url: str, ollama_url: str, prefix: str) -> dict[str, Any]:
    return {
        "workspaceTemplate": "{workspaceDir}/ke",
        "workspaceRoot": str(tmp_path / "agents"),
        "storage": {"writeDebounceMs": 50},
        "chroma": {"url": chroma_url},
        "embeddings": {"provider": "ollama", "endpoint": ollama_url, "model": "nomic-embed-text",
                       "dimensions": 16, "collectionName": prefix},
        "retrieval": {"cacheTtlMs": 600000, "fuzzyCacheThreshold": 0.5},
    }


def ctx(agent: str, tmp_path: Path) -> dict[str, Any]:
    return {"agentId": agent, "sessionKey": f"agent:{agent}:main", "workspaceDir": str(tmp_path / agent),
            "trigger": "user"}


async def traffic(runner: HookRunner, agent: str, tmp_path: Path) -> list[dict[str, Any] | None]:
    w = WORLDS[agent]
    start = {"sessionId": agent, "sessionKey": f"agent:{agent}:main"}
    await runner.run("session_start", start, ctx(agent, tmp_path))
    answers = []
    for i in range(N):
        text = [f"I work at {w['org']} and I live in {w['city']}.", f"My pet is called {w['pet']}.",
                f"Note {i}: {w['org']} meeting in {w['city']} about {w['pet']}."][i % 3]
        event = {"content": text, "messageId": f"{agent}-{i}", "sessionKey": f"agent:{agent}:main",
                 "timestamp": "2025-02-01T10:00:00Z", "from": "u"}
        await runner.run("message_received", event, {"sessionKey": f"agent:{agent}:main"})
        if i % 15 == 14:  # retrieval interleaved with the other agent's ingest
            answers.append(await runner.run("before_prompt_build", {"prompt": QUESTION, "messages": []},
                                            ctx(agent, tmp_path)))
        await asyncio.sleep(0)
    return answers


def other(agent: str) -> str:
    return "beta" if agent == "alpha" else "alpha"


def leaked(text: str, agent: str) -> list[str]:
    return [w for w in WORLDS[other(agent)]["words"] if w in text]


@pytest.mark.slow
def test_two_agents_with_concurrent_traffic_never_see_each_other(
    tmp_path: Path, chroma_server: str, ollama: FakeOllamaServer
) -> None:
    prefix = f"iso{uuid.uuid4().hex[:8]}"
    api = PluginApi("knowledge-engine", plugin_config(tmp_path, chroma_server, ollama.url, prefix))
    plugin = register(api)
    assert plugin is not None
    runner = HookRunner(api.registrations)

    async def both() -> list[list[dict[str, Any] | None]]:
        runs = await asyncio.gather(traffic(runner, "alpha", tmp_path), traffic(runner, "beta", tmp_path))
        return list(runs)

    during = asyncio.run(both())
    assert plugin.engine.flush(120)
    after = asyncio.run(ask_both(runner, tmp_path))
    try:
        for agent, answers in zip(("alpha", "beta"), during, strict=True):
            for a in answers:
                block = (a or {}).get("appendSystemContext", "")
                assert not leaked(block, agent), f"{agent} was shown the other agent's knowledge"
        for agent in ("alpha", "beta"):
            block = (after[agent] or {}).get("appendSystemContext", "")
            assert WORLDS[agent]["pet"] in block and not leaked(block, agent)
            check_stores(plugin, agent, tmp_path)
            check_cache(plugin, agent, tmp_path)
        check_chroma(plugin, chroma_server, tmp_path)
    finally:
        plugin.engine.stop(5)


async def ask_both(runner: HookRunner, tmp_path: Path) -> dict[str, dict[str, Any] | None]:
    """The very same question from both agents, alpha first: beta must not get alpha's cached block."""
    out = {}
    for agent in ("alpha", "beta"):
        q = {"prompt": QUESTION + " Be brief.", "messages": []}
        out[agent] = await runner.run("before_prompt_build", q, ctx(agent, tmp_path))
    return out


def workspace_of(plugin: KnowledgePlugin, agent: str, tmp_path: Path) -> Workspace:
    return plugin.engine.workspace(agent, str(tmp_path / agent))


def check_stores(plugin: KnowledgePlugin, agent: str, tmp_path: Path) -> None:
    ws = workspace_of(plugin, agent, tmp_path)
    assert ws.folder == (tmp_path / agent / "ke").resolve()
    files = "".join((ws.folder / n).read_text() for n in ("facts.json", "entities.json"))
    assert WORLDS[agent]["pet"] in files and not leaked(files, agent)
    assert ws.messages.count() == N
    assert all(m.id.startswith(agent + "-") for m in ws.messages.iter())
    for word in WORLDS[other(agent)]["words"]:
        assert ws.messages.search(word, 10) == [], f"{agent}'s message log finds {word}"


def check_cache(plugin: KnowledgePlugin, agent: str, tmp_path: Path) -> None:
    retriever = retriever_for(plugin.engine, workspace_of(plugin, agent, tmp_path))
    assert len(retriever.cache) > 0
    cached = retriever.cache.get(retriever.ws.agent_id, QUESTION)
    assert cached is not None
    block = (cached[0] or {}).get("appendSystemContext", "")
    assert not leaked(block, agent)
    assert retriever.cache.get(other(agent), QUESTION) is None, "a cache entry under the other agent's id"


def check_chroma(plugin: KnowledgePlugin, url: str, tmp_path: Path) -> None:
    host, port = url.removeprefix("http://").split(":")
    client = chromadb.HttpClient(host=host, port=int(port), settings=Settings(anonymized_telemetry=False))
    seen: dict[str, set[str]] = {}
    for agent in ("alpha", "beta"):
        ws = workspace_of(plugin, agent, tmp_path)
        index = plugin.engine.chroma(ws)
        for kind, expected in (("facts", {f.id for f in ws.facts.all()}),
                               ("messages", {m.id for m in ws.messages.iter()})):
            col = client.get_collection(index.names[kind])
            assert (col.metadata or {}).get("agent_id") == agent
            got = col.get(include=["metadatas"])
            ids = set(got["ids"])
            assert ids == expected, f"{agent} {kind}: Chroma holds other ids or misses some"
            for meta in got["metadatas"] or []:
                assert not leaked(" ".join(str(v) for v in (meta or {}).values()), agent)
            seen[f"{agent}-{kind}"] = ids
    assert not seen["alpha-facts"] & seen["beta-facts"]
    assert not seen["alpha-messages"] & seen["beta-messages"]


@pytest.mark.slow
def test_same_agent_id_in_two_workspaces_on_one_chroma_server_stays_apart(
    tmp_path: Path, chroma_server: str, ollama: FakeOllamaServer
) -> None:
    """Two hosts (or a host and a copied workspace) with the default agent id `main`, one Chroma server:
    syncing one workspace must not delete or overwrite the other's records."""
    prefix = f"iso{uuid.uuid4().hex[:8]}"
    raw = plugin_config(tmp_path, chroma_server, ollama.url, prefix)
    engine = KnowledgeEngine(load_config({**raw, "storage": {"writeDebounceMs": 0}}))
    one = engine.workspace("main", str(tmp_path / "host-one"))
    two = engine.workspace("main", str(tmp_path / "host-two"))
    one.facts.add("Dana", "works-at", "Initech")
    two.facts.add("Erik", "works-at", "Umbrella Health")
    for ws in (one, two):
        ws.flush()
        engine.sync(ws)
    try:
        for ws in (one, two):
            index = engine.chroma(ws)
            stored = set(index.stored_hashes("facts"))
            assert stored == {f.id for f in ws.facts.all()}, "the other workspace's sync changed this index"
        assert engine.chroma(one).names["facts"] != engine.chroma(two).names["facts"]
    finally:
        engine.stop(5)


def test_agent_ids_that_sanitise_alike_never_share_a_workspace(tmp_path: Path) -> None:
    cfg = load_config({"workspaceRoot": str(tmp_path / "agents"), "embeddings": {"enabled": False}})
    engine = KnowledgeEngine(cfg)
    a = engine.workspace("team/a", None)
    b = engine.workspace("team:a", None)
    try:
        assert a.folder != b.folder
    finally:
        engine.stop(5)


def test_two_workspaces_sessions_of_one_id_remember_their_own_people(tmp_path: Path) -> None:
    """A Python host that calls both agents' conversations "main": the spaCy tier's session memory
    (whom a later he/she means, the name a kin word stands for) is per workspace. It was keyed by
    the message's agent and session only, so Bob's "He moved to Boston" became a fact about the
    brother Alice had named, stored in Bob's workspace."""
    cfg = load_config(
        {
            "workspaceRoot": str(tmp_path / "agents"),
            "embeddings": {"enabled": False},
            "extraction": {"spacy": {"workers": 0}, "llm": {"enabled": False}},
            "maintenance": {"enabled": False},
        }
    )
    engine = KnowledgeEngine(cfg)
    alice, bob = engine.workspace("alice", None), engine.workspace("bob", None)

    def say(ws: Workspace, mid: str, speaker: str, text: str) -> set[tuple[str, str, str]]:
        engine.submit(ws, Message(id=mid, text=text, speaker=speaker, session="main"))
        assert engine.queue.drain(120)
        return {(f.subject, f.predicate, f.object) for f in ws.facts.all()}

    try:
        say(alice, "a1", "Alice", "My brother Zorblax Quint works at Initech.")
        assert not any("Zorblax" in s for s, _, _ in say(bob, "b1", "Bob", "He moved to Boston last week."))
        lisbon = say(alice, "a2", "Alice", "He moved to Lisbon last week.")
        assert ("Zorblax Quint", "moved-to", "Lisbon") in lisbon  # Alice's own session still knows him
        engine.pipeline.forget(lambda name: "zorblax" in name.casefold(), scope=str(bob.folder))
        porto = say(alice, "a3", "Alice", "He moved to Porto last week.")
        assert ("Zorblax Quint", "moved-to", "Porto") in porto  # a forget in Bob's workspace is Bob's
    finally:
        engine.stop(5)
