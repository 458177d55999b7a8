"""A persistent pool of processes running the spaCy tier: the host keeps its GIL, spaCy gets every core.

Why: in-process spaCy caps extraction at one core, and its loops hold the GIL often enough to put
a millisecond tail on the host's message hook. Each worker loads the pipeline once and runs the
whole tier (parse, entity mentions, dependency triples) with the same code as the in-process
tier; only the small list[Extraction] comes back.

How a worker starts: a fresh interpreter (subprocess: fork+exec in C, which is what
multiprocessing's "spawn" does, so nothing is forked from a threaded host) that imports only
the child's side, extract.workers_child. multiprocessing's spawn and forkserver children both
re-run the host's `__main__` file, which would re-run a host script that lacks an
`if __name__ == "__main__"` guard; this start never imports it. Requests and replies are pickles
over two private pipes (multiprocessing.connection framing).

A worker exits when its pipe closes (pool closed, interpreter exit, parent killed: the kernel
closes the parent's end) or when its parent pid changes (checked twice a second, for a parent
that dies while the worker is busy).
"""

from __future__ import annotations

import atexit
import bisect
import contextlib
import itertools
import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from knowledge_engine.observe import counters, emit, log

if TYPE_CHECKING:
    from knowledge_engine.model.extraction import Extraction
    from knowledge_engine.model.records import Message

MAX_AUTO_WORKERS = 4
START_TIMEOUT_S = 120.0  # loading spaCy takes ~2 s per process; a busy machine can take much longer
REPLY_TIMEOUT_S = 60.0  # plus REPLY_S_PER_MESSAGE: a worker silent that long is hung, and killed
REPLY_S_PER_MESSAGE = 2.0
MAX_START_FAILURES = 3  # consecutive failed starts after which the pool gives up (in-process from then)
_ROOT = str(Path(__file__).resolve().parents[2])
_BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from knowledge_engine.extract.workers_child import child_main; "
    "child_main(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))"
)
_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

Fallback = Callable[[list["Message"]], list["Extraction"]]
Status = Literal["ready", "unavailable", "failed"]


class WorkerPoolClosed(RuntimeError):
    """The pool was closed while a batch was waiting for it (engine stop, interpreter exit)."""


class _WorkerLost(Exception):
    """The worker died, hung or could not be reached; its chunk is retried."""


def resolve_workers(setting: int | str) -> int:
    """Worker processes for a `workers` setting: "auto" is one per usable core, at most
    MAX_AUTO_WORKERS, and none on a single core (a worker there only adds IPC and memory)."""
    if setting != "auto":
        return int(setting)
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return 0 if cores < 2 else min(cores, MAX_AUTO_WORKERS)


def split_balanced(items: Sequence[Message], parts: int) -> list[list[Message]]:
    """Contiguous, non-empty chunks of about equal text length (order kept: concatenating them
    gives the input back), so the workers of one batch finish at about the same time."""
    n = len(items)
    parts = max(1, min(parts, n))
    if parts == 1:
        return [list(items)]
    cum = list(itertools.accumulate(len(m.text) + 16 for m in items))  # +16: per-message overhead
    bounds = [0]
    for k in range(1, parts):
        cut = bisect.bisect_left(cum, cum[-1] * k / parts) + 1
        bounds.append(min(max(cut, bounds[-1] + 1), n - (parts - k)))
    bounds.append(n)
    return [list(items[a:b]) for a, b in itertools.pairwise(bounds)]


# --------------------------------------------------------------------------- parent side


@dataclass(frozen=True)
class PoolKey:
    model: str
    facts: bool
    size: int
    truecase: bool = True


@dataclass(frozen=True)
class _Job:
    """What every chunk of one batch is run with."""

    batch_size: int
    max_chars: int
    level: int
    fallback: Fallback


def _level() -> int:
    """The engine logger's level, so a worker only sends back records the parent would keep."""
    return logging.getLogger("knowledge_engine").getEffectiveLevel()


