"""Listening sockets for the sidecar: a private Unix socket (default) or loopback TCP.

Why bind here rather than let the server library do it: the Unix socket must never exist, even for
an instant, with looser permissions than 0600. It is bound under a temporary name inside a fresh
0700 folder, chmod-ed, then renamed into place (rename is atomic and keeps the inode).
"""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import logging
import os
import socket
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("knowledge_engine.sidecar")

SOCKET_NAME = "sidecar.sock"
LOOPBACK_NAMES = {"localhost"}


class TransportError(Exception):
    """A socket that cannot be opened; the message names paths and ports only."""


@dataclass(frozen=True, slots=True)
class Listener:
    """A bound, listening socket and where it listens (`path` for Unix, `port` for TCP)."""

    sock: socket.socket
    path: Path | None = None
    port: int | None = None
    inode: int | None = None  # of the socket file, to unlink only our own at exit


def default_socket_path() -> Path:
    """`$XDG_RUNTIME_DIR/knowledge-engine/sidecar.sock`, else `~/.knowledge-engine/run/sidecar.sock`."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and Path(runtime).is_absolute():
        return Path(runtime) / "knowledge-engine" / SOCKET_NAME
    return Path("~/.knowledge-engine/run").expanduser() / SOCKET_NAME


def check_loopback(host: str) -> str:
    """The host if it is a loopback address; TCP is for this machine only (the token is sent in clear)."""
    if host in LOOPBACK_NAMES:
        return host
    try:
        if ipaddress.ip_address(host).is_loopback:
            return host
    except ValueError:
        pass
    raise TransportError(f"--host must be a loopback address (127.0.0.1, ::1 or localhost), got {host!r}")


def _private_folder(folder: Path) -> None:
    """Create the socket's folder 0700 when missing; an existing folder is left as it is."""
    if folder.is_dir():
        return
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(folder, 0o700)  # mkdir's mode is masked by the umask
    except OSError as exc:
        raise TransportError(f"cannot create socket folder {folder}: {exc.strerror}") from None


def _clear_stale(path: Path) -> None:
    """Remove a socket file nobody listens on; refuse to touch a live socket or a non-socket."""
    try:
        st = path.lstat()
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(st.st_mode):
        raise TransportError(f"{path} exists and is not a socket; refusing to replace it")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.settimeout(1.0)
        probe.connect(str(path))
    except OSError as exc:
        if exc.errno not in (errno.ECONNREFUSED, errno.ENOENT):
            raise TransportError(f"cannot probe existing socket {path}: {exc.strerror}") from None
    else:
        raise TransportError(f"another process is listening on {path}")
    finally:
        probe.close()
    path.unlink(missing_ok=True)
    log.info("removed a stale socket file at %s", path)


def bind_unix(path: Path) -> Listener:
    """A listening Unix socket at `path`, mode 0600, created without a window of looser permissions."""
    path = path.expanduser().absolute()
    if len(os.fsencode(str(path))) >= 100:  # sun_path is 108 bytes; keep room for the temporary name
        raise TransportError(f"socket path is too long for a Unix socket: {path}")
    _private_folder(path.parent)
    _clear_stale(path)
    staging = Path(tempfile.mkdtemp(prefix=".ke-", dir=path.parent))  # 0700 by construction
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        temp = staging / "s"
        sock.bind(str(temp))
        os.chmod(temp, 0o600)
        os.rename(temp, path)
        inode = path.lstat().st_ino
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise TransportError(f"cannot listen on {path}: {exc.strerror}") from None
    finally:
        with contextlib.suppress(OSError):
            (staging / "s").unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            staging.rmdir()
    sock.setblocking(False)
    return Listener(sock, path=path, inode=inode)


def bind_tcp(host: str, port: int) -> Listener:
    """A listening loopback TCP socket (`port` 0 picks a free one)."""
    check_loopback(host)
    try:
        sock = socket.create_server((host, port), backlog=128, reuse_port=False)
    except OSError as exc:
        raise TransportError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.setblocking(False)
    return Listener(sock, port=int(sock.getsockname()[1]))


def remove_socket_file(listener: Listener) -> None:
    """Unlink our socket file at exit, unless another process has replaced it meanwhile."""
    if listener.path is None:
        return
    with contextlib.suppress(OSError):
        if listener.path.lstat().st_ino == listener.inode:
            listener.path.unlink()
