"""Feedback: learn which injected items replies actually use, as a small ranking signal.

HookClaw had the idea but never wired it. Here: the hook records what it injected per
turn; when the reply arrives (agent_end or the next message_sent) the tracker decides,
conservatively, which items the reply drew on, and keeps per-item counts. The utility
(citations + 1) / (retrievals + 2) is a Bayesian mean with a uniform prior, reported as
a neutral 0.5 until an item was judged 3 times. The file holds item ids and counts
only, never text; it is written atomically (temp file + rename).
"""

from __future__ import annotations

import logging
import math
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import orjson

from knowledge_engine import observe
from knowledge_engine.fsio import write_atomic
from knowledge_engine.model.retrieval import RetrievedItem
from knowledge_engine.retrieve.fuse import apply_boost

MIN_RETRIEVALS = 3
CITATION_SHARE = 0.30
MIN_OVERLAP_WORDS = 2
MAX_PENDING_TURNS = 256
MAX_TRACKED_ITEMS = 50_000
_WORD_RE = re.compile(r"\w+", re.UNICODE)


def _content_words(text: str) -> set[str]:
    return {w for w in _WORD_RE.findall(text.lower()) if len(w) > 3}


def is_cited(item_text: str, reply_text: str) -> bool:
    """Conservative overlap test: >= 30 % of the item's distinct words longer than 3
    characters appear in the reply, and at least 2 of them (one shared word is chance)."""
    words = _content_words(item_text)
    if not words:
        return False
    overlap = len(words & _content_words(reply_text))
    return overlap >= max(MIN_OVERLAP_WORDS, math.ceil(CITATION_SHARE * len(words) - 1e-9))


def utility_score(citations: int, retrievals: int) -> float:
    """Bayesian utility in [0, 1]; neutral 0.5 below MIN_RETRIEVALS judgements."""
    if retrievals < MIN_RETRIEVALS:
        return 0.5
    return (citations + 1) / (retrievals + 2)


class UtilityTracker:
    """Per-workspace utility counts, persisted to `path` (JSON)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._counts: dict[str, dict[str, int]] = self._load()
        self._pending: OrderedDict[str, list[tuple[str, str]]] = OrderedDict()

    def _load(self) -> dict[str, dict[str, int]]:
        try:
            raw = orjson.loads(self.path.read_bytes())
        except FileNotFoundError:
            return {}
        except (OSError, orjson.JSONDecodeError):
            observe.counters.inc("retrieval.feedback.load_failed")
            observe.emit("feedback_load_failed", level=logging.WARNING)
            return {}
        items = raw.get("items", {}) if isinstance(raw, dict) else {}
        out: dict[str, dict[str, int]] = {}
        for key, rec in items.items() if isinstance(items, dict) else ():
            if isinstance(rec, dict):
                r, c = rec.get("retrievals", 0), rec.get("citations", 0)
                if isinstance(r, int) and isinstance(c, int) and 0 <= c <= r:
                    out[str(key)] = {"retrievals": r, "citations": c}
        return out

    def record_injection(self, turn_key: str, items: Sequence[RetrievedItem | tuple[str, str]]) -> None:
        """Remember what this turn injected (kept in memory until its reply, bounded)."""
        pairs = [
            (it.id, it.text) if isinstance(it, RetrievedItem) else (str(it[0]), str(it[1])) for it in items
        ]
        with self._lock:
            self._pending[turn_key] = pairs
            self._pending.move_to_end(turn_key)
            while len(self._pending) > MAX_PENDING_TURNS:
                self._pending.popitem(last=False)
                observe.counters.inc("retrieval.feedback.pending_dropped")

    def record_reply(self, turn_key: str, reply_text: str) -> list[str]:
        """Judge the turn's injected items against the reply; return the ids judged cited."""
        with self._lock:
            pairs = self._pending.pop(turn_key, None)
            if not pairs:
                return []
            cited = []
            for item_id, text in pairs:
                rec = self._counts.setdefault(item_id, {"retrievals": 0, "citations": 0})
                rec["retrievals"] += 1
                if is_cited(text, reply_text):
                    rec["citations"] += 1
                    cited.append(item_id)
            self._prune()
            self._save()
        observe.emit("feedback", judged=len(pairs), cited=len(cited))
        return cited

    def _prune(self) -> None:
        if len(self._counts) <= MAX_TRACKED_ITEMS:
            return
        ranked = sorted(self._counts, key=lambda k: self._counts[k]["retrievals"])
        for key in ranked[: len(self._counts) - MAX_TRACKED_ITEMS]:
            del self._counts[key]

    def _save(self) -> None:
        data = orjson.dumps({"version": 1, "items": self._counts})
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self.path, data)
        except OSError:
            observe.counters.inc("retrieval.feedback.save_failed")
            observe.emit("feedback_save_failed", level=logging.WARNING)

    def utility(self, item_id: str) -> float:
        with self._lock:
            rec = self._counts.get(item_id)
        return utility_score(rec["citations"], rec["retrievals"]) if rec else 0.5

    def counts(self, item_id: str) -> tuple[int, int]:
        """(citations, retrievals) of an item."""
        with self._lock:
            rec = self._counts.get(item_id, {"retrievals": 0, "citations": 0})
        return rec["citations"], rec["retrievals"]

    def boost(self, items: Sequence[RetrievedItem], weight: float) -> list[RetrievedItem]:
        """Re-rank: score *= 1 + weight * (2 * utility - 1); neutral items are unchanged."""
        signals = {it.id: 2.0 * self.utility(it.id) - 1.0 for it in items}
        signals = {k: v for k, v in signals.items() if v != 0.0}
        return apply_boost(items, signals, weight, "utility")
