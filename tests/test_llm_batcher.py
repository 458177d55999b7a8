"""LlmBatcher against the loopback server: batching, retries, cool-down, parking, restart, overflow."""

from __future__ import annotations

import math
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import orjson
import pytest

from knowledge_engine.config import LlmConfig
from knowledge_engine.extract.batcher import LlmBatcher
from knowledge_engine.extract.llm import LlmTier
from knowledge_engine.llm.factory import make_client
from knowledge_engine.model.extraction import Extraction
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters
from tests.servers.ollama_server import FakeOllamaServer
from tests.test_llm_tier import make_messages, person

WAIT = 60.0  # upper bound for waiting on the worker (generous: two busy cores); never asserted as a duration


class Sink:
    """Collects what the batcher delivers; can be told to fail."""

    def __init__(self) -> None:
        self.batches: list[tuple[list[Message], list[Extraction]]] = []
        self.fail_next = 0
        self._cond = threading.Condition()

    def __call__(self, messages: list[Message], extractions: list[Extraction]) -> None:
        with self._cond:
            if self.fail_next:
                self.fail_next -= 1
                raise RuntimeError(f"cannot store {messages[0].text!r}")  # must not reach the logs
            self.batches.append((messages, extractions))
            self._cond.notify_all()

    def delivered_ids(self) -> list[str]:
        with self._cond:
            return [m.id for msgs, _ in self.batches for m in msgs]

    def wait_for(self, n_messages: int, timeout: float = WAIT) -> bool:
        deadline = time.monotonic() + timeout
        with self._cond:
            while len([m for msgs, _ in self.batches for m in msgs]) < n_messages:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return True


def wait_until(pred: Callable[[], bool], timeout: float = WAIT) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.01)
    return pred()


@pytest.fixture
def make_batcher(
    ollama_server: FakeOllamaServer, tmp_path: Path
) -> Iterator[Callable[..., tuple[LlmBatcher, Sink]]]:
    made: list[LlmBatcher] = []

    def factory(
        sink: Sink | None = None,
        start: bool = True,
        pending: Path | None = None,
        inbox: bool = False,
        **kw: object,
    ) -> tuple[LlmBatcher, Sink]:
        raw = {
            "endpoint": ollama_server.url,
            "enabled": True,
            "cooldownMs": 60000,
            "retryBackoffMs": 1,
            **kw,
        }
        config = LlmConfig.model_validate(raw)
        sink = sink or Sink()
        b = LlmBatcher(
            config,
            LlmTier(config, make_client(config)),
            pending or tmp_path / "pending",
            sink,
            lambda: [("Acme", "organization")],
            inbox=inbox,
        )
        made.append(b)
        if start:
            b.start()
        return b, sink

    yield factory
    for b in made:
        b.stop(1.0)


@pytest.mark.parametrize(("n", "size"), [(10, 4), (25, 10), (7, 1), (3, 10)])
def test_burst_costs_exactly_ceil_n_over_batch_size_calls(
    make_batcher: Callable[..., tuple[LlmBatcher, Sink]], ollama_server: FakeOllamaServer, n: int, size: int
) -> None:
    batcher, sink = make_batcher(batchSize=size)
    messages = make_messages(n)
    for m in messages:
        batcher.add(m)
    assert batcher.flush(WAIT)
    assert len(ollama_server.calls()) == math.ceil(n / size)
    assert sorted(sink.delivered_ids()) == sorted(m.id for m in messages)
    assert all(len(msgs) <= size for msgs, _ in sink.batches)
    assert batcher.stats()["sent_batches"] == math.ceil(n / size)


def test_every_message_of_a_batch_gets_its_facts(
    make_batcher: Callable[..., tuple[LlmBatcher, Sink]],
) -> None:
    batcher, sink = make_batcher(batchSize=5)
    for m in make_messages(5):
        batcher.add(m)
    assert sink.wait_for(5)
    ((messages, extractions),) = sink.batches
    assert [e.message_id for e in extractions] == [m.id for m in messages]
    for i, e in enumerate(extractions):
        assert [(f.subject, f.object) for f in e.facts] == [(person(i), f"Company{i}")]


