"""Background threads that outlive a stop are waited for, bounded, when the interpreter exits.

Why: a stop keeps to the host's budget, so the live indexer can still be embedding (onnxruntime) or
writing to Chroma (Rust) when it returns. If the interpreter then finalises under that thread, the
native code is torn down mid-call and the whole process aborts ("terminate called without an active
exception", exit status 134) instead of exiting cleanly: a host's exit code, core dump settings and
supervisor all see a crash. The threads were told to stop; at exit they get up to `EXIT_WAIT_S` more
to finish the one batch in hand. Nothing waits on them to be correct: what they had not written was
parked (ingest) or is left to the next sync (index).
"""

from __future__ import annotations

import atexit
import logging
import threading
import time

log = logging.getLogger("knowledge_engine")

EXIT_WAIT_S = 15.0  # one batch in hand; longer means a stuck call, and exiting beats hanging
_left: list[threading.Thread] = []
_lock = threading.Lock()


def outlived(thread: threading.Thread | None) -> None:
    """Note a thread still running after its owner's stop returned: the exit waits for it."""
    if thread is None or not thread.is_alive() or thread is threading.current_thread():
        return
    with _lock:
        if thread not in _left:
            _left.append(thread)


def wait_at_exit(limit_s: float = EXIT_WAIT_S) -> int:
    """Join the noted threads within `limit_s` in all; returns how many still run (logged)."""
    deadline = time.monotonic() + limit_s
    with _lock:
        threads, _left[:] = list(_left), []
    late = [t.name for t in threads if not _joined(t, deadline)]
    if late:
        log.warning("exiting with %d engine threads still running: %s", len(late), ", ".join(late))
    return len(late)


def _joined(thread: threading.Thread, deadline: float) -> bool:
    thread.join(max(0.0, deadline - time.monotonic()))
    return not thread.is_alive()


atexit.register(wait_at_exit)
