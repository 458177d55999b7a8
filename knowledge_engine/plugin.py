"""The agent-host plugin: thin hook adapters that call the engine.

OpenClaw 2026.9 calls `register` once per gateway in `full` mode (plus cheap `discovery` calls, and
again after a plugin reload, possibly with another config), so process-wide state (the engine, its
workers, caches and pools) lives at module level, keyed by configuration: registering twice with one
config reuses one engine; registering with another config stops the old engine, whose unfinished work
is parked on disk and picked up by the new one. Handlers never raise into the host and never block it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from datetime import datetime
from typing import Any

import orjson

from knowledge_engine.config import ConfigError, EngineConfig, load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.host import capture
from knowledge_engine.host.types import (
    STOP_REASON_PLUGIN_REPLACEMENT,
    agent_id_from_session_key,
    payload_field,
)
from knowledge_engine.model.records import Message, utcnow
from knowledge_engine.observe import counters, emit, failure
from knowledge_engine.store.workspace import Workspace

PLUGIN_ID = "knowledge-engine"
log = logging.getLogger("knowledge_engine.plugin")

_ENGINES: dict[bytes, KnowledgeEngine] = {}
_ACTIVE: dict[str, KnowledgeEngine] = {}  # plugin id -> the engine its latest registration uses
_ENGINES_LOCK = threading.Lock()
#: What `gateway_stop` may spend (the gateway's own budget is 5 s).
STOP_BUDGET_S = 4.0


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
    """Remembers which agent and workspace folder a session key (and an agent) belongs to.

    OpenClaw's message hooks carry only a session key (`agent:<id>:...`); agent hooks carry the
    agent id and its workspace folder. Remembering the folder per agent keeps a session whose first
    hook is a message hook in the same workspace as its later turns.
    """

    def __init__(self) -> None:
        self._sessions: dict[str, tuple[str | None, str | None]] = {}
        self._agent_dirs: dict[str, str] = {}

    def remember(self, session_key: str | None, agent_id: str | None, workspace_dir: str | None) -> None:
        agent_id = agent_id or agent_id_from_session_key(session_key)
        if agent_id and workspace_dir:
            self._agent_dirs[agent_id] = workspace_dir
        if session_key and (agent_id or workspace_dir):
            self._sessions[session_key] = (agent_id, workspace_dir)

    def lookup(
        self, session_key: str | None, agent_id: str | None, workspace_dir: str | None
    ) -> tuple[str | None, str | None]:
        if not (agent_id or workspace_dir) and session_key:
            agent_id, workspace_dir = self._sessions.get(session_key) or (
                agent_id_from_session_key(session_key),
                None,
            )
        if agent_id and not workspace_dir:
            workspace_dir = self._agent_dirs.get(agent_id)
        return agent_id, workspace_dir


class AwaitingFolder:
    """Messages of agents whose workspace folder is not known yet, held for a few seconds.

    With the default `workspaceTemplate` ("{workspaceDir}/...") the folder comes from an agent hook's
    context, and in OpenClaw a session's first `message_received` fires before any agent hook. The
    turn's `before_prompt_build` follows within milliseconds and releases the held messages into the
    right workspace; a message whose agent never shows its folder goes to `workspaceRoot/<agent>`
    after `wait_s`.
    """

    def __init__(self, release: Any, wait_s: float = 10.0) -> None:
        self._release = release  # release(agent_id, [(message, source)]) -> None
        self.wait_s = wait_s
        self._held: dict[str, list[tuple[Message, str]]] = {}
        self._lock = threading.Lock()

    def hold(self, agent_id: str, msg: Message, source: str) -> None:
        with self._lock:
            first = agent_id not in self._held
            self._held.setdefault(agent_id, []).append((msg, source))
        if first:
            timer = threading.Timer(self.wait_s, self.release, (agent_id,))
            timer.daemon = True
            timer.start()

    def release(self, agent_id: str) -> None:
        with self._lock:
            held = self._held.pop(agent_id, None)
        if held:
            self._release(agent_id, held)

    def release_all(self) -> None:
        with self._lock:
            agents = list(self._held)
        for agent_id in agents:
            self.release(agent_id)

    def pending(self) -> int:
        with self._lock:
            return sum(len(v) for v in self._held.values())


class KnowledgePlugin:
    """The hook handlers of one registration, bound to the shared engine."""

    def __init__(self, engine: KnowledgeEngine) -> None:
        self.engine = engine
        self.sessions = SessionDirectory()
        self.recent = capture.RecentTexts()
        self.seen = capture.SeenIds()
        self.awaiting = AwaitingFolder(self._release_held)
        self.host_sessions: set[str] = set()  # sessions whose latest run is the host's own (heartbeat)
        self.started = utcnow()  # history older than this may have been stored by an earlier process
        engine.lifecycle_hooks.append(self)  # flush and stop first release the held messages

    # ------------------------------------------------------------------ engine lifecycle
    def engine_flushing(self, engine: KnowledgeEngine) -> None:
        self.awaiting.release_all()

    def engine_stopping(self, engine: KnowledgeEngine, timeout_s: float) -> None:
        self.awaiting.release_all()

    # ------------------------------------------------------------------ helpers
    def _remember(self, event: Any, ctx: Any) -> None:
        agent_id = payload_field(ctx, "agent_id", "agentId")
        ws_dir = payload_field(ctx, "workspace_dir", "workspaceDir")
        self.sessions.remember(capture.session_key_of(event, ctx), agent_id, ws_dir)
        if agent_id and ws_dir:
            self.awaiting.release(str(agent_id))

    def _locate(self, event: Any, ctx: Any) -> tuple[str | None, str | None]:
        return self.sessions.lookup(
            capture.session_key_of(event, ctx),
            payload_field(ctx, "agent_id", "agentId"),
            payload_field(ctx, "workspace_dir", "workspaceDir"),
        )

    def _folder_unknown(self, agent_id: str | None, ws_dir: str | None) -> bool:
        """Whether this agent's folder depends on a `workspaceDir` no hook has shown yet."""
        cfg = self.engine.config
        needs_dir = not cfg.workspace and "{workspaceDir}" in cfg.workspace_template
        return bool(agent_id) and not ws_dir and needs_dir

    def _workspace(self, event: Any, ctx: Any) -> tuple[Workspace, str | None]:
        agent_id, ws_dir = self._locate(event, ctx)
        return self.engine.workspace(agent_id, ws_dir), capture.session_key_of(event, ctx)

    def _release_held(self, agent_id: str, held: list[tuple[Message, str]]) -> None:
        try:
            _, ws_dir = self.sessions.lookup(None, agent_id, None)
            ws = self.engine.workspace(agent_id, ws_dir)
            for msg, source in held:
                self._submit(ws, msg, source)
        except Exception as exc:
            counters.inc("hook.errors")
            log.error("releasing held messages failed: %s", failure(exc))

    def _submit(self, ws: Workspace, msg: Message, source: str) -> bool:
        """Queue a message unless this process already has it (same id, or same text by another hook)."""
        return self._new(msg, source) and self.engine.submit(ws, msg)

    def _new(self, msg: Message, source: str) -> bool:
        if msg.id in self.seen:
            counters.inc("hook.duplicate_message")
            return False
        self.seen.add(msg.id)
        if not self.recent.is_new(msg.session, msg.role, msg.text, source):
            counters.inc("hook.duplicate_message")
            return False
        return True

    def _open_or_park(
        self, agent_id: str | None, ws_dir: str | None, msgs: list[Message], source: str
    ) -> Workspace | None:
        """The agent's workspace; None when its shared store is unreachable (it cannot open): then the
        messages are parked in its local folder, not lost with a failed hook."""
        try:
            return self.engine.workspace(agent_id, ws_dir)
        except Exception as exc:
            if not self.engine.store_unreachable(exc):
                raise
            for msg in msgs:
                if self._new(msg, source):
                    self.engine.park(agent_id, ws_dir, msg, exc)
            return None

    def _guarded(self, what: str, fn: Any, *args: Any) -> None:
        try:
            fn(*args)
        except Exception as exc:
            counters.inc("hook.errors")
            log.error("%s hook failed: %s", what, failure(exc))

    # ------------------------------------------------------------------ message capture
    def _capture_one(self, event: Any, ctx: Any, msg: Message | None, source: str) -> None:
        if msg is None:
            counters.inc("hook.empty_message")
            return
        agent_id, ws_dir = self._locate(event, ctx)
        if agent_id and self._folder_unknown(agent_id, ws_dir):
            self.awaiting.hold(agent_id, msg, source)
            return
        ws = self._open_or_park(agent_id, ws_dir, [msg], source)
        if ws is not None:
            self._submit(ws, msg, source)

    def _capture_history(self, event: Any, ctx: Any) -> None:
        self._remember(event, ctx)
        if self._host_run(event, ctx):
            return
        agent_id, ws_dir = self._locate(event, ctx)
        session_key = capture.session_key_of(event, ctx)
        items = payload_field(event, "messages") or []
        history = capture.history_messages(items if isinstance(items, list) else [], session_key, self.seen)
        ws = self._open_or_park(agent_id, ws_dir, history, "agent_end")
        if ws is None:
            return
        for msg in history:
            if _stored_before(ws, msg, self.started):  # by an earlier process: a restart replays the history
                self.seen.add(msg.id)
                continue
            self._submit(ws, msg, "agent_end")

    def _host_run(self, event: Any, ctx: Any) -> bool:
        """Whether this is one of the host's own runs (a heartbeat): not conversation, not stored.

        Replies sent for it (`message_sending`, no trigger in their context) are skipped until the
        session's next conversation run.
        """
        session = capture.session_key_of(event, ctx)
        trigger = payload_field(ctx, "trigger")
        if trigger is None:
            return session in self.host_sessions
        skip = str(trigger).lower() in {t.lower() for t in self.engine.config.memory.skip_triggers}
        if session:
            (self.host_sessions.add if skip else self.host_sessions.discard)(session)
        if skip:
            counters.inc("hook.host_run_skipped")
        return skip

    # ------------------------------------------------------------------ hooks
    async def session_start(self, event: Any, ctx: Any) -> None:
        try:
            self._remember(event, ctx)
            if self._folder_unknown(*self._locate(event, ctx)):
                return  # the turn's agent hooks name the folder; warming another one would be wasted
            ws, _ = self._workspace(event, ctx)
            if self.engine.config.retrieval.enabled:
                from knowledge_engine.retrieve.retriever import retriever_for

                retriever_for(self.engine, ws).warm_up()
        except Exception as exc:
            log.error("session_start failed: %s", failure(exc))

    def _capture(self, what: str, make: Any, event: Any, ctx: Any) -> None:
        def run() -> None:
            self._remember(event, ctx)
            if what != "message_received" and self._host_run(event, ctx):
                return
            self._capture_one(event, ctx, make(event, ctx), what)

        self._guarded(what, run)

    async def message_received(self, event: Any, ctx: Any) -> None:
        self._capture("message_received", capture.inbound_message, event, ctx)

    async def message_sending(self, event: Any, ctx: Any) -> None:
        """Observe only: webchat and A2A replies fire this hook and not `message_sent`."""
        self._capture("message_sending", capture.outbound_message, event, ctx)

    async def message_sent(self, event: Any, ctx: Any) -> None:
        self._capture("message_sent", capture.outbound_message, event, ctx)

    async def llm_output(self, event: Any, ctx: Any) -> None:
        self._capture("llm_output", capture.llm_output_message, event, ctx)

    async def before_prompt_build(self, event: Any, ctx: Any) -> dict[str, str] | None:
        try:
            self._remember(event, ctx)
            ws, _ = self._workspace(event, ctx)
            from knowledge_engine.retrieve.retriever import retriever_for

            return await retriever_for(self.engine, ws).hook(event, ctx)
        except Exception as exc:
            counters.inc("hook.errors")
            log.error("before_prompt_build failed: %s", failure(exc))
            return None

    async def agent_end(self, event: Any, ctx: Any) -> None:
        """The run's history: the user and assistant messages no other hook delivered, then feedback."""
        self._guarded("agent_end", self._capture_history, event, ctx)
        if not self.engine.config.retrieval.feedback:
            return
        try:
            ws, _ = self._workspace(event, ctx)
            from knowledge_engine.retrieve.retriever import retriever_for

            retriever_for(self.engine, ws).record_reply(event, ctx)
        except Exception as exc:
            log.debug("agent_end feedback skipped: %s", type(exc).__name__)

    async def gateway_stop(self, event: Any, ctx: Any) -> None:
        """Shutdown: flush and stop. Plugin replacement: flush only (`register` follows, maybe changed)."""
        self.awaiting.release_all()
        if payload_field(event, "reason") == STOP_REASON_PLUGIN_REPLACEMENT:
            try:
                await asyncio.to_thread(self.engine.flush, STOP_BUDGET_S, False)
            except Exception as exc:
                log.error("flush on plugin replacement failed: %s", failure(exc))
            return
        try:
            from knowledge_engine.retrieve.sources.pgvector import close_pools

            await asyncio.wait_for(close_pools(), timeout=0.5)
        except Exception as exc:
            log.debug("closing pgvector pools: %s", type(exc).__name__)
        try:
            await asyncio.to_thread(self.engine.stop, STOP_BUDGET_S)
        except Exception as exc:
            log.error("gateway_stop failed: %s", failure(exc))