def test_quiet_cooldown_sends_a_partial_batch(
    make_batcher: Callable[..., tuple[LlmBatcher, Sink]], ollama_server: FakeOllamaServer
) -> None:
    batcher, sink = make_batcher(batchSize=10, cooldownMs=300)
    for m in make_messages(3):
        batcher.add(m)
    assert sink.wait_for(3)  # no flush: the quiet period alone triggers the send
    assert len(ollama_server.calls()) == 1
    assert len(sink.batches[0][0]) == 3


def test_known_entities_reach_the_prompt(
    make_batcher: Callable[..., tuple[LlmBatcher, Sink]], ollama_server: FakeOllamaServer
) -> None:
    batcher, _ = make_batcher(batchSize=1)
    batcher.add(make_messages(1)[0])
    assert batcher.flush(WAIT)
    assert "- Acme (organization)" in ollama_server.calls()[0].body["messages"][1]["content"]


@pytest.mark.parametrize(
    "behaviour", ["http500", "malformed", "truncated", "error_body", "hang", "mid_stream_error", "empty"]
)
def test_a_failed_call_is_retried_and_then_delivers(
    make_batcher: Callable[..., tuple[LlmBatcher, Sink]], ollama_server: FakeOllamaServer, behaviour: str
) -> None:
    ollama_server.script(behaviour)
    batcher, sink = make_batcher(batchSize=3, timeoutMs=1500)
    for m in make_messages(3):
        batcher.add(m)
    assert sink.wait_for(3)
    assert len(ollama_server.calls()) == 2
    stats = batcher.stats()
    assert stats["failures"] == 1 and stats["pending_batches"] == 0 and not stats["cooling_down"]
    ollama_server.release_hangs()


def test_three_failures_cool_the_tier_down_and_batches_park(
    make_batcher: Callable[..., tuple[LlmBatcher, Sink]], ollama_server: FakeOllamaServer
) -> None:
    ollama_server.default = "http500"
    before = counters.get("llm.cooldowns")
    batcher, sink = make_batcher(batchSize=2, maxRetries=5, failureThreshold=3, failureCooldownMs=600000)
    for m in make_messages(2):
        batcher.add(m)
    assert batcher.flush(WAIT)
    assert len(ollama_server.calls()) == 3  # not 6: the breaker opened after 3 consecutive failures
    stats = batcher.stats()
    assert stats["cooling_down"] and stats["failures"] == 3 and stats["pending_batches"] == 1
    assert counters.get("llm.cooldowns") - before == 1
    for m in make_messages(4, start=2):
        batcher.add(m)
    assert batcher.flush(WAIT)
    assert len(ollama_server.calls()) == 3  # cooling down: no calls, the new batches park
    assert batcher.stats()["pending_batches"] == 3
    assert sink.batches == []


def test_after_the_cooldown_parked_batches_are_delivered(
    make_batcher: Callable[..., tuple[LlmBatcher, Sink]], ollama_server: FakeOllamaServer
) -> None:
    ollama_server.default = "http500"
    batcher, sink = make_batcher(batchSize=2, maxRetries=0, failureThreshold=3, failureCooldownMs=300)
    messages = make_messages(8)
    for m in messages:
        batcher.add(m)
    assert batcher.flush(WAIT)
    assert batcher.stats()["pending_batches"] == 4
    ollama_server.default = "ok"
    assert sink.wait_for(8)  # the worker drains the parked batches by itself once cooled down
    assert Counter(sink.delivered_ids()) == Counter(m.id for m in messages)
    assert wait_until(lambda: batcher.stats()["pending_batches"] == 0)


