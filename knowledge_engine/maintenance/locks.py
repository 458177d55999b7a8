"""The maintenance folder and its file locks: what a job, a forget and the run records wait on.

Apart from runs.py (which runs jobs with the engine) so that forget, which must hold the meta lock
while it rewrites the stores, does not import the job runner, and the runner's imports never lead
back to forget. flock-based: the kernel releases a dead process's locks, so none is ever stale.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from knowledge_engine.config import StorageConfig

DIR = "maintenance"
META_LOCK = "meta.lock"  # store jobs and forget hold it while they refresh, change and write the stores
LOCK_POLL_S = 0.02


class Stoppable(Protocol):
    """What a wait checks between tries: `check()` raises when the run was asked to stop."""

    def check(self) -> None: ...


def maintenance_dir(folder: Path) -> Path:
    d = folder / DIR
    d.mkdir(mode=0o700, parents=True, exist_ok=True)
    return d


@contextlib.contextmanager
def try_lock(path: Path) -> Iterator[bool]:
    """Non-blocking exclusive flock: yields False when another process (or thread) holds it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


@contextlib.contextmanager
def wait_lock(path: Path, timeout_s: float, ctx: Stoppable | None = None) -> Iterator[None]:
    """Blocking exclusive flock with a deadline (TimeoutError); a stop request ends the wait (Cancelled)."""
    tries = max(1, int(timeout_s / LOCK_POLL_S))  # counted, not clocked: immune to a frozen test clock
    for _ in range(tries):
        with try_lock(path) as got:
            if got:
                yield
                return
        if ctx is not None:
            ctx.check()
        time.sleep(LOCK_POLL_S)
    raise TimeoutError(f"lock {path.name} held by another process")


@contextlib.contextmanager
def meta_lock(folder: Path, timeout_s: float, ctx: Stoppable | None = None) -> Iterator[None]:
    """The workspace's meta lock (see META_LOCK), waited for like `wait_lock`."""
    with wait_lock(maintenance_dir(folder) / META_LOCK, timeout_s, ctx):
        yield


@contextlib.contextmanager
def store_jobs_lock(
    folder: Path, storage: StorageConfig, agent: str, timeout_s: float, ctx: Stoppable | None = None
) -> Iterator[None]:
    """The lock store jobs and forget hold while they change the stores: the meta lock file, or with the
    shared store the agent's `meta` advisory lock (every node of the agent waits on the same one)."""
    from knowledge_engine.store.backend import is_shared

    if is_shared(storage):
        from knowledge_engine.maintenance import pglocks

        with pglocks.wait_lock(storage.postgres, "meta", agent, timeout_s, ctx):
            yield
        return
    with meta_lock(folder, timeout_s, ctx):
        yield