#: A history message stored by an earlier process under another id is the same if its text is in the
#: session's log from this close in time (webchat's timestamp is the hook's clock, the history's the run's).
SAME_TURN_S = 300.0


def _stored_before(ws: Workspace, msg: Message, started: datetime) -> bool:
    """By its id, by the id `message_received` gave it, or, for a message from before this process
    started, as the same text at about the same time. (Later ones are matched in memory: a user may say
    "yes" twice within minutes, and both are stored.)"""
    log = ws.messages
    if log.get(msg.id) is not None:
        return True
    alias = capture.inbound_id(msg.id)
    if alias is not None and log.get(alias) is not None:
        return True
    if msg.timestamp >= started:
        return False
    return log.has_text_near(msg.session, msg.role, msg.text, msg.timestamp, SAME_TURN_S)


def _activate(plugin_id: str, engine: KnowledgeEngine) -> None:
    """Make `engine` the plugin's engine; a previous one (another config) is stopped and its work parked."""
    with _ENGINES_LOCK:
        previous = _ACTIVE.get(plugin_id)
        _ACTIVE[plugin_id] = engine
    if previous is not None and previous is not engine and not previous._stopped:
        previous.stop(STOP_BUDGET_S)
        with _ENGINES_LOCK:  # a stopped engine is never handed out again: keep no reference to it
            for key in [k for k, e in _ENGINES.items() if e is previous]:
                del _ENGINES[key]
        emit("plugin.reconfigured")