def test_outage_then_restart_delivers_everything_once(
    make_batcher: Callable[..., tuple[LlmBatcher, Sink]], ollama_server: FakeOllamaServer, tmp_path: Path
) -> None:
    ollama_server.default = "http500"
    first, first_sink = make_batcher(batchSize=2, maxRetries=1, failureCooldownMs=600000)
    messages = make_messages(5)
    for m in messages:
        first.add(m)
    assert first.flush(WAIT)
    first.stop(2.0)
    files = sorted((tmp_path / "pending").glob("batch-*.json"))
    assert len(files) == 3
    assert sum(len(orjson.loads(f.read_bytes())["messages"]) for f in files) == 5
    assert first_sink.batches == []

    ollama_server.default = "ok"
    calls_before = len(ollama_server.calls())
    _second, second_sink = make_batcher(batchSize=2)  # a new process: retries what was parked on start
    assert second_sink.wait_for(5)
    assert Counter(second_sink.delivered_ids()) == Counter(m.id for m in messages)
    assert len(ollama_server.calls()) - calls_before == 3
    assert wait_until(lambda: not list((tmp_path / "pending").glob("batch-*.json")))
    restored = {m.id: m for msgs, _ in second_sink.batches for m in msgs}
    assert restored["m0"] == messages[0]  # text, speaker and timestamp survive the disk round trip


def test_stop_persists_unsent_queue(
    make_batcher: Callable[..., tuple[LlmBatcher, Sink]], ollama_server: FakeOllamaServer, tmp_path: Path
) -> None:
    first, _ = make_batcher(start=False, batchSize=2)
    for m in make_messages(5):
        first.add(m)
    first.stop(1.0)
    assert len(ollama_server.calls()) == 0
    assert len(list((tmp_path / "pending").glob("batch-*.json"))) == 3
    _second, sink = make_batcher(batchSize=2)
    assert sink.wait_for(5)
    assert sorted(sink.delivered_ids()) == sorted(f"m{i}" for i in range(5))


def test_stop_during_a_hanging_call_parks_it_without_duplicates(
    make_batcher: Callable[..., tuple[LlmBatcher, Sink]], ollama_server: FakeOllamaServer, tmp_path: Path
) -> None:
    ollama_server.script("hang")
    first, first_sink = make_batcher(batchSize=3, timeoutMs=20000)
    for m in make_messages(3):
        first.add(m)
    assert wait_until(lambda: len(ollama_server.calls()) == 1)
    first.stop(0.3)  # the call is still hanging: the batch is parked
    assert len(list((tmp_path / "pending").glob("batch-*.json"))) == 1
    ollama_server.release_hangs()  # the old call now answers; its result must not be stored twice
    _second, second_sink = make_batcher(batchSize=3)
    assert second_sink.wait_for(3)
    assert wait_until(lambda: len(ollama_server.calls()) == 2)
    time.sleep(0.2)  # give the abandoned worker its chance to (wrongly) deliver
    assert first_sink.batches == []
    assert sorted(second_sink.delivered_ids()) == ["m0", "m1", "m2"]


