"""What a forget does to one piece of pending work: only the forgotten content goes, counts stay true."""

from __future__ import annotations

import threading
from pathlib import Path

import orjson

from knowledge_engine.config import LlmConfig
from knowledge_engine.extract.batcher import LlmBatcher
from knowledge_engine.extract.inbox import INBOX_NAME, LlmInbox
from knowledge_engine.extract.llm import LlmTier
from knowledge_engine.extract.parked import FileParked
from knowledge_engine.ingest.redact import ForgetRequest, Gate, Redactor, rewrite_batch_file
from knowledge_engine.llm.factory import make_client
from knowledge_engine.model.extraction import Extraction, FactCandidate, Mention
from knowledge_engine.model.records import Message
from tests.servers.ollama_server import FakeOllamaServer
from tests.test_llm_batcher import WAIT, Sink


def req(**kw: object) -> ForgetRequest:
    return ForgetRequest.model_validate({"id": "r1", "terms": ["Zorblax Quint", "Zorblax"], **kw})


def test_redactor_redacts_drops_and_remembers_what_it_dropped() -> None:
    r = Redactor(req(delete_messages=True))
    msg = Message(id="a", text="Zorblax called", speaker="Ana")
    assert r.message(msg) == "drop" and msg.text == "[redacted] called"
    assert r.message(msg) == "drop"  # its redacted copy is still a forgotten message
    assert Redactor(req()).message(Message(id="b", text="zorblax quint called")) == "redacted"
    assert Redactor(req()).message(Message(id="c", text="hi", speaker="Zorblax")) == "drop"  # spoken by them
    assert Redactor(req()).message(Message(id="d", text="Zorblaxian art")) == "keep"  # whole words only


def test_gate_filters_only_the_messages_pending_when_it_was_made() -> None:
    gate = Gate(Redactor(req()))
    gate.watch("old")
    ex = Extraction(
        message_id="old",
        mentions=[
            Mention(value="Zorblax Quint", type="person", tier="regex"),
            Mention(value="Initech", type="organization", tier="regex"),
        ],
        facts=[FactCandidate(subject="Zorblax Quint", predicate="works-at", object="Initech", tier="spacy")],
    )
    old = Message(id="old", text="Zorblax Quint works at Initech")
    out = gate.filter(old, [ex])
    assert [m.value for m in out[0].mentions] == ["Initech"] and out[0].facts == []
    assert old.text == "[redacted] works at Initech" and gate.admit(old)
    new = Message(id="new", text="Zorblax Quint is back")  # after the forget: new knowledge
    assert gate.admit(new) and gate.filter(new, [ex]) == [ex] and new.text == "Zorblax Quint is back"


def test_inbox_keeps_its_line_count_and_still_releases_past_a_forgotten_line(tmp_path: Path) -> None:
    inbox = LlmInbox(tmp_path / INBOX_NAME)
    for mid, text in (("m0", "Buy milk"), ("m1", "Zorblax Quint called"), ("m2", "Zorblax is here")):
        inbox.append(Message(id=mid, text=text))
    tally = inbox.forget(Redactor(req(message_ids=["m1"])))
    assert (tally.dropped, tally.redacted) == (1, 1)
    lines = (tmp_path / INBOX_NAME).read_bytes().splitlines()
    assert len(lines) == 3 and b"zorblax" not in b"".join(lines).lower()
    inbox.owned(["m0", "m2"])  # m1 left its batch: the forget counted it owned
    assert inbox.checkpoint() == 3
    assert [m.id for m in LlmInbox(tmp_path / INBOX_NAME).recover()] == ["m0", "m2"]


def test_a_parked_batch_loses_only_the_forgotten_messages(tmp_path: Path) -> None:
    path = tmp_path / "batch-1.json"
    msgs = [
        {"id": "p1", "text": "Zorblax Quint works at Hooli"},
        {"id": "p2", "text": "Nadia works at Vandelay"},
    ]
    path.write_bytes(orjson.dumps({"version": 1, "id": "1", "messages": msgs}))
    tally = rewrite_batch_file(path, Redactor(req(delete_messages=True)))
    assert tally.dropped == 1 and [m["id"] for m in orjson.loads(path.read_bytes())["messages"]] == ["p2"]
    assert path.stat().st_mode & 0o077 == 0
    tally = rewrite_batch_file(path, Redactor(req(message_ids=["p2"])))
    assert tally.files_removed == 1 and not path.exists()  # nothing left in it


class HeldParked(FileParked):
    """Holds the first rewrite of a parked batch (a failed retry writing it back) open until told:
    the window between the batcher's scrub of the batch and its landing on disk."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.writing = threading.Event()
        self.go = threading.Event()

    def write(self, key: str, body: bytes, create: bool) -> None:
        if not create and not self.writing.is_set():
            self.writing.set()
            self.go.wait(WAIT)
        super().write(key, body, create)


def test_a_forget_during_a_retrys_write_back_leaves_no_copy_of_the_name(
    tmp_path: Path, ollama_server: FakeOllamaServer
) -> None:
    """A CI run of the host test found a parked batch still naming the forgotten entity: a retry had
    scrubbed the batch before the forget and written it back after the forget's rewrite."""
    ollama_server.default = "http500"  # every call fails: the batch is parked, then written back
    config = LlmConfig.model_validate(
        {
            "endpoint": ollama_server.url,
            "enabled": True,
            "maxRetries": 0,
            "failureThreshold": 99,
            "retryBackoffMs": 1,
        }
    )
    parked = HeldParked(tmp_path / "pending")
    batcher = LlmBatcher(
        config, LlmTier(config, make_client(config)), tmp_path / "pending", Sink(), list, parked=parked
    )
    batcher.add(Message(id="m0", text="Zorblax Quint works at Initech in Boston."))
    assert batcher.flush(WAIT) and batcher.stats()["pending_batches"] == 1
    retry = threading.Thread(target=batcher.retry_pending)
    retry.start()
    assert parked.writing.wait(WAIT)  # scrubbed with no gate yet, held before its write
    forget = threading.Thread(target=batcher.forget, args=(Gate(Redactor(req())),))
    forget.start()
    # The racy order lets the forget finish while the write is held; the fix makes it wait for the
    # write. This bounded join only ends early in the racy order: a slow machine can make the test
    # miss the race, never fail a correct batcher.
    forget.join(2.0)
    parked.go.set()
    retry.join(WAIT)
    forget.join(WAIT)
    assert not retry.is_alive() and not forget.is_alive()
    bodies = [p.read_bytes() for p in (tmp_path / "pending").glob("batch-*.json")]
    assert len(bodies) == 1 and b"initech" in bodies[0].lower()  # the batch is still there, redacted
    assert b"zorblax" not in bodies[0].lower(), bodies[0]
    batcher.stop(1.0)
