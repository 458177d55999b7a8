"""Retrieval warm-up: what a turn needs, loaded in the background before the first turn asks for it.

A fresh process pays about 1.2 s to load the embedding model and 1.6 s to import chromadb (more on
a busy machine); inside a turn that is more than the local source's 2 s limit. So `register` starts
the process-wide part (`warm_engine`) and each workspace's retriever the rest (its Chroma
collections, its fact index). A turn that comes earlier waits for `ready` within its time limit or
answers from the keyword arms, and its timeout never counts toward the source's breaker.
"""

from __future__ import annotations

import importlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from knowledge_engine.observe import counters, emit
from knowledge_engine.store.backend import is_shared

if TYPE_CHECKING:
    from knowledge_engine.engine import KnowledgeEngine

log = logging.getLogger("knowledge_engine.retrieve")
Step = tuple[str, Callable[[], Any]]


class Warmup:
    """Runs its steps once, in order, on a daemon thread; `ready` is set when all have run, and
    `reached(step)` when that one has (a turn may need only some of them).

    A failing step is logged and counted, and the rest still run: a turn then meets the failure
    on its own path (and reports it) instead of waiting for a warm-up that never ends.
    """

    def __init__(self, scope: str, steps: Sequence[Step], stopped: Callable[[], bool] = bool) -> None:
        """`stopped`: the owner is shutting down, so the steps not begun yet are skipped (an index
        opened after its engine stopped would race the next engine on the same folder)."""
        self.scope = scope
        self.steps = list(steps)
        self._stopped = stopped
        self.ready = threading.Event()
        self._reached = {name: threading.Event() for name, _ in self.steps}
        self.failed: list[str] = []
        self._started = False
        self._lock = threading.Lock()

    @property
    def warming(self) -> bool:
        """Not ready yet (whether or not started): a turn now may pay for loading."""
        return not self.ready.is_set()

    def start(self) -> Warmup:
        """Start the thread unless it ran or runs already (cheap, idempotent)."""
        with self._lock:
            if self._started:
                return self
            self._started = True
        name = f"knowledge-engine-warmup-{self.scope}"
        threading.Thread(target=self._run, name=name, daemon=True).start()
        return self

    def wait(self, timeout_s: float | None = None) -> bool:
        """Start if needed and wait until ready (None: as long as it takes)."""
        return self.start().ready.wait(timeout_s)

    def reached(self, step: str) -> threading.Event:
        """Set once `step` has run (or failed, or was skipped); `ready` for a step not in the list."""
        return self._reached.get(step, self.ready)

    def _run(self) -> None:
        t0 = time.perf_counter()
        try:
            for name, step in self.steps:
                if self._stopped():
                    break
                try:
                    step()
                except Exception as exc:
                    self.failed.append(name)
                    counters.inc("retrieve.warmup_failed")
                    log.warning("retrieval warm-up step %s failed: %s", name, type(exc).__name__)
                self._reached[name].set()
        finally:
            for event in self._reached.values():
                event.set()
            self.ready.set()
            emit(
                "warmup",
                scope=self.scope,
                failed=self.failed,
                durationMs=round((time.perf_counter() - t0) * 1000),
            )


def engine_stopping(engine: KnowledgeEngine) -> bool:
    return bool(engine._closing or engine._stopped)


def engine_steps(engine: KnowledgeEngine) -> list[Step]:
    """The process-wide parts: the embedding model and the chromadb import (only with vectors on;
    the postgres backend's vectors are in pgvector, so it never imports chromadb)."""
    if not engine.config.embeddings.enabled:
        return []
    steps: list[Step] = [("embedder", lambda: _load_embedder(engine))]
    if not is_shared(engine.config.storage):
        steps.append(("chromadb", lambda: importlib.import_module("chromadb")))
    return steps


def _load_embedder(engine: KnowledgeEngine) -> None:
    embedder = engine.embedder
    load = getattr(embedder, "warm_up", None)  # the local model loads on first use; remote ones need nothing
    if callable(load):
        load()


def warm_engine(engine: KnowledgeEngine) -> Warmup:
    """The engine's process-wide warm-up, started once (at `register`, the sidecar's start, the CLI).
    The engine keeps it: a module-level map from engines to warm-ups whose steps hold the engine kept
    every engine alive."""
    warm = engine.part(
        Warmup, None, lambda: Warmup("engine", engine_steps(engine), lambda: engine_stopping(engine))
    )
    return warm.start()
