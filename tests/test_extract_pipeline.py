"""ExtractionPipeline.run: a tier in worker processes overlaps with the host's own work."""

from __future__ import annotations

import threading

from knowledge_engine.config import load_config
from knowledge_engine.extract.pipeline import ExtractionPipeline
from knowledge_engine.model.extraction import Extraction, Mention
from knowledge_engine.model.records import Message


class Tier:
    """A tier double: tags each message with its name; the 'workers' one waits for a signal."""

    def __init__(self, name: str, out_of_process: bool, wait_for: threading.Event | None = None) -> None:
        self.name = name
        self.out_of_process = out_of_process
        self.wait_for = wait_for
        self.overlapped: bool | None = None

    def extract(self, messages: list[Message]) -> list[Extraction]:
        if self.wait_for is not None:  # set only by work running at the same time as this call
            self.overlapped = self.wait_for.wait(60.0)  # generous: returns as soon as it is set
        mention = Mention(value=self.name, type="concept", tier="regex")
        return [Extraction(message_id=m.id, mentions=[mention]) for m in messages]


def pipeline(*tiers: Tier) -> ExtractionPipeline:
    return ExtractionPipeline(load_config({}).extraction, tiers=list(tiers))  # type: ignore[arg-type]


def test_the_host_work_runs_while_the_workers_parse_and_results_keep_tier_order() -> None:
    stored = threading.Event()
    fg, bg = Tier("first", False), Tier("workers", True, wait_for=stored)
    msgs = [Message(id=f"m{i}", text=f"Alex works at Acme {i}.") for i in range(3)]
    out = pipeline(bg, fg).run(msgs, meanwhile=stored.set)
    assert bg.overlapped is True  # the message log writes happened during the workers' call
    assert {mid: [ex.mentions[0].value for ex in exs] for mid, exs in out.items()} == {
        f"m{i}": ["workers", "first"] for i in range(3)  # tier order, as if run one after another
    }


def test_meanwhile_runs_even_when_nothing_is_worth_extracting() -> None:
    called: list[bool] = []
    blank = [Message(id="e", text="   ")]
    out = pipeline(Tier("workers", True)).run(blank, meanwhile=lambda: called.append(True))
    assert out == {} and called == [True]


def test_a_failing_worker_tier_is_skipped_not_raised() -> None:
    class Broken(Tier):
        def extract(self, messages: list[Message]) -> list[Extraction]:
            raise RuntimeError("worker pool closed")

    msg = Message(id="a", text="Alex works at Acme.")
    out = pipeline(Broken("workers", True), Tier("first", False)).run([msg])
    assert [ex.mentions[0].value for ex in out["a"]] == ["first"]
