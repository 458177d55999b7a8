"""The agent-host plugin: thin hook adapters that call the engine.

OpenClaw re-registers plugins per agent run, so process-wide state (the engine, its
workers, caches and pools) lives at module level, keyed by configuration: registering
twice reuses one engine. Handlers never raise into the host and never block it.
"""

from __future__ import annotations

import logging
import re
import threading
import uuid
from typing import Any

import orjson

from knowledge_engine.config import ConfigError, EngineConfig, load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.host.types import payload_field
from knowledge_engine.observe import counters, emit
from knowledge_engine.store.records import Message, utcnow
from knowledge_engine.store.workspace import Workspace

PLUGIN_ID = "knowledge-engine"
log = logging.getLogger("knowledge_engine.plugin")

_ENGINES: dict[bytes, KnowledgeEngine] = {}
_ENGINES_LOCK = threading.Lock()
_AGENT_IN_SESSION_KEY = re.compile(r"^agent:([^:]+):")


def engine_for(config: EngineConfig) -> KnowledgeEngine:
    """The process-wide engine for this configuration."""
    key = orjson.dumps(config.model_dump(mode="json"), option=orjson.OPT_SORT_KEYS)
    with _ENGINES_LOCK:
        eng = _ENGINES.get(key)
        if eng is None or eng._stopped:
            eng = KnowledgeEngine(config)
            _ENGINES[key] = eng
        return eng


class SessionDirectory:
    """Remembers which agent and workspace a session key belongs to.

    Message hooks carry only a session key; session_start and before_prompt_build carry
    the agent id and workspace folder.
    """

    def __init__(self) -> None:
        self._map: dict[str, tuple[str | None, str | None]] = {}

    def remember(self, session_key: str | None, agent_id: str | None, workspace_dir: str | None) -> None:
        if session_key and (agent_id or workspace_dir):
            self._map[session_key] = (agent_id, workspace_dir)

    def lookup(
        self, session_key: str | None, agent_id: str | None, workspace_dir: str | None
    ) -> tuple[str | None, str | None]:
        if agent_id or workspace_dir:
            return agent_id, workspace_dir
        if session_key:
            if session_key in self._map:
                return self._map[session_key]
            m = _AGENT_IN_SESSION_KEY.match(session_key)
            if m:
                return m.group(1), None
        return None, None