def register(api: Any) -> KnowledgePlugin | None:
    """Entry point the host calls: validate the config, then hook the engine in.

    In `discovery` mode (the gateway listing plugins) only the config is checked: no engine starts.
    """
    logger = getattr(api, "logger", None) or log
    try:
        config = load_config(getattr(api, "plugin_config", None) or {})
    except ConfigError as exc:
        logger.error(str(exc))
        raise
    if getattr(api, "registration_mode", "full") != "full":
        return None
    if not config.enabled:
        logger.info("knowledge-engine is disabled by configuration")
        return None
    engine = engine_for(config)
    _activate(str(getattr(api, "id", PLUGIN_ID)), engine)
    engine = engine_for(config)  # _activate may have stopped a cached engine of this very config
    plugin = KnowledgePlugin(engine)
    _hook(api, plugin, config)
    emit("plugin.registered", retrieval=config.retrieval.enabled, llm=config.extraction.llm.enabled)
    return plugin


def _pick_up_parked(engine: KnowledgeEngine) -> None:
    """Open every agent folder holding work an unclean stop left: opening replays it (ingest/pickup.py
    says why this cannot wait for the agent's next hook). Only after a crash is there anything to
    open; it is done before the hooks run, so a drain right after start covers it."""
    from knowledge_engine.ingest.pickup import parked_workspaces

    try:
        found = parked_workspaces(engine.config)
        for folder, agent in found:
            engine.add_parked(folder, agent)
        opened = engine.open_parked()  # a shared store still down: the next drain or hook tries again
    except Exception as exc:  # the agent's next hook opens its folder anyway
        log.error("picking up parked work failed: %s", failure(exc))
        return
    if found:
        emit("plugin.parked_work_opened", workspaces=opened, waiting=len(found) - opened)


def _hook(api: Any, plugin: KnowledgePlugin, config: EngineConfig) -> None:
    plugin.engine.warm_up()
    _pick_up_parked(plugin.engine)
    if config.retrieval.enabled:  # the embedder and chromadb, loaded before the first turn needs them
        from knowledge_engine.retrieve.warmup import warm_engine

        warm_engine(plugin.engine)
    if config.maintenance.enabled:
        from knowledge_engine.maintenance.scheduler import attach

        attach(plugin.engine)  # one scheduler per process; idempotent per engine
    api.on("session_start", plugin.session_start, priority=200)
    for name in ("message_received", "message_sending", "message_sent", "llm_output"):
        api.on(name, getattr(plugin, name), priority=100)
    api.on("agent_end", plugin.agent_end, priority=90)
    if config.retrieval.enabled:
        api.on(
            "before_prompt_build",
            plugin.before_prompt_build,
            priority=50,
            timeout_ms=config.retrieval.budget_ms + 1500,
        )
    api.on("gateway_stop", plugin.gateway_stop, priority=900, timeout_ms=5000)