def test_sink_failure_parks_and_retry_pending_delivers_once(
    make_batcher: Callable[..., tuple[LlmBatcher, Sink]], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    sink = Sink()
    sink.fail_next = 1
    batcher, _ = make_batcher(sink=sink, batchSize=2, failureCooldownMs=600000)
    for m in make_messages(2):
        batcher.add(m)
    assert batcher.flush(WAIT)
    assert sink.batches == [] and batcher.stats()["pending_batches"] == 1
    assert "llm.sink_failed" in caplog.text and "works at" not in caplog.text
    assert batcher.retry_pending() == 1
    assert sink.delivered_ids() == ["m0", "m1"]
    assert batcher.stats()["pending_batches"] == 0
    assert batcher.retry_pending() == 0


def test_with_an_inbox_a_delivered_file_waits_for_the_store_flush(
    make_batcher: Callable[..., tuple[LlmBatcher, Sink]], tmp_path: Path
) -> None:
    sink = Sink()
    sink.fail_next = 1
    batcher, _ = make_batcher(sink=sink, inbox=True, batchSize=2, failureCooldownMs=600000)
    for m in make_messages(2):
        batcher.add(m)
    inbox = tmp_path / "pending" / "inbox.jsonl"
    assert len(inbox.read_bytes().splitlines()) == 2
    assert batcher.flush(WAIT)
    assert batcher.stats()["pending_batches"] == 1  # parked: the file owns the messages now
    parked = list((tmp_path / "pending").glob("batch-*.json"))
    assert len(parked) == 1
    assert batcher.retry_pending() == 1 and sink.delivered_ids() == ["m0", "m1"]
    # delivered, but its facts are only in the caller's memory: the file stays until the store is written
    assert parked[0].exists() and batcher.stats()["pending_batches"] == 0
    assert batcher.retry_pending() == 0  # and it is not sent again meanwhile
    token = batcher.checkpoint()
    batcher.release(token)
    assert not parked[0].exists() and inbox.read_bytes() == b""
    assert sink.delivered_ids() == ["m0", "m1"]


def test_two_processes_never_send_one_parked_batch_twice(
    make_batcher: Callable[..., tuple[LlmBatcher, Sink]], ollama_server: FakeOllamaServer, tmp_path: Path
) -> None:
    """A host and a CLI maintenance run retry the same folder of parked batches: a lock on each file
    (taken through separate descriptors, as two processes would) lets only one of them send it."""
    pending = tmp_path / "pending"
    pending.mkdir()
    body = {"version": 1, "id": "b1", "messages": [m.model_dump(mode="json") for m in make_messages(2)]}
    (pending / "batch-b1.json").write_bytes(orjson.dumps(body))
    ollama_server.script("hang")
    host, host_sink = make_batcher(start=False, timeoutMs=20000)
    cli, cli_sink = make_batcher(start=False, timeoutMs=20000)
    sending = threading.Thread(target=host.retry_pending)
    sending.start()
    assert wait_until(lambda: len(ollama_server.calls()) == 1)  # the host's call hangs, the file is its own
    assert cli.retry_pending() == 0
    assert len(ollama_server.calls()) == 1
    ollama_server.release_hangs()
    sending.join(WAIT)
    assert host_sink.delivered_ids() == ["m0", "m1"]
    assert cli.retry_pending() == 0 and cli_sink.batches == []  # delivered and gone
    assert len(ollama_server.calls()) == 1


def test_pending_overflow_is_counted_and_logged(
    make_batcher: Callable[..., tuple[LlmBatcher, Sink]],
    ollama_server: FakeOllamaServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    ollama_server.default = "http500"
    before = counters.get("llm.overflow")
    batcher, _ = make_batcher(
        batchSize=1, maxRetries=0, failureThreshold=1, failureCooldownMs=600000, maxPendingBatches=2
    )
    for m in make_messages(5):
        batcher.add(m)
    assert batcher.flush(WAIT)
    stats = batcher.stats()
    assert stats["pending_batches"] == 2 and stats["overflow_batches"] == 3
    assert counters.get("llm.overflow") - before == 3
    assert "llm.pending_overflow" in caplog.text
    assert len(ollama_server.calls()) == 1


def test_corrupt_pending_file_is_set_aside(
    make_batcher: Callable[..., tuple[LlmBatcher, Sink]], tmp_path: Path
) -> None:
    pending = tmp_path / "pending"
    pending.mkdir()
    (pending / "batch-00000000000000000001-deadbeef.json").write_bytes(b"{not json")
    before = counters.get("llm.pending_corrupt")
    batcher, _ = make_batcher()
    assert wait_until(lambda: counters.get("llm.pending_corrupt") - before == 1)
    assert list(pending.glob("*.corrupt"))
    assert batcher.stats()["pending_batches"] == 0


def test_logs_never_contain_message_text(
    make_batcher: Callable[..., tuple[LlmBatcher, Sink]],
    ollama_server: FakeOllamaServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    ollama_server.script("http500", "invalid_items")
    batcher, sink = make_batcher(batchSize=3)
    messages = make_messages(3)
    for m in messages:
        batcher.add(m)
    assert sink.wait_for(3)
    batcher.stop(1.0)
    assert "knowledge.event" in caplog.text
    for m in messages:
        assert m.text not in caplog.text and "Company" not in caplog.text


def test_a_poison_message_is_isolated_by_splitting_and_set_aside(
    make_batcher: Callable[..., tuple[LlmBatcher, Sink]], ollama_server: FakeOllamaServer, tmp_path: Path
) -> None:
    ollama_server.poison_marker = "POISON"
    messages = make_messages(4)
    messages[1] = messages[1].model_copy(update={"text": "POISON works at Nowhere."})
    before = counters.get("llm.set_aside")
    batcher, sink = make_batcher(batchSize=4, failureCooldownMs=600000)
    healthy = make_messages(4, start=10)
    for m in healthy:  # the model has answered before: the poison is the batch, not the model
        batcher.add(m)
    assert sink.wait_for(4)
    for m in messages:
        batcher.add(m)
    assert sink.wait_for(7)
    assert sorted(sink.delivered_ids()) == sorted(["m0", "m2", "m3", *(m.id for m in healthy)])
    assert wait_until(lambda: batcher.stats()["failed_batches"] == 1)
    assert counters.get("llm.set_aside") - before == 1
    (failed,) = (tmp_path / "pending").glob("batch-*.failed")
    assert [m["id"] for m in orjson.loads(failed.read_bytes())["messages"]] == ["m1"]
    assert batcher.stats()["pending_batches"] == 0 and not batcher.stats()["cooling_down"]


def test_truncated_output_splits_the_batch_until_it_fits(
    make_batcher: Callable[..., tuple[LlmBatcher, Sink]], ollama_server: FakeOllamaServer
) -> None:
    ollama_server.script("truncated", "truncated")  # the 6-message batch is too big twice; its halves fit
    batcher, sink = make_batcher(batchSize=6, failureCooldownMs=600000)
    for m in make_messages(6):
        batcher.add(m)
    assert sink.wait_for(6)
    assert sorted(len(msgs) for msgs, _ in sink.batches) == [3, 3]
    assert len(ollama_server.calls()) == 4
    assert wait_until(lambda: batcher.stats()["pending_batches"] == 0)


def test_a_model_that_never_answers_well_parks_instead_of_shredding(
    make_batcher: Callable[..., tuple[LlmBatcher, Sink]], ollama_server: FakeOllamaServer
) -> None:
    ollama_server.default = "malformed"
    batcher, sink = make_batcher(batchSize=4, failureCooldownMs=600000)
    for m in make_messages(4):
        batcher.add(m)
    assert batcher.flush(WAIT)
    stats = batcher.stats()
    assert stats["pending_batches"] == 1 and stats["failed_batches"] == 0 and stats["cooling_down"]
    assert len(ollama_server.calls()) == 3
    assert sink.batches == []


def test_concurrent_retry_pending_delivers_each_batch_once(
    make_batcher: Callable[..., tuple[LlmBatcher, Sink]], ollama_server: FakeOllamaServer
) -> None:
    first, _ = make_batcher(start=False, batchSize=1)
    for m in make_messages(6):
        first.add(m)
    first.stop(1.0)
    ollama_server.slow_seconds = 0.02
    ollama_server.default = "slow"
    batcher, sink = make_batcher(start=False, batchSize=1)
    threads = [threading.Thread(target=batcher.retry_pending) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT)
    assert Counter(sink.delivered_ids()) == Counter(f"m{i}" for i in range(6))
    assert len(ollama_server.calls()) == 6


def test_unwritable_pending_folder_is_a_counted_loud_loss_not_a_crash(
    make_batcher: Callable[..., tuple[LlmBatcher, Sink]],
    ollama_server: FakeOllamaServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    ollama_server.default = "http500"
    before = counters.get("llm.lost_messages")
    batcher, sink = make_batcher(pending=blocker / "pending", batchSize=2, maxRetries=0, failureCooldownMs=0)
    for m in make_messages(2):
        batcher.add(m)
    assert batcher.flush(WAIT)
    assert counters.get("llm.lost_messages") - before == 2
    assert "llm.park_failed" in caplog.text
    ollama_server.default = "ok"  # the worker survived and still delivers
    for m in make_messages(2, start=2):
        batcher.add(m)
    assert batcher.flush(WAIT)
    assert sink.delivered_ids() == ["m2", "m3"]