class KnowledgePlugin:
    """The hook handlers of one registration, bound to the shared engine."""

    def __init__(self, engine: KnowledgeEngine) -> None:
        self.engine = engine
        self.sessions = SessionDirectory()

    # ------------------------------------------------------------------ helpers
    def _workspace(self, event: Any, ctx: Any) -> tuple[Workspace, str | None]:
        session_key = payload_field(event, "session_key", "sessionKey") or payload_field(
            ctx, "session_key", "sessionKey"
        )
        agent_id, ws_dir = self.sessions.lookup(
            session_key,
            payload_field(ctx, "agent_id", "agentId"),
            payload_field(ctx, "workspace_dir", "workspaceDir"),
        )
        return self.engine.workspace(agent_id, ws_dir), session_key

    def _message(self, event: Any, ctx: Any, role: str, session_key: str | None) -> Message | None:
        from knowledge_engine.host.types import parse_timestamp, text_of

        text = text_of(payload_field(event, "content"))
        if not text:
            return None
        meta = payload_field(event, "metadata") or {}
        speaker = (
            payload_field(meta, "senderName", "sender_name", "speaker") if isinstance(meta, dict) else None
        )
        if role == "assistant":
            speaker = speaker or "assistant"
        ts = parse_timestamp(payload_field(event, "timestamp")) or utcnow()
        mid = (
            payload_field(event, "message_id", "messageId")
            or payload_field(ctx, "message_id", "messageId")
            or f"msg-{uuid.uuid4().hex}"
        )
        return Message(id=str(mid), text=text, role=role, session=session_key, speaker=speaker, timestamp=ts)

    # ------------------------------------------------------------------ hooks
    async def session_start(self, event: Any, ctx: Any) -> None:
        try:
            session_key = payload_field(event, "session_key", "sessionKey") or payload_field(
                ctx, "session_key", "sessionKey"
            )
            self.sessions.remember(
                session_key,
                payload_field(ctx, "agent_id", "agentId"),
                payload_field(ctx, "workspace_dir", "workspaceDir"),
            )
            ws, _ = self._workspace(event, ctx)
            if self.engine.config.retrieval.enabled:
                from knowledge_engine.retrieve.retriever import retriever_for

                retriever_for(self.engine, ws).warm_up()
        except Exception as exc:
            log.error("session_start failed: %s", type(exc).__name__)

    def _on_message(self, event: Any, ctx: Any, role: str) -> None:
        try:
            if role == "assistant" and payload_field(event, "success") is False:
                return
            ws, session_key = self._workspace(event, ctx)
            msg = self._message(event, ctx, role, session_key)
            if msg is None:
                counters.inc("hook.empty_message")
                return
            self.engine.submit(ws, msg)
        except Exception as exc:
            counters.inc("hook.errors")
            log.error("message hook failed: %s", type(exc).__name__)

    async def message_received(self, event: Any, ctx: Any) -> None:
        self._on_message(event, ctx, "user")

    async def message_sent(self, event: Any, ctx: Any) -> None:
        self._on_message(event, ctx, "assistant")

    async def before_prompt_build(self, event: Any, ctx: Any) -> dict[str, str] | None:
        try:
            self.sessions.remember(
                payload_field(ctx, "session_key", "sessionKey"),
                payload_field(ctx, "agent_id", "agentId"),
                payload_field(ctx, "workspace_dir", "workspaceDir"),
            )
            ws, _ = self._workspace(event, ctx)
            from knowledge_engine.retrieve.retriever import retriever_for

            return await retriever_for(self.engine, ws).hook(event, ctx)
        except Exception as exc:
            counters.inc("hook.errors")
            log.error("before_prompt_build failed: %s", type(exc).__name__)
            return None

    async def agent_end(self, event: Any, ctx: Any) -> None:
        try:
            ws, _ = self._workspace(event, ctx)
            from knowledge_engine.retrieve.retriever import retriever_for

            retriever_for(self.engine, ws).record_reply(event, ctx)
        except Exception as exc:
            log.debug("agent_end feedback skipped: %s", type(exc).__name__)

    async def gateway_stop(self, event: Any, ctx: Any) -> None:
        import asyncio

        try:
            from knowledge_engine.retrieve.sources.pgvector import close_pools

            await asyncio.wait_for(close_pools(), timeout=0.5)
        except Exception as exc:
            log.debug("closing pgvector pools: %s", type(exc).__name__)
        try:
            await asyncio.to_thread(self.engine.stop, 4.0)
        except Exception as exc:
            log.error("gateway_stop failed: %s", type(exc).__name__)


def register(api: Any) -> KnowledgePlugin | None:
    """Entry point the host calls: validate the config, then hook the engine in."""
    logger = getattr(api, "logger", None) or log
    try:
        config = load_config(getattr(api, "plugin_config", None) or {})
    except ConfigError as exc:
        logger.error(str(exc))
        raise
    if not config.enabled:
        logger.info("knowledge-engine is disabled by configuration")
        return None
    plugin = KnowledgePlugin(engine_for(config))
    plugin.engine.warm_up()
    if config.maintenance.enabled:
        from knowledge_engine.maintenance.scheduler import attach

        attach(plugin.engine)  # one scheduler per process; idempotent per engine
    api.on("session_start", plugin.session_start, priority=200)
    api.on("message_received", plugin.message_received, priority=100)
    api.on("message_sent", plugin.message_sent, priority=100)
    if config.retrieval.enabled:
        api.on(
            "before_prompt_build",
            plugin.before_prompt_build,
            priority=50,
            timeout_ms=config.retrieval.budget_ms + 1500,
        )
    if config.retrieval.feedback:
        api.on("agent_end", plugin.agent_end, priority=90)
    api.on("gateway_stop", plugin.gateway_stop, priority=900, timeout_ms=5000)
    emit("plugin.registered", retrieval=config.retrieval.enabled, llm=config.extraction.llm.enabled)
    return plugin
