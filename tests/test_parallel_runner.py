"""Parallel source runner and per-source cooldown breaker."""

from __future__ import annotations

import asyncio
import logging

import orjson
import pytest

from knowledge_engine.model.retrieval import RetrievalRequest, RetrievedItem, SourceResult
from knowledge_engine.retrieve.cooldown import Breaker
from knowledge_engine.retrieve.parallel import gather_sources

SECRET_QUERY = "what did Zanzibar-Quokka say about the merger"


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class StubSource:
    """A source whose behaviour is chosen per test: ok / sleep / raise / hang."""

    def __init__(
        self, name: str, *, delay: float = 0.0, exc: BaseException | None = None, score: float = 0.5
    ):
        self.name = name
        self.delay = delay
        self.exc = exc
        self.score = score
        self.calls = 0
        self.cancelled = False

    async def search(self, request: RetrievalRequest) -> SourceResult:
        self.calls += 1
        try:
            await asyncio.sleep(self.delay)
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        if self.exc is not None:
            raise self.exc
        item = RetrievedItem(
            id=f"{self.name}:1", kind="document", source=self.name, text="t", score=self.score
        )
        return SourceResult(source=self.name, items=[item])


def _events(caplog: pytest.LogCaptureFixture, kind: str) -> list[dict[str, object]]:
    out = []
    for rec in caplog.records:
        msg = rec.getMessage()
        if msg.startswith("[knowledge.event] "):
            ev = orjson.loads(msg.split(" ", 1)[1])
            if ev["type"] == kind:
                out.append(ev)
    return out


REQ = RetrievalRequest(query=SECRET_QUERY)


def test_results_in_input_order_with_status_and_events(caplog: pytest.LogCaptureFixture) -> None:
    a, b = StubSource("a", score=0.9), StubSource("b", exc=ValueError("boom"))
    results = asyncio.run(gather_sources([a, b], REQ, budget_ms=2000, timeouts={"a": 1000, "b": 1000}))
    assert [r.source for r in results] == ["a", "b"]
    assert results[0].status == "ok" and results[0].items[0].score == 0.9
    assert results[1].status == "error" and results[1].error == "ValueError"
    events = _events(caplog, "source")
    assert {e["source"]: e["status"] for e in events} == {"a": "ok", "b": "error"}
    assert next(e for e in events if e["source"] == "a")["top_score"] == 0.9
    assert next(e for e in events if e["source"] == "a")["count"] == 1
    assert all(
        SECRET_QUERY not in r.getMessage() and "Zanzibar" not in r.getMessage() for r in caplog.records
    )


def test_slow_source_is_cut_at_its_own_timeout() -> None:
    fast, slow = StubSource("fast"), StubSource("slow", delay=30)
    results = asyncio.run(
        gather_sources([fast, slow], REQ, budget_ms=5000, timeouts={"fast": 1000, "slow": 100})
    )
    assert results[0].status == "ok"
    assert results[1].status == "timeout"
    assert slow.cancelled


def test_budget_caps_everything_and_late_sources_are_cancelled() -> None:
    """A source with a long own timeout still cannot hold the turn past the budget."""
    fast, slow = StubSource("fast"), StubSource("slow", delay=30)

    async def run() -> tuple[list[SourceResult], bool]:
        loop = asyncio.get_running_loop()
        start = loop.time()
        res = await gather_sources([fast, slow], REQ, budget_ms=200, timeouts={"fast": 5000, "slow": 60000})
        # generous bound: the point is "not 30 s", not a latency measurement
        return res, loop.time() - start < 10

    results, returned_early = asyncio.run(run())
    assert returned_early
    assert results[0].status == "ok"
    assert results[1].status == "timeout"
    assert slow.cancelled


def test_source_that_ignores_cancellation_does_not_block() -> None:
    class Stubborn(StubSource):
        async def search(self, request: RetrievalRequest) -> SourceResult:
            for _ in range(3):
                try:
                    await asyncio.sleep(0.3)
                except asyncio.CancelledError:
                    continue
            return await super().search(request)

    stubborn = Stubborn("stubborn")

    async def run() -> list[SourceResult]:
        res = await gather_sources([stubborn], REQ, budget_ms=100, timeouts={"stubborn": 100})
        await asyncio.sleep(1.2)  # let it finish so the loop closes cleanly
        return res

    assert asyncio.run(run())[0].status == "timeout"


