"""The sidecar's HTTP API on aiohttp: `GET /health`, `POST /hooks/<name>`, `POST /drain`.

Why aiohttp: a maintained asyncio HTTP server that serves on a socket we bind ourselves (so the Unix
socket is private from its first instant), enforces a body limit, and does not cancel a handler when
the client goes away (a message hook that started always finishes). Error bodies are
`{"error": "<reason>"}` with fixed, content-free reasons: nothing from the payload is ever echoed
or logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import orjson
from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from knowledge_engine import __version__
from knowledge_engine.observe import counters, emit
from knowledge_engine.sidecar.auth import BearerAuth
from knowledge_engine.sidecar.runtime import SidecarRuntime, UnknownHook
from knowledge_engine.sidecar.transport import Listener, remove_socket_file

log = logging.getLogger("knowledge_engine.sidecar")

MAX_BODY_BYTES = 8 * 1024 * 1024
STOP_BUDGET_S = 5.0  # the plugin's gateway_stop budget (the runner cuts the handler there)
GRACE_S = 0.5  # for requests in flight when a signal arrives
KNOWN_DRAIN_REASONS = {"plugin replacement", "shutdown", "stop", "restart", "reload"}

RUNTIME_KEY = web.AppKey("runtime", SidecarRuntime)
AUTH_KEY = web.AppKey("auth", BearerAuth)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class DrainRequest(BaseModel):
    """Body of `POST /drain` (all optional)."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    timeout_ms: float = Field(4000, ge=0, le=600_000, alias="timeoutMs", strict=True)
    reason: str | None = Field(None, max_length=200)


class BadRequest(Exception):
    """A request we answer with 400; the message is one of this module's fixed reasons."""


def json_response(data: Any, status: int = 200) -> web.Response:
    return web.Response(body=orjson.dumps(data), status=status, content_type="application/json")


def error_response(status: int, reason: str) -> web.Response:
    return json_response({"error": reason}, status)


# --------------------------------------------------------------------------- logs


class ContentFreeServerLog(logging.Filter):
    """aiohttp logs a request it cannot parse with the parser's exception, which quotes the offending
    request bytes (a header value, a body line); keep the line, name only the exception type."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None:
            record.msg = f"{record.getMessage()} ({type(exc).__name__}; request content not logged)"
            record.args = None
            record.exc_info = None
            record.exc_text = None
        return True


def quiet_server_logs() -> None:
    server_log = logging.getLogger("aiohttp.server")
    if not any(isinstance(f, ContentFreeServerLog) for f in server_log.filters):
        server_log.addFilter(ContentFreeServerLog())


# --------------------------------------------------------------------------- middlewares


@web.middleware
async def errors_as_json(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every error, including aiohttp's own (404, 405, 413), as a content-free JSON body."""
    try:
        return await handler(request)
    except BadRequest as exc:
        counters.inc("sidecar.bad_request")
        return error_response(400, str(exc))
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        if exc.status == 413:
            counters.inc("sidecar.too_large")
        return error_response(exc.status, exc.reason.lower())
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        counters.inc("sidecar.errors")
        log.error("sidecar request failed: %s", type(exc).__name__)
        return error_response(500, "internal error")


@web.middleware
async def bearer_auth(request: web.Request, handler: Handler) -> web.StreamResponse:
    if not request.app[AUTH_KEY].allows(request.headers.get("Authorization")):
        response = error_response(401, "missing or wrong bearer token")
        response.headers["WWW-Authenticate"] = 'Bearer realm="knowledge-engine"'
        return response
    return await handler(request)


# --------------------------------------------------------------------------- body parsing


async def read_object(request: web.Request) -> dict[str, Any] | None:
    """The body as a JSON object; None when empty. 413 before reading when Content-Length is too big."""
    if request.content_length is not None and request.content_length > MAX_BODY_BYTES:
        raise web.HTTPRequestEntityTooLarge(max_size=MAX_BODY_BYTES, actual_size=request.content_length)
    raw = await request.read()  # aiohttp enforces client_max_size on chunked bodies too
    if not raw.strip():
        return None
    data = _loads(raw)
    if not isinstance(data, dict):
        raise BadRequest("body must be a JSON object")
    return data


def _loads(raw: bytes) -> Any:
    """orjson, else the standard parser for what orjson refuses but JSON allows: a lone surrogate
    escape ("\\ud83d"), which Node's JSON.stringify writes for a string cut inside an emoji. The
    engine cleans such text (U+FFFD) as it does in-process; refusing the body would lose the message."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        pass
    try:  # UTF-8 only (a BOM or another encoding is still refused), and no NaN/Infinity
        return json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except ValueError:  # JSONDecodeError and UnicodeDecodeError
        raise BadRequest("body is not valid JSON") from None


def _no_constant(name: str) -> Any:
    raise ValueError(name)


def hook_payload(body: dict[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(event, ctx) from `{"event": {...}, "ctx": {...}}`; ctx is optional."""
    if body is None or "event" not in body:
        raise BadRequest("body must be a JSON object with an event")
    event, ctx = body["event"], body.get("ctx")
    if not isinstance(event, dict):
        raise BadRequest("event must be a JSON object")
    if ctx is None:
        ctx = {}
    if not isinstance(ctx, dict):
        raise BadRequest("ctx must be a JSON object")
    return event, ctx


