"""The worker process's side of extract.workers: boot, serve spaCy tier requests, send replies.

Apart from the pool so the tier (extract.spacy_ner, which uses the pool) and the code that runs it
in a worker do not import each other. The engine modules are imported only inside `_serve`, after
the parent's `sys.path` arrived, so the boot imports nothing but this module and knowledge_engine.observe.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
import time
from multiprocessing.connection import Connection
from typing import Any

from knowledge_engine.observe import counters


class _Capture(logging.Handler):
    """Collects the worker's log records so the parent can re-log them."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[tuple[str, int, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append((record.name, record.levelno, record.getMessage()))

    def take(self) -> list[tuple[str, int, str]]:
        out, self.records = self.records, []
        return out


def child_main(inbox_fd: int, outbox_fd: int, parent_pid: int) -> None:
    """Entry point of a worker process (see the module docstring)."""
    # The parent decides when workers stop (a message, EOF, SIGKILL): a SIGINT or SIGTERM to the host's
    # whole process group (a terminal, a service manager) must not end them before the host's own graceful
    # stop has parsed what it flushes. _watch_parent ends a worker whose parent is gone.
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)
    inbox = Connection(inbox_fd, writable=False)
    outbox = Connection(outbox_fd, readable=False)
    threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True).start()
    with contextlib.suppress(EOFError, OSError):  # EOF: the parent is gone
        _serve(inbox, outbox)
    os._exit(0)  # no interpreter teardown: nothing to flush, and it is slow with spaCy loaded


def _watch_parent(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(0.5)
    os._exit(0)


def _serve(inbox: Connection, outbox: Connection) -> None:
    init = inbox.recv()
    for entry in init["sys_path"]:
        if entry not in sys.path:
            sys.path.append(entry)
    capture = _Capture()
    root = logging.getLogger("knowledge_engine")
    root.addHandler(capture)
    root.propagate = False
    root.setLevel(init["level"])
    from knowledge_engine.config import SpacyConfig
    from knowledge_engine.extract.nlp import exclude_for, preload
    from knowledge_engine.extract.spacy_ner import SpacyTier

    before = counters.snapshot()
    nlp, reason = preload(init["model"], exclude_for(init["facts"]))
    if nlp is not None:
        # the truecaser (~0.12 s: Faker's names, the word index) before "ready", not on the first
        # batch: car names are restored whatever spacy.truecase says, so every batch needs it
        from knowledge_engine.extract.truecase import for_pipeline

        for_pipeline(nlp)
    before = _send_reply(outbox, ("ready" if nlp is not None else "unavailable", reason), before, capture)
    if nlp is None:
        return
    tiers: dict[tuple[int, int], SpacyTier] = {}
    while True:
        request = inbox.recv()
        if request is None:
            return
        seq, messages, batch_size, max_chars, level = request
        root.setLevel(level)
        tier = tiers.get((batch_size, max_chars))
        if tier is None:
            config = SpacyConfig(
                model=init["model"],
                facts=init["facts"],
                truecase=init.get("truecase", True),
                batch_size=batch_size,
                workers=0,
            )
            tier = tiers.setdefault((batch_size, max_chars), SpacyTier(config, max_chars=max_chars))
        try:
            # the parse only: the parent reads each session's messages in order (SessionPeople,
            # SessionAnswers); a worker sees some of them, so it must not resolve a he/she itself
            reply: tuple[Any, ...] = (seq, "ok", tier.extract_here(messages))
        except Exception as exc:
            reply = (seq, "error", type(exc).__name__)
        before = _send_reply(outbox, reply, before, capture)


def _send_reply(
    outbox: Connection, reply: tuple[Any, ...], before: dict[str, int], capture: _Capture
) -> dict[str, int]:
    now = counters.snapshot()
    delta = {k: v - before.get(k, 0) for k, v in now.items() if v != before.get(k, 0)}
    outbox.send((*reply, delta, capture.take()))
    return now
