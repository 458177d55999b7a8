"""LightRAG knowledge-graph context over its documented `POST /query` API.

We ask for context only (`only_need_context`), so LightRAG spends no LLM answer on us; the
references' file paths are kept for provenance (from `references`, else from the context's own
reference list). The context is kept whole: the block renderer picks entities, relations and
chunks from it so that the rendered section fits its budget (inject/lightrag_context.py). Failures raise
`LightragError` with a content-free category (`http_401`, `timeout`, ...) that the parallel
runner reports.
"""

from __future__ import annotations

import re
import time
from typing import Any

import httpx

from knowledge_engine.config import LightragConfig
from knowledge_engine.inject.lightrag_context import GraphContext, parse_context
from knowledge_engine.model.retrieval import RetrievalRequest, RetrievedItem, SourceResult
from knowledge_engine.observe import emit

NO_CONTEXT_MARKERS = ("no relevant context found", "[no-context]")
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
RAW_CAP = 400_000  # characters kept of one context (LightRAG's own default cap is ~30k tokens)


class LightragError(RuntimeError):
    """A failed LightRAG call; `category` is safe to log."""

    def __init__(self, category: str, detail: str = "") -> None:
        self.category = category
        super().__init__(f"LightRAG query failed: {category}" + (f" ({detail})" if detail else ""))


class LightragTimeout(LightragError, TimeoutError):
    """The server did not answer in time (counted as a timeout, not an error)."""

    def __init__(self) -> None:
        super().__init__("timeout")


def truncate_at_sentence(text: str, max_chars: int) -> str:
    """Cut at the last sentence end past half the budget (the seed's rule), else a hard cut."""
    if len(text) <= max_chars:
        return text
    window = text[:max_chars]
    ends = [m.end() for m in _SENTENCE_END.finditer(window)]
    if ends and ends[-1] > max_chars * 0.5:
        return window[: ends[-1]].rstrip()
    return window.rstrip()


def is_no_context(text: str) -> bool:
    low = text.strip().lower()
    return not low or any(low.startswith(m) or low == m for m in NO_CONTEXT_MARKERS)


def _reference_items(refs: Any) -> list[RetrievedItem]:
    """One graph item per distinct non-empty file_path, in server order."""
    items: list[RetrievedItem] = []
    seen: set[str] = set()
    if not isinstance(refs, list):
        return items
    for pos, ref in enumerate(refs):
        if not isinstance(ref, dict):
            continue
        path = ref.get("file_path")
        if not isinstance(path, str) or not path.strip() or path in seen:
            continue
        seen.add(path)
        content = ref.get("content")
        text = "\n\n".join(c for c in content if isinstance(c, str)) if isinstance(content, list) else ""
        ref_id = str(ref.get("reference_id") or pos + 1)
        extra: dict[str, Any] = {"reference_id": ref_id}
        if isinstance(ref.get("score"), int | float):
            extra["score"] = float(ref["score"])
        items.append(
            RetrievedItem(
                id=f"lightrag:{ref_id}",
                kind="graph",
                source="lightrag",
                text=text,
                file_path=path,
                extra=extra,
            )
        )
    return items


def _text_reference_items(ctx: GraphContext) -> list[RetrievedItem]:
    """Reference items from the context's own `[n] path` list (when `references` is null)."""
    refs = [
        {"reference_id": ref_id, "file_path": path, "content": [c for r, c in ctx.chunks if r == ref_id]}
        for ref_id, path in ctx.references
    ]
    return _reference_items(refs)


def parse_response(data: Any, max_chars: int, duration_ms: float = 0.0) -> SourceResult:
    """Turn a /query JSON body into a SourceResult (empty when LightRAG found nothing).

    A context in LightRAG's template shape is kept whole (the renderer selects from it within
    the section budget); other free text is cut at a sentence within `max_chars`."""
    if not isinstance(data, dict):
        raise LightragError("bad_response", "body is not a JSON object")
    raw = data.get("response") or data.get("context") or ""
    if not isinstance(raw, str):
        raise LightragError("bad_response", "response is not a string")
    if is_no_context(raw):
        return SourceResult(source="lightrag", duration_ms=duration_ms)
    raw = raw.strip()
    ctx = parse_context(raw[:RAW_CAP])
    text = raw[:RAW_CAP].rsplit("\n", 1)[0] if len(raw) > RAW_CAP else raw
    if not ctx:
        text = truncate_at_sentence(raw, max_chars)
    items = _reference_items(data.get("references")) or _text_reference_items(ctx)
    emit(
        "lightrag",
        context_chars=len(text),
        truncated_chars=len(raw) - len(text),
        sparse=len(text) < 200,
        reference_count=len(items),
        entities=len(ctx.entities),
        relations=len(ctx.relations),
        chunks=len(ctx.chunks),
    )
    return SourceResult(source="lightrag", text=text, items=items, duration_ms=duration_ms)


class LightragSource:
    """`Source` for a LightRAG server; a fresh AsyncClient per call keeps it loop-agnostic."""

    name = "lightrag"

    def __init__(self, config: LightragConfig) -> None:
        if not config.url:
            raise ValueError("lightrag.url is empty")
        self.config = config
        self.endpoint = config.url.rstrip("/") + "/query"

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.config.api_key:
            headers["X-API-Key"] = self.config.api_key
        return headers

    def _body(self, query: str) -> dict[str, Any]:
        return {
            "query": query,
            "mode": self.config.mode,
            "only_need_context": True,
            "include_references": True,
            "stream": False,
        }

    async def _post(self, query: str) -> httpx.Response:
        timeout = httpx.Timeout(self.config.timeout_ms / 1000)
        try:
            async with httpx.AsyncClient(timeout=timeout, trust_env=False) as client:
                return await client.post(self.endpoint, json=self._body(query), headers=self._headers())
        except httpx.TimeoutException:
            raise LightragTimeout() from None
        except httpx.HTTPError as exc:
            raise LightragError("connect_error", type(exc).__name__) from None

    async def search(self, request: RetrievalRequest) -> SourceResult:
        start = time.perf_counter()
        resp = await self._post(request.query)
        if resp.status_code != 200:
            raise LightragError(f"http_{resp.status_code}")
        try:
            data = resp.json()
        except ValueError:
            raise LightragError("bad_response", "not JSON") from None
        return parse_response(data, self.config.max_chars, round((time.perf_counter() - start) * 1000, 2))
