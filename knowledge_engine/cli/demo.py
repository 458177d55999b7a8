"""`demo`: the bundled sample conversation through the real hook runner, end to end.

It shows what a new user should see first: messages in through `message_received` and
`message_sent`, extracted entities and facts, where they are stored, and the block
`before_prompt_build` injects for a question about the conversation.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

import typer

from knowledge_engine.cli.common import console, fail, make_folder, plain, print_json, say, table
from knowledge_engine.ingest.transcript import TranscriptReport, read_transcript

DEFAULT_QUESTION = "Where does Maya work now, and where did she live before?"
DEMO_MARKER = ".knowledge-engine-demo"


def _ollama_up(url: str) -> bool:
    import httpx  # here, not at the top: every CLI command imports this module

    try:
        return httpx.get(url.rstrip("/") + "/api/tags", timeout=0.5).status_code == 200
    except httpx.HTTPError:
        return False


def _sample_path() -> Path:
    return Path(str(resources.files("knowledge_engine") / "data" / "sample_conversation.jsonl"))


async def _run(folder: Path, question: str, plugin_config: dict[str, Any]) -> dict[str, Any]:
    from knowledge_engine.host import HookRunner, PluginApi
    from knowledge_engine.plugin import register

    api = PluginApi("knowledge-engine", plugin_config)
    plugin = register(api)
    runner = HookRunner(api.registrations)
    agent_ctx = {"agentId": "demo", "sessionKey": "agent:demo:main", "workspaceDir": str(folder)}
    await runner.run("session_start", {"sessionId": "demo-1", "sessionKey": "agent:demo:main"}, agent_ctx)
    report = TranscriptReport()
    for msg in read_transcript(_sample_path(), report):
        event = {
            "content": msg.text,
            "timestamp": msg.timestamp.isoformat(),
            "messageId": msg.id,
            "sessionKey": "agent:demo:main",
            "metadata": {"senderName": msg.speaker},
        }
        ctx = {"channelId": "demo", "sessionKey": "agent:demo:main"}
        if msg.role == "user":
            await runner.run("message_received", {**event, "from": "demo-user"}, ctx)
        else:
            await runner.run("message_sent", {**event, "to": "demo-user", "success": True}, ctx)
    assert plugin is not None
    # Returns once every message is stored. The first batch waits for spaCy's worker processes: seconds
    # on an idle machine, a minute or more on a busy one, where a 30 s budget parked the whole demo.
    await asyncio.to_thread(plugin.engine.flush, 600.0)
    result = await runner.run(
        "before_prompt_build",
        {"prompt": question, "messages": [{"role": "user", "content": question}]},
        {**agent_ctx, "trigger": "user"},
    )
    ws = plugin.engine.workspace("demo", str(folder))
    out = {
        "messages": report.read,
        "workspace": str(ws.folder),
        "injected": result or {},
        "entities": ws.entities.all(),
        "facts": ws.facts.query(include_history=True),
    }
    await runner.run("gateway_stop", {"reason": "demo finished"}, {"workspaceDir": str(folder)})
    return out


def fresh_demo_folder(folder: Path) -> Path:
    """Empty `folder` for a new run, but only if the demo made it (or it is empty): `--workspace`
    pointed at an agent's real workspace must not wipe it."""
    if folder.exists() and not folder.is_dir():
        fail(f"{folder} is a file, not a folder: pick another --workspace")
    if folder.is_dir() and any(folder.iterdir()) and not (folder / DEMO_MARKER).is_file():
        fail(
            f"{folder} is not empty and was not made by the demo (no {DEMO_MARKER} file): the demo "
            "recreates its folder each run, so it leaves this one alone; pick another --workspace "
            "(or, if it is a demo folder from an older version, remove it first)"
        )
    if folder.exists():
        shutil.rmtree(folder)
    make_folder(folder)
    (folder / DEMO_MARKER).write_text("made by `knowledge-engine demo`; it recreates this folder\n")
    return folder


def demo(
    workspace: Annotated[
        Path,
        typer.Option(
            "--workspace",
            "-w",
            help="Where the demo workspace is created (recreated each run; a non-empty folder the "
            "demo did not make is refused).",
        ),
    ] = Path("demo-workspace"),
    question: Annotated[
        str, typer.Option(help="The question asked before the next prompt.")
    ] = DEFAULT_QUESTION,
    ollama: Annotated[
        str, typer.Option(help="Ollama URL; the LLM tier runs if it answers.")
    ] = "http://localhost:11434",
    json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
) -> None:
    """Run the bundled sample conversation through the hooks and show what was learned."""
    folder = fresh_demo_folder(workspace.expanduser().resolve())
    llm = _ollama_up(ollama)
    cfg: dict[str, Any] = {
        "workspace": str(folder),  # the store files go in the folder itself, where `stats -w` looks
        "storage": {"writeDebounceMs": 1000},
        "extraction": {"llm": {"enabled": llm, "endpoint": ollama}},
    }
    if not json:
        state = f"on, Ollama answers at {ollama}" if llm else f"skipped: no Ollama answers at {ollama}"
        say(("LLM tier:", "bold"), " ", state)
        say("Running the sample conversation through the hooks; the first batch waits for spaCy's worker "
            "processes (seconds, a minute or more on a busy machine)...")  # fmt: skip
    out = asyncio.run(_run(folder, question, cfg))
    injected = "\n\n".join(v for v in out["injected"].values() if isinstance(v, str))
    if json:
        print_json(
            {
                **out,
                "entities": [e.model_dump(mode="json") for e in out["entities"]],
                "facts": [f.model_dump(mode="json") for f in out["facts"]],
                "llm_tier": llm,
            }
        )
        return
    ents = sorted(out["entities"], key=lambda e: -e.count)
    table(
        f"{len(ents)} entities from {out['messages']} messages{_shown(len(ents), 40, 'most mentioned')}",
        ["type", "value", "count", "aliases"],
        [[e.type, e.value, e.count, ", ".join(e.aliases[:3])] for e in ents[:40]],
    )
    table(
        f"{len(out['facts'])} facts{_shown(len(out['facts']), 60, 'first')}",
        ["subject", "predicate", "object", "tier", "valid"],
        [
            [f.subject, f.predicate, f.object, f.source, "yes" if f.invalid_at is None else "superseded"]
            for f in out["facts"][:60]
        ],
    )
    say(("Stored in", "bold"), " ", out["workspace"], " (facts.json, entities.json, messages.sqlite3)")
    say(("Look around:", "bold"), f" {_cli_name()} stats -w ", out["workspace"])
    say(("Injected before the prompt", "bold"), " “", question, "”:")
    console.print(plain(injected or "(nothing injected)"), soft_wrap=True)  # verbatim: no line breaks added


def _cli_name() -> str:
    """How to call the CLI again: `knowledge-engine` when it is on PATH, else the path it was run by
    (./scripts/demo runs .venv/bin/knowledge-engine, which a fresh shell does not find by name)."""
    ran = sys.argv[0] if sys.argv else ""
    if shutil.which("knowledge-engine") or Path(ran).name != "knowledge-engine":
        return "knowledge-engine"
    return ran


def _shown(total: int, cap: int, which: str) -> str:
    """Says when a table shows only part of the rows (`entities` and `facts -w` list them all)."""
    return f" (the {cap} {which} shown)" if total > cap else ""
