"""testMode (from the openclaw-knowledge seed): canned remote results, no network, no database
(factory.py picks these mocks when `testMode.enabled`).

It lets an operator check end to end that injected knowledge reaches the model (the default
text carries the citable marker fact HX-2026-0042) without LightRAG or PostgreSQL. Because
canned data in production would be a silent disaster, it is announced with a loud warning.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from knowledge_engine.config import LightragConfig, TestModeConfig
from knowledge_engine.model.retrieval import RetrievalRequest, RetrievedItem, SourceResult
from knowledge_engine.observe import emit
from knowledge_engine.retrieve.sources.lightrag import truncate_at_sentence

log = logging.getLogger("knowledge_engine.retrieve")
WARNING_TEXT = "⚠️ TEST MODE ACTIVE: LightRAG and pgvector return canned data (testMode.enabled=true)"
_warned = False
_warn_lock = threading.Lock()

_EXTRA_KEYS = ("chunk_index", "total_chunks", "timestamp_start", "timestamp_end")


def warn_test_mode() -> bool:
    """Log the loud warning once per process; True if this call logged it."""
    global _warned
    with _warn_lock:
        if _warned:
            return False
        _warned = True
    log.warning(WARNING_TEXT)
    emit("test_mode", logging.WARNING, active=True)
    return True


def reset_test_mode_warning() -> None:
    """Forget that the warning was logged (a new engine instance warns again)."""
    global _warned
    with _warn_lock:
        _warned = False


class MockLightragSource:
    """Returns `lightragMockResponse` with {{query}} substituted, and the mock references."""

    name = "lightrag"

    def __init__(self, test_mode: TestModeConfig, lightrag: LightragConfig) -> None:
        self.test_mode = test_mode
        self.max_chars = lightrag.max_chars

    def _items(self) -> list[RetrievedItem]:
        items: list[RetrievedItem] = []
        for pos, ref in enumerate(self.test_mode.lightrag_mock_references, 1):
            path, content, ref_id = _mock_reference(ref, pos)
            if path and path not in {i.file_path for i in items}:
                items.append(
                    RetrievedItem(
                        id=f"lightrag:{ref_id}", kind="graph", source="lightrag", text=content,
                        file_path=path, extra={"reference_id": ref_id},
                    )
                )
        return items

    async def search(self, request: RetrievalRequest) -> SourceResult:
        text = self.test_mode.lightrag_mock_response.replace("{{query}}", request.query)
        text = truncate_at_sentence(text.strip(), self.max_chars)
        return SourceResult(source=self.name, text=text, items=self._items(), mock=True)


def _mock_reference(ref: Any, pos: int) -> tuple[str, str, str]:
    """A reference is a file path string or {file_path, reference_id?, content?: [str]}."""
    if isinstance(ref, str):
        return ref, "", str(pos)
    if isinstance(ref, dict) and isinstance(ref.get("file_path"), str):
        content = ref.get("content")
        text = "\n\n".join(c for c in content if isinstance(c, str)) if isinstance(content, list) else ""
        return ref["file_path"], text, str(ref.get("reference_id") or pos)
    return "", "", str(pos)


class MockPgvectorSource:
    """Returns `pgvectorMockResults` as document items (score 0.8, collection knowledge_test by default)."""

    name = "pgvector"

    def __init__(self, test_mode: TestModeConfig) -> None:
        self.test_mode = test_mode

    async def search(self, request: RetrievalRequest) -> SourceResult:
        items: list[RetrievedItem] = []
        for pos, row in enumerate(self.test_mode.pgvector_mock_results):
            score = float(row.get("score", 0.8))
            collection = str(row.get("collection") or "knowledge_test")
            extra = {k: row.get(k) for k in _EXTRA_KEYS}
            items.append(
                RetrievedItem(
                    id=f"pgvector:mock:{pos}", kind="document", source="pgvector",
                    text=str(row.get("text") or ""), score=score, scores={"vector": score},
                    file_path=row.get("file_name"), collection=collection, extra=extra,
                )
            )
        items.sort(key=lambda i: i.score, reverse=True)
        return SourceResult(source=self.name, items=items, mock=True)
