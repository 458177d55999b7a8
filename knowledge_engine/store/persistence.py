"""Durable JSON files: atomic replace with fsync, a last-good backup, and a cross-process lock.

Why this shape: a kill -9 at any moment must leave a file that loads, and the host and the
CLI may write the same workspace. Each write (knowledge_engine.fsio.write_atomic with a backup)
goes to a temp file in the same folder, is fsynced, the current file is hard-linked to
`<name>.bak` (the last good copy), the temp file replaces the current one, and the folder is
fsynced. Readers fall back to the backup when
the current file is missing or corrupt, and move a corrupt file aside instead of ever
overwriting good data with an empty store.

A file that parses but is not this engine's (a newer schema, no record list, a folder, a symbolic
link) is refused, never repaired or overwritten: `StoreUnreadableError` names the file and the reason.
Files are created owner-only (0600, folders 0700): they hold personal data.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from knowledge_engine.gcpause import gc_paused
from knowledge_engine.store.messages import MESSAGES_FILE

log = logging.getLogger("knowledge_engine.store")

SCHEMA_VERSION = 1


class StoreCorruptError(RuntimeError):
    """A store file and its backup are both unreadable."""


class StoreUnreadableError(OSError):
    """A store file the engine cannot read as its own; it is left untouched until someone fixes it.

    An OSError so that a write refused for this reason takes the same path as a failing disk: the
    changes stay in memory (and the accepted messages in the ingest journal) and are retried.
    """

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"store file {path} {reason}")
        self.path = path
        self.reason = reason


def check_store_file(path: Path) -> None:
    """Refuse a store file that is a link (possibly out of the workspace) or not a regular file."""
    if path.is_symlink():
        raise StoreUnreadableError(
            path, "is a symbolic link; store files must be regular files inside the workspace (not followed)"
        )
    if path.exists() and not path.is_file():
        raise StoreUnreadableError(path, "is not a regular file (a folder?)")


def check_document(path: Path, doc: dict[str, Any], key: str) -> None:
    """Refuse a parsed document that is not this engine's: unknown schema, or no `key` record list."""
    version = doc.get("schema", SCHEMA_VERSION)
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= SCHEMA_VERSION:
        shown = repr(version)[:20]
        raise StoreUnreadableError(
            path, f"has schema {shown}; this engine reads schema {SCHEMA_VERSION} (a newer engine's file?)"
        )
    if not isinstance(doc.get(key), list):
        keys = ", ".join(repr(str(k)[:20]) for k in list(doc)[:6])
        raise StoreUnreadableError(path, f"has no '{key}' list (top-level keys: {keys})")


# what the engine keeps in a workspace: only these are touched, since a template may put the
# workspace in a folder the host also uses ({workspaceDir} itself)
ENGINE_DIRS = ("chroma", "llm-pending", "maintenance", "quarantine")
ENGINE_FILES = (
    "facts.json", "entities.json", MESSAGES_FILE, "store.lock", "ingest", "chroma-sync", "feedback.json",
    "forget", "session-memory",
)  # fmt: skip


def holds_a_workspace(folder: Path) -> bool:
    """Whether an existing folder may be opened as a workspace: it is empty or holds something the
    engine writes. A folder of other files (a project, a home directory named by mistake) is not one:
    opening it would make it owner-only and leave a store in it."""
    try:
        names = [e.name for e in os.scandir(folder)]
    except OSError:
        return True  # unreadable: the open that follows says why
    return not names or any(n in ENGINE_DIRS or _engine_file(n) for n in names)


def _engine_file(name: str) -> bool:
    """A file the engine writes in a workspace (also its dotted lock and temp files)."""
    return name.lstrip(".").startswith(ENGINE_FILES)


def secure_tree(folder: Path) -> None:
    """Make the engine's part of a workspace this user owns owner-only: the folder and the engine's
    sub-folders 0700, its files without group/other bits. Links are not followed; files of other
    users and files the engine does not write are left alone."""
    uid = os.geteuid()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if entry.name in ENGINE_DIRS and entry.is_dir(follow_symlinks=False):
            for root, dirs, files in os.walk(entry.path, followlinks=False):
                for name in [*dirs, *files]:
                    _restrict(Path(root) / name, uid)
            _restrict(Path(entry.path), uid)
        elif _engine_file(entry.name):
            _restrict(Path(entry.path), uid)
    _restrict(folder, uid)


def _restrict(path: Path, uid: int) -> None:
    try:
        st = os.lstat(path)
        if st.st_uid != uid or stat.S_ISLNK(st.st_mode):
            return
        mode = stat.S_IMODE(st.st_mode)
        want = 0o700 if stat.S_ISDIR(st.st_mode) else mode & 0o700
        if mode != want:
            os.chmod(path, want)
    except OSError:
        return  # vanished meanwhile, or not ours to change


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


def read_backup(path: Path, key: str) -> dict[str, Any] | None:
    """The last good copy of a store file (`<name>.bak`, one write behind), read only: None when it is
    missing, unreadable or not this engine's. Nothing is moved or logged: a caller compares it."""
    bak = path.with_name(path.name + ".bak")
    try:
        check_store_file(bak)
        return _decode_document(bak, bak.read_bytes(), key)
    except (OSError, ValueError):  # StoreUnreadableError is an OSError, JSONDecodeError a ValueError
        return None


def _decode_document(path: Path, raw: bytes, key: str | None) -> dict[str, Any]:
    """A store file's bytes as its document; ValueError when they are no JSON object,
    StoreUnreadableError when the object is not this engine's (`check_document`)."""
    with gc_paused():  # a large store is hundreds of thousands of dicts: see gcpause
        doc = orjson.loads(raw)
    if not isinstance(doc, dict):
        raise ValueError("top level is not an object")
    if key is not None:
        check_document(path, doc, key)
    return doc


def read_json_document(
    path: Path, key: str | None = None, fell_back: list[str] | None = None
) -> dict[str, Any] | None:
    """Load a store document; fall back to the backup; None when neither exists.

    A corrupt file is moved aside and reported loudly, and the backup is used (and named in
    `fell_back`, for a caller that must redo what the lost write held). A file that parses
    but is not this engine's (see `check_document`, with `key` the record list it must hold), or
    is a link or not a regular file, raises StoreUnreadableError: it may be someone's data, so it
    is neither replaced by the backup nor set aside.
    """
    candidates = [path, path.with_name(path.name + ".bak")]
    errors: list[str] = []
    for i, cand in enumerate(candidates):
        check_store_file(cand)
        try:
            raw = cand.read_bytes()
        except FileNotFoundError:
            continue
        try:
            doc = _decode_document(cand, raw, key)
            if i > 0:
                log.error(
                    "store file %s was unreadable; loaded the last good copy %s (%d bytes)",
                    path.name,
                    cand.name,
                    len(raw),
                )
            if i > 0 and fell_back is not None:  # corrupt or missing: the backup is one write behind
                fell_back.append(cand.name)
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
    if errors and fell_back is not None:
        fell_back.append("empty")  # a copy existed and none could be read: everything it held is lost
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
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
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
