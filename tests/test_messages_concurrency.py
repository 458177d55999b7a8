"""Two MessageLog instances (threads, then processes) on one file: no lost append, no error, index intact."""

from __future__ import annotations

import multiprocessing as mp
import threading
from pathlib import Path

from knowledge_engine.model.records import Message
from knowledge_engine.store.messages import MessageLog


def _writer(path: str, prefix: str, n: int) -> None:
    """Process entry point: append n messages in small batches through its own connection."""
    with MessageLog(Path(path)) as log:
        for start in range(0, n, 10):
            batch = [
                Message(id=f"{prefix}{i}", text=f"shared ledger entry {prefix} {i}")
                for i in range(start, start + 10)
            ]
            assert log.append_many(batch) == 10
            log.search("ledger entry", limit=5)


def _integrity(log: MessageLog) -> None:
    log.conn.execute("INSERT INTO messages_fts(messages_fts) VALUES ('integrity-check')")


def test_threads_share_one_instance_and_use_a_second(workspace: Path) -> None:
    shared = MessageLog(workspace)
    second = MessageLog(workspace)
    errors: list[BaseException] = []

    def work(log: MessageLog, prefix: str) -> None:
        try:
            for i in range(150):
                log.append(Message(id=f"{prefix}-{i}", text=f"thread {prefix} wrote ledger line {i}"))
                if i % 10 == 0:
                    log.search("ledger line", limit=3)
                    list(log.iter(limit=5, order="desc"))
        except BaseException as exc:  # collected, asserted below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(shared if k % 2 else second, f"t{k}")) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert shared.count() == second.count() == 600
    assert len(second.search("ledger", limit=1000)) == 600
    _integrity(shared)
    shared.close()
    second.close()


def test_two_processes_append_while_a_third_reads(workspace: Path) -> None:
    path = str(workspace / "messages.sqlite3")
    MessageLog(Path(path)).close()  # create the schema once, like the plugin on first start
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(path, p, 200)) for p in ("p", "q")]
    for p in procs:
        p.start()
    with MessageLog(Path(path)) as reader:
        while any(p.is_alive() for p in procs):
            reader.search("ledger", limit=10)
            reader.count()
        for p in procs:
            p.join(60)
        assert [p.exitcode for p in procs] == [0, 0]
        assert reader.count() == 400
        assert {m.id for m, _ in reader.search("entry", limit=1000)} == {
            f"{x}{i}" for x in "pq" for i in range(200)
        }
        _integrity(reader)


def test_fresh_file_opened_by_two_processes_at_once(workspace: Path) -> None:
    """Schema creation races: both processes open a file that does not exist yet."""
    path = str(workspace / "race.sqlite3")
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(path, p, 20)) for p in ("r", "s")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0]
    with MessageLog(Path(path)) as log:
        assert log.count() == 40