def test_exception_category_attribute_is_used() -> None:
    class CategorisedError(RuntimeError):
        category = "http_401"

    results = asyncio.run(gather_sources([StubSource("x", exc=CategorisedError())], REQ, budget_ms=1000))
    assert results[0].status == "error" and results[0].error == "http_401"


def test_timeout_error_raised_by_source_counts_as_timeout() -> None:
    breaker = Breaker(name="x")
    results = asyncio.run(
        gather_sources([StubSource("x", exc=TimeoutError())], REQ, budget_ms=1000, breakers={"x": breaker})
    )
    assert results[0].status == "timeout"
    assert breaker.consecutive_timeouts == 1 and breaker.consecutive_errors == 0


def test_cooldown_after_three_errors_then_recovery(caplog: pytest.LogCaptureFixture) -> None:
    clock = FakeClock()
    breaker = Breaker(threshold=3, cooldown_s=300, clock=clock, name="bad")
    bad = StubSource("bad", exc=ConnectionError("down"))
    breakers = {"bad": breaker}
    for _ in range(3):
        assert asyncio.run(gather_sources([bad], REQ, 1000, breakers=breakers))[0].status == "error"
    assert bad.calls == 3
    cooldown_events = _events(caplog, "cooldown")
    assert len(cooldown_events) == 1
    assert cooldown_events[0]["scope"] == "bad" and cooldown_events[0]["reason"] == "errors"

    result = asyncio.run(gather_sources([bad], REQ, 1000, breakers=breakers))[0]
    assert result.status == "cooldown" and bad.calls == 3  # not called

    clock.now += 299
    assert asyncio.run(gather_sources([bad], REQ, 1000, breakers=breakers))[0].status == "cooldown"
    clock.now += 2
    bad.exc = None  # the server is back
    result = asyncio.run(gather_sources([bad], REQ, 1000, breakers=breakers))[0]
    assert result.status == "ok" and bad.calls == 4
    assert breaker.consecutive_errors == 0 and not breaker.is_open


def test_success_resets_the_error_streak() -> None:
    breaker = Breaker(threshold=3, clock=FakeClock())
    breaker.record_error()
    breaker.record_error()
    breaker.record_success()
    breaker.record_error()
    breaker.record_error()
    assert breaker.allow()
    breaker.record_error()
    assert not breaker.allow()


def test_timeouts_are_counted_separately_from_errors() -> None:
    clock = FakeClock()
    breaker = Breaker(threshold=3, clock=clock)
    breaker.record_error()
    breaker.record_error()
    breaker.record_timeout()
    breaker.record_timeout()
    assert breaker.allow()  # 2 errors + 2 timeouts is not 3 of either
    assert (breaker.consecutive_errors, breaker.consecutive_timeouts) == (2, 2)
    breaker.record_timeout()
    assert not breaker.allow()


def test_timeout_threshold_can_differ() -> None:
    breaker = Breaker(threshold=3, clock=FakeClock(), timeout_threshold=5)
    for _ in range(4):
        breaker.record_timeout()
    assert breaker.allow()
    breaker.record_timeout()
    assert not breaker.allow()


def test_cooldown_via_runner_for_repeated_timeouts() -> None:
    clock = FakeClock()
    breakers = {"slow": Breaker(clock=clock, name="slow")}
    slow = StubSource("slow", delay=10)
    for _ in range(3):
        assert asyncio.run(gather_sources([slow], REQ, 1000, {"slow": 20}, breakers))[0].status == "timeout"
    assert asyncio.run(gather_sources([slow], REQ, 1000, {"slow": 20}, breakers))[0].status == "cooldown"
    assert slow.calls == 3


def test_breaker_rejects_bad_threshold() -> None:
    with pytest.raises(ValueError):
        Breaker(threshold=0)


def test_no_sources_is_fine() -> None:
    assert asyncio.run(gather_sources([], REQ, 100)) == []


def test_events_are_logged_at_warning_for_failures(caplog: pytest.LogCaptureFixture) -> None:
    asyncio.run(gather_sources([StubSource("e", exc=KeyError("k"))], REQ, 500))
    rec = [r for r in caplog.records if '"type":"source"' in r.getMessage()]
    assert rec and rec[0].levelno == logging.WARNING
