"""Whole-file writes that never leave a torn file: the engine's one temp-file-fsync-replace.

Every file the engine rewrites whole (the store's documents, parked LLM batches, the ingest journal,
the LLM inbox, index sync state, feedback counts, forget records) goes through `write_atomic`, so a
crash or a full disk leaves either the old or the new content, never a mix. Standard library only:
any layer may import it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import threading
from pathlib import Path

# fsync on a directory is refused by some filesystems (not an I/O error: nothing to make durable there)
_DIR_FSYNC_UNSUPPORTED = frozenset({errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP})


def temp_path(path: Path) -> Path:
    """The temp file for `path`: beside it (same filesystem, so the rename is atomic), hidden and
    ending in `.tmp` (what maintenance and forget sweep after a killed writer), one per thread."""
    return path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")


def fsync_dir(folder: Path) -> None:
    """Make a rename in `folder` durable; a filesystem that cannot fsync a directory is not an error."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in _DIR_FSYNC_UNSUPPORTED:
            raise
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes, *, durable: bool = True, backup: bool = False) -> None:
    """Replace `path`'s content with `data`: readers see the old or the new bytes, never a mix.

    The file is owner-only (0600: most of these hold message text), also when a stale temp file of
    a killed writer is reused. `durable`: the data is fsynced before the rename and the folder after
    it, so the new content survives a power loss (files that are cheap to lose or rebuild skip both).
    `backup`: the current file is first hard-linked to `<name>.bak`, the last good copy readers fall
    back to (never for forget's rewrites: the backup would keep what was forgotten). Errors
    propagate; the temp file never outlives a failed write.
    """
    tmp = temp_path(path)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with contextlib.suppress(OSError):
            os.fchmod(fd, 0o600)  # a reused temp file keeps its old mode otherwise
        with open(fd, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        if backup and path.exists():
            _link_backup(path)
        os.replace(tmp, path)
        if durable:
            fsync_dir(path.parent)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def _link_backup(path: Path) -> None:
    """`<name>.bak` becomes a hard link to the current file (replaced atomically, never missing)."""
    bak_tmp = path.with_name(f".{path.name}.bak.tmp")
    with contextlib.suppress(FileNotFoundError):
        bak_tmp.unlink()
    os.link(path, bak_tmp)
    os.replace(bak_tmp, path.with_name(path.name + ".bak"))