class _Worker:
    """One child process and its two pipe ends."""

    def __init__(self, key: PoolKey) -> None:
        self.key = key
        self.proc: subprocess.Popen[bytes] | None = None
        self._out: Connection | None = None
        self._in: Connection | None = None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def spawn(self) -> None:
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        env = dict(os.environ)
        for var in _THREAD_VARS:  # one core per worker: BLAS threads would fight each other
            env.setdefault(var, "1")
        argv = [sys.executable, "-c", _BOOT, _ROOT, str(to_child_r), str(from_child_w), str(os.getpid())]
        try:
            self.proc = subprocess.Popen(
                argv,
                pass_fds=(to_child_r, from_child_w),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                env=env,
            )
        except BaseException:
            for fd in (to_child_r, to_child_w, from_child_r, from_child_w):
                os.close(fd)
            raise
        finally:
            if self.proc is not None:
                os.close(to_child_r)
                os.close(from_child_w)
        self._out = Connection(to_child_w, readable=False)
        self._in = Connection(from_child_r, writable=False)
        self.send(
            {
                "model": self.key.model,
                "facts": self.key.facts,
                "truecase": self.key.truecase,
                "sys_path": list(sys.path),
                "level": _level(),
            }
        )

    def send(self, obj: Any) -> None:
        if self._out is None:
            raise _WorkerLost("not started")
        try:
            self._out.send(obj)
        except (OSError, ValueError) as exc:  # BrokenPipe: the worker is gone
            raise _WorkerLost(type(exc).__name__) from exc

    def recv(self, timeout_s: float) -> Any:
        if self._in is None:
            raise _WorkerLost("not started")
        try:
            if not self._in.poll(timeout_s):
                raise _WorkerLost("timeout")
            return self._in.recv()
        except (EOFError, OSError, ValueError) as exc:
            raise _WorkerLost(type(exc).__name__) from exc

    def stop(self) -> None:
        """Ask the worker to exit (it also exits on EOF), without waiting."""
        for conn in (self._out, self._in):
            if conn is not None:
                try:
                    if conn is self._out:
                        conn.send(None)
                except (OSError, ValueError):
                    pass
                conn.close()
        self._out = self._in = None

    def reap(self, timeout_s: float) -> None:
        """Wait for the exit; kill -9 after the timeout. Never leaves a zombie or an orphan."""
        self.stop()
        if self.proc is None:
            return
        try:
            self.proc.wait(timeout=max(0.0, timeout_s))
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class SpacyWorkerPool:
    """N worker processes, each with the pipeline loaded; one batch at a time, split across them."""

    def __init__(self, key: PoolKey) -> None:
        self.key = key
        self.status: Status | None = None
        self.reason = ""
        self._workers = [_Worker(key) for _ in range(key.size)]
        self._lock = threading.Lock()
        self._seq = itertools.count(1)
        self._closed = False
        self._start_failures = 0
        self._served = [0] * key.size

    def pids(self) -> list[int]:
        """The live workers' process ids (tests, diagnostics)."""
        return [w.pid for w in self._workers if w.alive and w.pid is not None]

    def served(self) -> list[int]:
        """Messages each worker slot has extracted so far (shows that batches are split)."""
        return list(self._served)

    # ------------------------------------------------------------------ start
    def start(self, timeout_s: float = START_TIMEOUT_S) -> Status:
        """Spawn every worker and wait until each has loaded the model (idempotent).

        "unavailable": the model cannot load (the caller warns, regex-only as before);
        "failed": workers could not start at all (the caller runs spaCy in-process).
        """
        with self._lock:
            if self.status is None:
                self.status, self.reason = self._start_all(timeout_s)
            return self.status

    def _start_all(self, timeout_s: float) -> tuple[Status, str]:
        if self._closed:
            return "failed", "closed"
        t0 = time.monotonic()
        try:
            for w in self._workers:
                w.spawn()
        except (OSError, _WorkerLost) as exc:
            self._kill_all()
            return "failed", f"cannot start a worker process ({type(exc).__name__})"
        outcomes = [self._await_ready(w, t0 + timeout_s) for w in self._workers]
        for status, reason in outcomes:
            if status != "ready":
                self._kill_all()
                return status, reason
        counters.inc("extract.spacy.workers.started", len(self._workers))
        emit(
            "spacy_workers_started",
            workers=len(self._workers),
            duration_ms=round((time.monotonic() - t0) * 1000),
        )
        return "ready", ""

    def _await_ready(self, w: _Worker, deadline: float) -> tuple[Status, str]:
        try:
            reply = w.recv(max(0.0, deadline - time.monotonic()))
        except _WorkerLost as exc:
            return "failed", f"worker did not start ({exc})"
        kind, payload, delta, records = reply
        _replay(delta, records)
        if kind == "ready":
            return "ready", ""
        return "unavailable", str(payload)

    def _kill_all(self) -> None:
        for w in self._workers:
            if w.proc is not None and w.alive:
                w.proc.kill()
            w.reap(1.0)

    # ------------------------------------------------------------------ extract
    def extract(
        self, messages: list[Message], batch_size: int, max_chars: int, fallback: Fallback
    ) -> list[Extraction]:
        """One Extraction per message, in order; chunks run in parallel on the workers.

        A chunk whose worker died or hung is retried once on a fresh worker, then run in-process
        by `fallback` (counted, logged without text).
        """
        if not messages:
            return []
        with self._lock:
            if self._closed:
                raise WorkerPoolClosed("the spaCy worker pool is closed")
            if self.status != "ready" or self._start_failures >= MAX_START_FAILURES:
                return fallback(messages)
            job = _Job(batch_size, max_chars, _level(), fallback)
            chunks = split_balanced(messages, len(self._workers))
            sent = [self._send(w, chunk, job) for w, chunk in zip(self._workers, chunks, strict=False)]
            out: list[Extraction] = []
            for i, (chunk, seq) in enumerate(zip(chunks, sent, strict=True)):
                out.extend(self._collect(i, chunk, seq, job))
            return out

    def _send(self, w: _Worker, chunk: list[Message], job: _Job) -> int | None:
        seq = next(self._seq)
        try:
            w.send((seq, chunk, job.batch_size, job.max_chars, job.level))
        except _WorkerLost:
            return None
        return seq

    def _collect(self, i: int, chunk: list[Message], seq: int | None, job: _Job) -> list[Extraction]:
        if seq is not None:
            try:
                return self._reply(i, seq, chunk)
            except _WorkerLost as exc:
                self._lost(i, str(exc))
        if self._closed:
            raise WorkerPoolClosed("the spaCy worker pool was closed during a batch")
        replaced = self._replace(i)
        if self._closed:
            raise WorkerPoolClosed("the spaCy worker pool was closed during a batch")
        if replaced:
            counters.inc("extract.spacy.workers.retried")
            seq = self._send(self._workers[i], chunk, job)
            if seq is not None:
                try:
                    return self._reply(i, seq, chunk)
                except _WorkerLost as exc:
                    self._lost(i, str(exc))
        counters.inc("extract.spacy.workers.fallback")
        log.warning("spaCy worker failed twice on a chunk of %d messages; ran it in-process", len(chunk))
        return job.fallback(chunk)

    def _reply(self, i: int, seq: int, chunk: list[Message]) -> list[Extraction]:
        w = self._workers[i]
        deadline = time.monotonic() + REPLY_TIMEOUT_S + REPLY_S_PER_MESSAGE * len(chunk)
        while True:
            got, kind, payload, delta, records = w.recv(max(0.0, deadline - time.monotonic()))
            _replay(delta, records)
            if got == seq:
                break  # an older seq is a stale reply of an abandoned request: skip it
        if kind == "error":
            # a Python error, not a crash: the same code in-process gives the same outcome
            counters.inc("extract.spacy.workers.errors")
            raise _WorkerLost(f"worker error {payload}")
        results: list[Extraction] = payload
        if len(results) != len(chunk):
            raise _WorkerLost("reply does not match the request")
        self._served[i] += len(chunk)
        return results

    def _lost(self, i: int, why: str) -> None:
        w = self._workers[i]
        if not self._closed:  # else close() ended it under a batch: expected, the batch is parked
            counters.inc("extract.spacy.workers.lost")
            log.warning("spaCy worker %s lost (%s)", w.pid, why)
        if w.proc is not None and w.alive:
            w.proc.kill()
        w.reap(1.0)

    def _replace(self, i: int) -> bool:
        """A fresh worker in slot i, loaded and ready; False if it cannot start."""
        if self._start_failures >= MAX_START_FAILURES:
            return False
        old = self._workers[i]
        old.reap(0.0 if not old.alive else 1.0)
        fresh = _Worker(self.key)
        self._workers[i] = fresh
        try:
            fresh.spawn()
            status, _ = self._await_ready(fresh, time.monotonic() + START_TIMEOUT_S)
        except (OSError, _WorkerLost):
            status = "failed"
        if status != "ready":
            self._start_failures += 1
            if fresh.alive and fresh.proc is not None:
                fresh.proc.kill()
            fresh.reap(1.0)
            if self._start_failures >= MAX_START_FAILURES:
                log.error("spaCy workers keep failing to start; the spaCy tier runs in-process from now on")
            return False
        self._start_failures = 0
        counters.inc("extract.spacy.workers.replaced")
        return True

    # ------------------------------------------------------------------ stop
    def close(self, timeout_s: float = 1.0) -> None:
        """Stop every worker within timeout_s (kill -9 after it); idempotent.

        If a batch or a start is still running, its workers are killed: that batch raises
        WorkerPoolClosed (the engine has parked it for the next start by then).
        """
        deadline = time.monotonic() + timeout_s
        self._closed = True
        if self._lock.acquire(timeout=max(0.0, timeout_s / 2)):
            try:
                for w in self._workers:
                    w.stop()
                for w in self._workers:
                    w.reap(deadline - time.monotonic())
            finally:
                self._lock.release()
            return
        workers = list(self._workers)  # the busy thread owns the pipes: only kill and wait here
        for w in workers:
            if w.proc is not None and w.alive:
                w.proc.kill()
        for w in workers:
            if w.proc is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    w.proc.wait(max(0.0, deadline - time.monotonic()))


