"""The engine inside the sidecar: loaded through the plugin's `register(api)`, warmed up, drained, stopped.

Why through `PluginApi` + `register` + `HookRunner` and not the engine directly: the sidecar must
behave exactly as the plugin does in a Python host (same handlers, priorities, budgets and error
handling), so any hook the plugin registers works over HTTP without the sidecar knowing about it.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import sys
import threading
import time
from typing import Any

from knowledge_engine.host import HookRunner, PluginApi
from knowledge_engine.observe import counters, emit

log = logging.getLogger("knowledge_engine.sidecar")

PLUGIN_ID = "knowledge-engine"
HOST_STOP_HOOK = "gateway_stop"
REASON_REPLACEMENT = "plugin replacement"  # the plugin flushes without stopping (issue 12, section 3)
HOST_STOP_DRAIN_S = 4.0  # inside the gateway's 5 s gateway_stop budget


class UnknownHook(LookupError):
    """No handler is registered for the hook, or the runner refuses to run it."""


class SidecarRuntime:
    """One engine per process, reached only through the registered hook handlers."""

    def __init__(self, plugin_config: dict[str, Any]) -> None:
        self._plugin_config = plugin_config
        self.api = PluginApi(PLUGIN_ID, plugin_config, logging.getLogger("knowledge_engine.plugin"))
        self.plugin: Any = None
        self.runner: HookRunner | None = None
        self._ready = threading.Event()
        self._drain_lock = asyncio.Lock()

    # ------------------------------------------------------------------ start
    async def start(self) -> None:
        """Register the plugin (raises ConfigError on a bad config) and warm up in the background."""
        await self._register()
        threading.Thread(target=self._warm_up, name="knowledge-engine-sidecar-warmup", daemon=True).start()

    async def _register(self) -> None:
        from knowledge_engine.plugin import register

        api = PluginApi(PLUGIN_ID, self._plugin_config, logging.getLogger("knowledge_engine.plugin"))
        plugin = register(api)
        if inspect.isawaitable(plugin):
            plugin = await plugin
        self.api, self.plugin, self.runner = api, plugin, HookRunner(api.registrations)

    @property
    def engine(self) -> Any:
        """The plugin's current engine, or None when the plugin is disabled by configuration."""
        return getattr(self.plugin, "engine", None)

    def _warm_up(self) -> None:
        """Load the extraction tiers and wait for the retrieval warm-up `register` started (the embedder,
        chromadb), so `ready` means the first turns do not pay for them."""
        t0 = time.perf_counter()
        engine = self.engine
        try:
            if engine is not None:
                _ = engine.pipeline
                if engine.config.retrieval.enabled:
                    from knowledge_engine.retrieve.warmup import warm_engine

                    warm_engine(engine).wait()
        except Exception as exc:  # the hooks load what they need on first use instead
            log.warning("sidecar warm-up failed: %s", type(exc).__name__)
        finally:
            self._ready.set()
            emit("sidecar.ready", durationMs=round((time.perf_counter() - t0) * 1000))

    @property
    def ready(self) -> bool:
        return self._ready.is_set()

    @property
    def hooks(self) -> list[str]:
        """Names of the hooks the plugin registered handlers for."""
        return sorted({reg.hook_name for reg in self.api.registrations})

    # ------------------------------------------------------------------ hooks
    async def run_hook(self, name: str, event: dict[str, Any], ctx: dict[str, Any]) -> Any:
        """The runner's merged result (None for void hooks); UnknownHook when nothing would run.

        `gateway_stop` is the one exception: the sidecar outlives its host (a `spawn: false` sidecar,
        a plugin reload), so the host stopping must not stop the engine under later requests; it
        drains and flushes instead. The process's own signals stop the engine.
        """
        runner = self.runner
        if runner is None or not runner.has_hooks(name):
            raise UnknownHook(name)
        if name == HOST_STOP_HOOK:
            await self.drain(HOST_STOP_DRAIN_S)
            return None
        try:
            return await runner.run(name, event, ctx)
        except ValueError:  # the runner refuses hooks it has no semantics for (its message names the hook)
            raise UnknownHook(name) from None

    # ------------------------------------------------------------------ drain and stop
    def pending(self) -> int:
        engine = self.engine
        return int(engine.queue.pending()) if engine is not None else 0

    async def drain(self, timeout_s: float) -> tuple[bool, int]:
        """Hand over, extract and write everything accepted so far, keeping the engine running.

        Returns (drained, pending). The work continues on its own after the timeout (it is bounded
        by the same budget); a second drain waits for the first.
        """
        if self.engine is None:
            return True, 0
        t0 = time.perf_counter()
        async with self._drain_lock:
            work = asyncio.ensure_future(self._drain_work(time.monotonic() + timeout_s))
            try:
                ok = await asyncio.wait_for(asyncio.shield(work), timeout_s + 0.25)
            except TimeoutError:
                ok = False
        pending = self.pending()
        drained = bool(ok) and pending == 0
        emit("sidecar.drain", drained=drained, pending=pending,
             durationMs=round((time.perf_counter() - t0) * 1000))
        return drained, pending

    async def _drain_work(self, deadline: float) -> bool:
        """The plugin's own flush-only stop (gateway_stop, reason "plugin replacement"), so messages it
        still holds reach the engine; then the engine's flush for whatever budget is left."""
        runner = self.runner
        if runner is not None and runner.has_hooks(HOST_STOP_HOOK):
            await runner.run(HOST_STOP_HOOK, {"reason": REASON_REPLACEMENT}, {})
            await self._revive_if_stopped()
        await asyncio.to_thread(self._open_parked, self.engine)
        left = max(0.05, deadline - time.monotonic())
        return await asyncio.to_thread(self._flush, self.engine, left)

    async def _revive_if_stopped(self) -> None:
        """Register again if the plugin stopped its engine: the sidecar must keep accepting work."""
        if not getattr(self.engine, "_stopped", False):
            return
        log.warning("the plugin stopped its engine on a flush-only stop; registering it again")
        counters.inc("sidecar.reregistered")
        await self._register()

    @staticmethod
    def _open_parked(engine: Any) -> None:
        """Messages parked while their shared store was down are stored by the drain once it answers."""
        try:
            engine.open_parked()
        except Exception as exc:
            log.error("opening parked workspaces failed: %s", type(exc).__name__)

    @staticmethod
    def _flush(engine: Any, timeout_s: float) -> bool:
        try:
            return bool(engine.flush(timeout_s, sync=False))
        except Exception as exc:
            log.error("sidecar drain failed: %s", type(exc).__name__)
            return False

    async def stop(self, budget_s: float) -> bool:
        """Stop as a Python host does on shutdown: the plugin's `gateway_stop` (reason "shutdown"), so
        whatever the plugin holds is handed over before the engine drains, flushes and stops. The
        engine is then stopped directly too: a no-op after a handler that worked, the fallback after
        one that failed (the runner swallows failures) or when the plugin registered no such hook."""
        engine = self.engine
        if engine is None:
            return True
        deadline = time.monotonic() + budget_s
        runner = self.runner
        if runner is not None and runner.has_hooks(HOST_STOP_HOOK):
            try:
                await runner.run(HOST_STOP_HOOK, {"reason": "shutdown"}, {})  # bounded by the hook's budget
            except Exception as exc:
                log.error("gateway_stop in the sidecar failed: %s", type(exc).__name__)
            if await runner.wait_for_late(max(0.1, deadline - time.monotonic())):
                log.error("the plugin's gateway_stop overran its budget; exiting without waiting for it")
                return False
        else:
            await self._close_pools(min(0.5, budget_s / 8))
        left = max(0.5, deadline - time.monotonic())
        try:
            return bool(await asyncio.wait_for(asyncio.to_thread(engine.stop, left), left + 1.0))
        except TimeoutError:
            log.error("engine stop overran its %.1f s budget", budget_s)
            return False
        except Exception as exc:
            log.error("engine stop failed: %s", type(exc).__name__)
            return False

    @staticmethod
    async def _close_pools(timeout_s: float) -> None:
        """Close pgvector pools if that source was ever used (never import it just to close nothing)."""
        module = sys.modules.get("knowledge_engine.retrieve.sources.pgvector")
        close = getattr(module, "close_pools", None)
        if close is None:
            return
        with contextlib.suppress(Exception):
            await asyncio.wait_for(close(), timeout=timeout_s)
