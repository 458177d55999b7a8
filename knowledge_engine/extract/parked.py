"""Where the LLM tier parks the batches it could not send or store: one interface, two places.

Why an interface: on the file backend a parked batch is a JSON file in the workspace's
`llm-pending/` folder, claimed across processes by `flock` (only the processes of one machine
share it). On the shared PostgreSQL store (`store.postgres.parked`) it is a row keyed by agent, so
a node that dies for good strands nothing: any node claims it with a lease and sends it. A batch
is named by its key (the batch id); its body is the same JSON either way.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from knowledge_engine.fsio import write_atomic
from knowledge_engine.ingest.redact import Redactor, Tally, batch_files, rewrite_batch_file

Seen = Callable[[str], None]


class ParkError(OSError):
    """A batch could not be parked (the shared database failed): counted as lost like a full disk."""


class ParkedStore(Protocol):
    """Parked batches of one agent. Errors writing raise OSError (the batcher counts the loss)."""

    def prepare(self) -> None:
        """Make the place ready (a folder); never raises."""

    def waiting(self) -> list[str]:
        """Batches waiting to be sent (not set aside), oldest first."""

    def claim(self, key: str) -> bool:
        """Take a batch so no other process sends it meanwhile; False if taken or gone."""

    def unclaim(self, key: str) -> None:
        """Give a claimed batch back (still parked)."""

    def read(self, key: str) -> bytes | None:
        """The body of a batch; None when it is gone."""

    def write(self, key: str, body: bytes, create: bool) -> None:
        """Store a batch; with create=False only an existing one is updated (never resurrected)."""

    def remove(self, key: str) -> None:
        """The batch is done (delivered and stored, or dropped); releases its claim."""

    def set_aside(self, key: str, kind: str) -> None:
        """Keep a batch for inspection and never send it again (`failed`, `corrupt`)."""

    def failed_count(self) -> int:
        """Batches set aside as failed."""

    def forget(self, redactor: Redactor, seen: Seen | None) -> Tally:
        """Forgotten messages leave every batch (set-aside ones too); an emptied batch goes."""


class FileParked:
    """`batch-<id>.json` files in a folder; a claim is an flock on the file's descriptor."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self._locks: dict[str, int] = {}

    def path(self, key: str) -> Path:
        return self.folder / f"batch-{key}.json"

    def prepare(self) -> None:
        with contextlib.suppress(OSError):  # an unwritable folder is reported when a batch must be parked
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)

    def waiting(self) -> list[str]:
        try:
            return sorted(p.stem[len("batch-") :] for p in self.folder.glob("batch-*.json"))
        except OSError:
            return []

    def claim(self, key: str) -> bool:
        path = self.path(key)
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return False  # delivered and removed meanwhile
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.fstat(fd).st_ino != os.stat(path).st_ino:  # replaced or removed since it was opened
                raise FileNotFoundError(path)
        except OSError:
            os.close(fd)
            return False
        self._locks[key] = fd
        return True

    def unclaim(self, key: str) -> None:
        fd = self._locks.pop(key, None)
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)  # closing the descriptor releases the lock

    def read(self, key: str) -> bytes | None:
        try:
            return self.path(key).read_bytes()
        except FileNotFoundError:
            return None

    def write(self, key: str, body: bytes, create: bool) -> None:
        path = self.path(key)
        if not create and not path.exists():
            return
        if create:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        write_atomic(path, body)

    def remove(self, key: str) -> None:
        try:
            with contextlib.suppress(FileNotFoundError):
                self.path(key).unlink()
        finally:
            self.unclaim(key)  # also when the unlink fails: this process may then claim it again

    def set_aside(self, key: str, kind: str) -> None:
        path = self.path(key)
        with contextlib.suppress(OSError):
            path.rename(path.with_suffix(f".{kind}"))
        self.unclaim(key)

    def failed_count(self) -> int:
        try:
            return len(list(self.folder.glob("batch-*.failed")))
        except OSError:
            return 0

    def forget(self, redactor: Redactor, seen: Seen | None) -> Tally:
        tally = Tally()
        for path in batch_files(self.folder):
            tally.add(rewrite_batch_file(path, redactor, seen))
        return tally
