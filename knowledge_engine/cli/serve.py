"""`serve`: run the engine as a local HTTP sidecar (Unix socket or loopback TCP) for non-Python hosts."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import orjson
import typer

from knowledge_engine.cli.common import fail
from knowledge_engine.config import ConfigError, load_config


def _read_config(path: Path | None) -> tuple[dict[str, Any], str]:
    """The raw config dict (validated here so a typo fails before any socket exists) and its log level."""
    raw: Any = {}
    if path is not None:
        try:
            raw = orjson.loads(path.expanduser().read_bytes())
        except FileNotFoundError:
            fail(f"config file {path} not found", 2)
        except orjson.JSONDecodeError as exc:
            fail(f"config file {path} is not valid JSON ({exc})", 2)
        if not isinstance(raw, dict):
            fail(f"config file {path} must hold a JSON object", 2)
    try:
        cfg = load_config(raw)
    except ConfigError as exc:
        fail(str(exc), 2)
    return raw, cfg.log_level


def _setup_logging(level: str) -> None:
    """Engine logs at `level` on stderr (stdout carries only the `listening` line)."""
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, force=True,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("knowledge_engine").setLevel(level.upper())


def serve(
    config: Annotated[
        Path | None, typer.Option("--config", "-c", help="JSON config file (as config.example.json).")
    ] = None,
    socket_path: Annotated[
        Path | None,
        typer.Option("--socket", help="Unix socket path (default $XDG_RUNTIME_DIR/knowledge-engine/"
                     "sidecar.sock, else ~/.knowledge-engine/run/sidecar.sock).", show_default=False),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option("--port", min=0, max=65535, help="Serve on loopback TCP instead (0 picks a free port); "
                     "requires the KNOWLEDGE_ENGINE_SIDECAR_TOKEN environment variable."),
    ] = None,
    host: Annotated[str, typer.Option("--host", help="Loopback address for --port.")] = "127.0.0.1",
    log_level: Annotated[
        str | None,
        typer.Option("--log-level", help="debug, info, warning or error (default: the config's logLevel)."),
    ] = None,
    parent_pid: Annotated[
        int | None,
        typer.Option("--parent-pid", min=1, help="Stop (drain and flush) when this parent process is gone, "
                     "e.g. a gateway killed with SIGKILL; the OpenClaw plugin passes its own pid."),
    ] = None,
) -> None:
    """Serve the hooks over HTTP until SIGTERM/SIGINT; see docs/sidecar.md for the API."""
    from knowledge_engine.sidecar.auth import TOKEN_ENV, token_from_env
    from knowledge_engine.sidecar.server import ServeOptions
    from knowledge_engine.sidecar.server import serve as run_server
    from knowledge_engine.sidecar.transport import (
        TransportError,
        bind_tcp,
        bind_unix,
        check_loopback,
        default_socket_path,
    )

    if socket_path is not None and port is not None:
        fail("give --socket or --port, not both", 2)
    if log_level is not None and log_level.lower() not in ("debug", "info", "warning", "error"):
        fail("--log-level must be debug, info, warning or error", 2)
    raw, cfg_level = _read_config(config)
    _setup_logging(log_level or cfg_level)
    token = token_from_env()
    if port is not None:
        if token is None:
            fail(f"--port requires a bearer token in the environment variable {TOKEN_ENV}", 2)
        try:
            check_loopback(host)
        except TransportError as exc:
            fail(str(exc), 2)
    try:
        if port is not None:
            listener = bind_tcp(host, port)
        else:
            listener = bind_unix(socket_path or default_socket_path())
    except TransportError as exc:
        fail(str(exc), 1)
    options = ServeOptions(raw, listener, token, parent_pid=parent_pid)
    try:
        code = asyncio.run(run_server(options))
    except ConfigError as exc:
        fail(str(exc), 2)
    _exit_after_stop(code)


def _exit_after_stop(code: int) -> NoReturn:
    """End the process once the stop has drained and flushed (or parked) everything.

    Why not a normal interpreter exit: a SIGTERM right after start can find the warm-up still busy in
    a native library's threads (models loading or embedding); the interpreter's teardown then runs the
    library's destructors under a running thread and the C++ runtime aborts ("terminate called without
    an active exception", exit -6; tests/test_sidecar_lifecycle.py, 2 to 5 runs in 6 once the pipeline
    gained a component). Nothing is left to write, so the process ends here, as `maintain` does after
    an abandoned job."""
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