def drain_request(body: dict[str, Any] | None) -> DrainRequest:
    try:
        return DrainRequest.model_validate(body or {})
    except ValidationError as exc:
        fields = sorted({".".join(str(p) for p in err["loc"]) for err in exc.errors()})
        raise BadRequest(f"invalid drain request: {', '.join(fields)}") from None


# --------------------------------------------------------------------------- routes


async def health(request: web.Request) -> web.Response:
    runtime = request.app[RUNTIME_KEY]
    return json_response(
        {"status": "ok", "ready": runtime.ready, "version": __version__, "pid": os.getpid(),
         "hooks": runtime.hooks}
    )


async def run_hook(request: web.Request) -> web.Response:
    runtime = request.app[RUNTIME_KEY]
    name = request.match_info["name"]
    if name not in runtime.hooks:
        raise web.HTTPNotFound()
    event, ctx = hook_payload(await read_object(request))
    try:
        result = await runtime.run_hook(name, event, ctx)
    except UnknownHook:
        raise web.HTTPNotFound() from None
    except Exception as exc:  # the host must never fail because of us
        counters.inc("sidecar.hook_errors")
        log.error("hook %s failed in the sidecar: %s", name, type(exc).__name__)
        result = None
    return json_response({"result": result if isinstance(result, dict) else None})


async def drain(request: web.Request) -> web.Response:
    runtime = request.app[RUNTIME_KEY]
    req = drain_request(await read_object(request))
    reason = req.reason if req.reason in KNOWN_DRAIN_REASONS else ("other" if req.reason else None)
    log.info("drain requested (reason: %s, timeout %d ms)", reason, req.timeout_ms)
    drained, pending = await runtime.drain(req.timeout_ms / 1000)
    return json_response({"drained": drained, "pending": pending})


def build_app(runtime: SidecarRuntime, auth: BearerAuth) -> web.Application:
    app = web.Application(middlewares=[errors_as_json, bearer_auth], client_max_size=MAX_BODY_BYTES)
    app[RUNTIME_KEY] = runtime
    app[AUTH_KEY] = auth
    app.router.add_get("/health", health)
    app.router.add_post("/hooks/{name}", run_hook)
    app.router.add_post("/drain", drain)
    return app


# --------------------------------------------------------------------------- process lifecycle


@dataclass(frozen=True, slots=True)
class ServeOptions:
    plugin_config: dict[str, Any]
    listener: Listener
    token: str | None
    stop_budget_s: float = STOP_BUDGET_S
    parent_pid: int | None = None  # stop (drain, flush) when this process is gone


def announce(listener: Listener) -> None:
    """The one stdout line a supervisor waits for."""
    line = {"event": "listening", "socket": str(listener.path) if listener.path else None,
            "port": listener.port, "pid": os.getpid()}
    sys.stdout.buffer.write(orjson.dumps(line) + b"\n")
    sys.stdout.flush()


def stop_on_signals(stop: asyncio.Event) -> None:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, _on_signal, stop, sig)


async def stop_with_parent(stop: asyncio.Event, parent_pid: int, every_s: float = 1.0) -> None:
    """A gateway killed with SIGKILL cannot stop its sidecar; the sidecar notices it was orphaned.

    Gone means: this process was re-parented (its direct parent died, e.g. a wrapper script), or no
    process `parent_pid` exists any more.
    """
    direct_parent = os.getppid()
    while not stop.is_set():
        if os.getppid() != direct_parent or not _alive(parent_pid):
            log.info("parent process %d is gone; stopping", parent_pid)
            stop.set()
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every_s)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _on_signal(stop: asyncio.Event, sig: signal.Signals) -> None:
    if stop.is_set():
        log.info("%s received again; still stopping within the budget", sig.name)
        return
    log.info("%s received; stopping", sig.name)
    stop.set()


async def serve(options: ServeOptions) -> int:
    """Run until SIGTERM/SIGINT, then stop accepting, drain and flush within the budget; the exit code."""
    stop = asyncio.Event()
    stop_on_signals(stop)
    quiet_server_logs()
    listener = options.listener
    runtime = SidecarRuntime(options.plugin_config)
    try:
        await runtime.start()
    except BaseException:
        listener.sock.close()
        remove_socket_file(listener)
        raise
    budget = options.stop_budget_s
    runner = web.AppRunner(build_app(runtime, BearerAuth(options.token)), handle_signals=False,
                           access_log=None, shutdown_timeout=GRACE_S)
    await runner.setup()
    await web.SockSite(runner, listener.sock).start()
    announce(listener)
    watcher = asyncio.create_task(stop_with_parent(stop, options.parent_pid)) if options.parent_pid else None
    emit("sidecar.listening", transport="unix" if listener.path else "tcp", auth=options.token is not None,
         hooks=len(runtime.hooks))
    await stop.wait()
    if watcher is not None:
        await watcher
    return await shutdown(runtime, runner, listener, budget)


async def shutdown(runtime: SidecarRuntime, runner: web.AppRunner, listener: Listener, budget: float) -> int:
    t0 = time.monotonic()
    await runner.cleanup()  # stops accepting; in-flight requests get a short grace period
    remove_socket_file(listener)
    drained = await runtime.stop(budget)
    emit("sidecar.stopped", drained=drained, durationMs=round((time.monotonic() - t0) * 1000))
    return 0
