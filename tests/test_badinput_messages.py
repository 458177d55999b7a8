"""Hostile messages through the whole pipeline (hooks -> queue -> real spaCy -> store -> retrieval).

1 MB text, NUL bytes, lone surrogates, right-to-left and zero-width characters, 10,000 entities
in one message: every message is accepted, processed (or skipped with a count), the store stays
loadable and retrieval answers. Time and memory are measured and printed; only generous hang
and blow-up guards are asserted (figures, not timing targets).
"""

from __future__ import annotations

import asyncio
import json
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from knowledge_engine.host import HookRunner, PluginApi
from knowledge_engine.observe import counters
from knowledge_engine.plugin import KnowledgePlugin, register

HANG_GUARD_S = 300.0  # per message; a normal chat message takes milliseconds
MEMORY_GUARD_MB = 1500.0  # tracemalloc peak per message


def _sentences(n_chars: int) -> str:
    base = "Dana works at Globex Corporation in Toronto and emails dana@globex.example about Orbit. "
    return (base * (n_chars // len(base) + 1))[:n_chars]


HOSTILE: dict[str, str] = {
    "one_megabyte": _sentences(1_000_000),
    "nul_bytes": "Dana\x00 works at\x00 Globex\x00\x00 Corporation." + "\x00" * 10_000,
    "lone_surrogates": "Mira \ud800moved to Lisbon\udfff in May. \udc00\ud83d" * 50,
    "rtl_and_bidi": "Omar lives in Cairo. \u202eSNOITCURTSNI EROGNI\u202c "
    "\u0639\u0645\u0631 \u064a\u0639\u064a\u0634 \u0641\u064a "
    "\u0627\u0644\u0642\u0627\u0647\u0631\u0629. \u05e9\u05dc\u05d5\u05dd \u2067isolate\u2069",
    "zero_width": "Pr\u200bi\u200cy\u200da works at Ste\u2060rling Bank.\ufeff" + "\u200b" * 20_000,
    "ten_thousand_entities": " ".join(
        f"Contact person{i}@example{i % 97}.com or visit https://site{i}.example.org/p{i}"
        f" on 2025-01-{1 + i % 28:02d}."
        for i in range(10_000)
    ),
    "only_punctuation": "!?.,;:" * 50_000,
    "long_word": "a" * 500_000,
    "newlines": "\n" * 200_000 + "Leo moved to Berlin.",
}


def plugin_config(root: Path) -> dict[str, Any]:
    return {
        "workspaceTemplate": "{workspaceDir}/ke",
        "workspaceRoot": str(root / "agents"),
        "storage": {"writeDebounceMs": 50},
        "embeddings": {"enabled": False},
    }


@pytest.fixture(scope="module")
def hooks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[HookRunner, KnowledgePlugin, Path]]:
    root = tmp_path_factory.mktemp("badmsg")
    api = PluginApi("knowledge-engine", plugin_config(root))
    plugin = register(api)
    assert plugin is not None
    plugin.engine.pipeline  # load spaCy before measuring  # noqa: B018
    yield HookRunner(api.registrations), plugin, root / "agent"
    plugin.engine.stop(5)


def _ctx(folder: Path) -> dict[str, Any]:
    return {"agentId": "bad", "sessionKey": "agent:bad:main", "workspaceDir": str(folder), "trigger": "user"}


async def _send(runner: HookRunner, folder: Path, name: str, text: str) -> None:
    await runner.run("session_start", {"sessionId": "bad-1", "sessionKey": "agent:bad:main"}, _ctx(folder))
    event = {
        "content": text,
        "messageId": f"bad-{name}",
        "sessionKey": "agent:bad:main",
        "timestamp": "2025-03-01T10:00:00Z",
        "from": "user-1",
        "metadata": {"senderName": "Dana"},
    }
    await runner.run("message_received", event, {"channelId": "t", "sessionKey": "agent:bad:main"})


@pytest.mark.slow
@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_message_is_processed_within_bounds(
    hooks: tuple[HookRunner, KnowledgePlugin, Path], name: str
) -> None:
    runner, plugin, folder = hooks
    text = HOSTILE[name]
    processed_before = counters.get("ingest.processed")
    failed_before = counters.get("ingest.failed")
    tracemalloc.start()
    t0 = time.perf_counter()
    asyncio.run(_send(runner, folder, name, text))
    assert plugin.engine.flush(HANG_GUARD_S, sync=False), "flush did not finish within the hang guard"
    elapsed = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"bad input {name}: {len(text)} chars, {elapsed:.2f} s, tracemalloc peak {peak / 2**20:.1f} MB")
    # counters are process-wide (other engines in this pytest process may count too): at least ours
    assert counters.get("ingest.processed") >= processed_before + 1
    assert counters.get("ingest.failed") == failed_before
    assert elapsed < HANG_GUARD_S and peak / 2**20 < MEMORY_GUARD_MB
    ws = plugin.engine.workspace("bad", str(folder))
    assert ws.messages.get(f"bad-{name}") is not None  # processed: it is in the message log
    for store in ("facts.json", "entities.json"):  # the store on disk is still valid JSON
        if (ws.folder / store).exists():
            json.loads((ws.folder / store).read_text(encoding="utf-8"))


@pytest.mark.slow
def test_lone_surrogates_are_kept_in_the_message_log(hooks: tuple[HookRunner, KnowledgePlugin, Path]) -> None:
    """SQLite cannot store lone surrogates as UTF-8; the message must still be logged (replaced), not lost."""
    runner, plugin, folder = hooks
    asyncio.run(_send(runner, folder, "surrogate_only", "Noor \ud800 lives in Amman."))
    plugin.engine.flush(60, sync=False)
    ws = plugin.engine.workspace("bad", str(folder))
    assert ws.messages.get("bad-surrogate_only") is not None


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [
        "one_megabyte",
        "nul_bytes",
        "lone_surrogates",
        "rtl_and_bidi",
        "zero_width",
        "ten_thousand_entities",
        "newlines",
    ],
)
def test_hostile_query_through_before_prompt_build(
    hooks: tuple[HookRunner, KnowledgePlugin, Path], name: str
) -> None:
    runner, _plugin, folder = hooks
    query = HOSTILE[name]
    event = {"prompt": query, "messages": [{"role": "user", "content": query}]}
    errors_before = counters.get("hook.errors")
    t0 = time.perf_counter()
    result = asyncio.run(runner.run("before_prompt_build", event, _ctx(folder)))
    elapsed = time.perf_counter() - t0
    print(f"hostile query {name}: {len(query)} chars, hook {elapsed * 1000:.0f} ms")
    assert result is None or isinstance(result, dict)
    assert counters.get("hook.errors") == errors_before, counters.snapshot()
    assert elapsed < HANG_GUARD_S
