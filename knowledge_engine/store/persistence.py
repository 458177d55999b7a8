"""Durable JSON files: atomic replace with fsync, a last-good backup, and a cross-process lock.

Why this shape: a kill -9 at any moment must leave a file that loads, and the host and the
CLI may write the same workspace. Each write goes to a temp file in the same folder, is
fsynced, the current file is hard-linked to `<name>.bak` (the last good copy), the temp file
replaces the current one, and the folder is fsynced. Readers fall back to the backup when
the current file is missing or corrupt, and move a corrupt file aside instead of ever
overwriting good data with an empty store.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from knowledge_engine.gcpause import gc_paused

log = logging.getLogger("knowledge_engine.store")

SCHEMA_VERSION = 1


class StoreCorruptError(RuntimeError):
    """A store file and its backup are both unreadable."""


def fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes, keep_backup: bool = True) -> None:
    """Write `data` so that `path` always holds either the old or the new content."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if keep_backup and path.exists():
            bak_tmp = path.with_name(f".{path.name}.bak.tmp")
            with contextlib.suppress(FileNotFoundError):
                bak_tmp.unlink()
            os.link(path, bak_tmp)
            os.replace(bak_tmp, path.with_name(path.name + ".bak"))
        os.replace(tmp, path)
        fsync_dir(path.parent)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def file_signature(path: Path) -> tuple[int, int, int] | None:
    """Identity of the file's current content (inode, size, mtime), to notice other writers."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _move_aside(path: Path) -> Path:
    target = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}")
    os.replace(path, target)
    return target


def read_json_document(path: Path) -> dict[str, Any] | None:
    """Load a store document; fall back to the backup; None when neither exists.

    A corrupt file is moved aside and reported loudly; only when every copy is unreadable
    does this raise, so the caller never silently starts empty over lost data.
    """
    candidates = [path, path.with_name(path.name + ".bak")]
    errors: list[str] = []
    for i, cand in enumerate(candidates):
        try:
            raw = cand.read_bytes()
        except FileNotFoundError:
            continue
        try:
            with gc_paused():  # a large store is hundreds of thousands of dicts: see gcpause
                doc = orjson.loads(raw)
            if not isinstance(doc, dict):
                raise ValueError("top level is not an object")
            if i > 0:
                log.error(
                    "store file %s was unreadable; loaded the last good copy %s (%d bytes)",
                    path.name,
                    cand.name,
                    len(raw),
                )
            return doc
        except (orjson.JSONDecodeError, ValueError) as exc:
            moved = _move_aside(cand) if i == 0 else cand
            errors.append(f"{cand.name}: {type(exc).__name__}")
            log.error(
                "store file %s is corrupt (%s); moved aside to %s", cand.name, type(exc).__name__, moved.name
            )
    if errors and not any(c.exists() for c in candidates):
        # every copy was corrupt: the corrupt files are kept aside for the operator
        log.error("no readable copy of %s; starting empty (corrupt copies kept aside)", path.name)
    return None


class WorkspaceLock:
    """An exclusive lock on a workspace file, across processes (flock) and threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._tlock = threading.RLock()

    @contextlib.contextmanager
    def hold(self, timeout_s: float = 30.0) -> Iterator[None]:
        with self._tlock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                deadline = time.monotonic() + timeout_s
                while True:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except BlockingIOError:
                        if time.monotonic() > deadline:
                            raise TimeoutError(
                                f"workspace lock {self.path} held by another process"
                            ) from None
                        time.sleep(0.01)
                try:
                    yield
                finally:
                    fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)