def _replay(delta: dict[str, int], records: list[tuple[str, int, str]]) -> None:
    """Counters and log lines of a worker, re-issued in this process (they carry no text)."""
    for name, n in delta.items():
        counters.inc(name, n)
    for name, level, text in records:
        logging.getLogger(name).log(level, "%s", text)


# --------------------------------------------------------------------------- shared pools

_pools_lock = threading.Lock()
_pools: dict[PoolKey, tuple[SpacyWorkerPool, int]] = {}


def acquire(model: str, facts: bool, size: int, truecase: bool = True) -> SpacyWorkerPool:
    """The process's pool for this model and size (one per process, like the loaded pipeline);
    every acquire needs one release."""
    key = PoolKey(model, facts, size, truecase)
    with _pools_lock:
        pool, refs = _pools.get(key) or (SpacyWorkerPool(key), 0)
        _pools[key] = (pool, refs + 1)
        return pool


def release(pool: SpacyWorkerPool, timeout_s: float = 1.0) -> None:
    """Drop one reference; the last one stops the workers."""
    with _pools_lock:
        entry = _pools.get(pool.key)
        if entry is None or entry[0] is not pool:
            last = True
        else:
            refs = entry[1] - 1
            last = refs <= 0
            if last:
                del _pools[pool.key]
            else:
                _pools[pool.key] = (pool, refs)
    if last:
        pool.close(timeout_s)


def close_all(timeout_s: float = 1.0) -> None:
    """Stop every pool of this process (interpreter exit)."""
    with _pools_lock:
        pools = [p for p, _ in _pools.values()]
        _pools.clear()
    for pool in pools:
        pool.close(timeout_s)


atexit.register(close_all)
