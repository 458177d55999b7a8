"""Content-free observability: `[knowledge.event] {json}` log lines and counters.

Events carry counts, scores, durations, ids and reasons only. Never pass message text,
query text, or anything derived from them (not even a hash): the privacy tests capture
every log line.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from typing import Any

import orjson

log = logging.getLogger("knowledge_engine")
_EVENT_PREFIX = "[knowledge.event] "


class Counters:
    """Thread-safe named counters (skips, drops, truncations, failures...)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._c: Counter[str] = Counter()

    def inc(self, name: str, n: int = 1) -> None:
        with self._lock:
            self._c[name] += n

    def get(self, name: str) -> int:
        with self._lock:
            return self._c[name]

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(self._c)


counters = Counters()


def emit(event: str, level: int = logging.INFO, **fields: Any) -> None:
    """Log one structured event; never raises."""
    try:
        payload = orjson.dumps({"type": event, **fields}, default=str).decode()
        log.log(level, _EVENT_PREFIX + payload)
    except Exception:  # pragma: no cover - logging must never break the engine
        log.debug("event %s could not be serialised", event)


def failure(exc: BaseException) -> str:
    """An exception for a log line or a run record: its class and, for an OS error, the system's reason
    ("OSError: Read-only file system"), so an operator knows what to fix. Never the exception's own
    text, which may quote a message, a name or a URL with a password."""
    if isinstance(exc, OSError) and exc.strerror:
        return f"{type(exc).__name__}: {exc.strerror}"
    return type(exc).__name__
