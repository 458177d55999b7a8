"""Run retrieval sources concurrently under per-source timeouts and one overall budget.

The host gives the hook a hard deadline, so whatever is ready when the budget runs out is
used and the rest is cancelled. Nothing raises out of here: a failing source becomes a
SourceResult with status "error" and a content-free category, so the agent always runs. A source
still warming up (loading its model) may time out; that is reported, but never trips its breaker.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence

from knowledge_engine.model.retrieval import RetrievalRequest, Source, SourceResult
from knowledge_engine.observe import counters, emit
from knowledge_engine.retrieve.cooldown import Breaker

DEFAULT_TIMEOUT_MS = 3000
#: The error category of a timeout that overlapped the source's warm-up; it never counts toward its breaker.
WARMING = "warming"


def error_category(exc: BaseException) -> str:
    """A content-free label: an explicit `category` attribute, else the exception class name."""
    category = getattr(exc, "category", None)
    return category if isinstance(category, str) and category else type(exc).__name__


def _elapsed_ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)


def _warming(source: Source) -> bool:
    """A source may say it is still loading (`warming`, e.g. the local one's embedder and Chroma)."""
    return bool(getattr(source, "warming", False))


async def _run_one(source: Source, request: RetrievalRequest, timeout_ms: float) -> SourceResult:
    """Call one source; map its timeout or exception to a result."""
    start = time.perf_counter()
    warming = _warming(source)
    try:
        result = await asyncio.wait_for(source.search(request), timeout_ms / 1000)
    except TimeoutError as exc:  # asyncio.TimeoutError is TimeoutError on 3.11+
        cat = getattr(exc, "category", None) or "timeout"
        if warming or _warming(source):
            cat = WARMING
        return SourceResult(source=source.name, status="timeout", error=cat, duration_ms=_elapsed_ms(start))
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        return SourceResult(
            source=source.name, status="error", error=error_category(exc), duration_ms=_elapsed_ms(start)
        )
    if not result.duration_ms:
        result.duration_ms = _elapsed_ms(start)
    return result


def _consume(task: asyncio.Task[SourceResult]) -> None:
    """Retrieve a cancelled task's outcome so asyncio does not log 'exception never retrieved'."""
    if not task.cancelled():
        task.exception()


def _record(breaker: Breaker | None, result: SourceResult) -> None:
    if breaker is None:
        return
    if result.status == "ok":
        breaker.record_success()
    elif result.status == "timeout" and result.error == WARMING:
        counters.inc(f"retrieve.{result.source}.warming_timeout")  # loading, not failing: no breaker
    elif result.status == "timeout":
        breaker.record_timeout()
    elif result.status == "error":
        breaker.record_error()


def _emit(result: SourceResult) -> None:
    top = max((i.score for i in result.items), default=None)
    emit(
        "source",
        logging.INFO if result.status in ("ok", "cooldown") else logging.WARNING,
        source=result.source,
        status=result.status,
        count=len(result.items),
        top_score=round(top, 4) if top is not None else None,
        chars=len(result.text or ""),
        duration_ms=result.duration_ms,
        error=result.error,
        mock=result.mock,
    )


async def gather_sources(
    sources: Sequence[Source],
    request: RetrievalRequest,
    budget_ms: float,
    timeouts: Mapping[str, float] | None = None,
    breakers: Mapping[str, Breaker] | None = None,
) -> list[SourceResult]:
    """Start every source at once; return one result per source, in input order, within budget_ms."""
    timeouts = timeouts or {}
    breakers = breakers or {}
    start = time.perf_counter()
    results: dict[int, SourceResult] = {}
    tasks: dict[asyncio.Task[SourceResult], int] = {}
    for idx, source in enumerate(sources):
        breaker = breakers.get(source.name)
        if breaker is not None and not breaker.allow():
            results[idx] = SourceResult(source=source.name, status="cooldown")
            continue
        timeout = min(float(timeouts.get(source.name, DEFAULT_TIMEOUT_MS)), float(budget_ms))
        tasks[asyncio.create_task(_run_one(source, request, timeout))] = idx
    if tasks:
        warming = {idx for idx, source in enumerate(sources) if _warming(source)}
        done, pending = await asyncio.wait(tasks, timeout=budget_ms / 1000)
        for task in pending:
            task.cancel()
        for task in done:
            results[tasks[task]] = task.result()
        for task in pending:
            # Not awaited: a source that ignores cancellation must not hold the turn past the budget.
            task.add_done_callback(_consume)
            idx = tasks[task]
            cut = WARMING if idx in warming or _warming(sources[idx]) else "budget"
            results[idx] = SourceResult(
                source=sources[idx].name, status="timeout", error=cut, duration_ms=_elapsed_ms(start)
            )
    ordered = [results[i] for i in range(len(sources))]
    for result in ordered:
        if result.status != "cooldown":
            _record(breakers.get(result.source), result)
        _emit(result)
    return ordered
