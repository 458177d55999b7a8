"""Start `knowledge-engine serve` as a real subprocess and talk to it over its real socket (aiohttp client).

Shared by tests/test_sidecar_*.py. Everything waits for the condition it needs with a generous
deadline; nothing sleeps a fixed time.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

TOKEN_ENV = "KNOWLEDGE_ENGINE_SIDECAR_TOKEN"
START_DEADLINE_S = 180.0
STOP_DEADLINE_S = 60.0


def sidecar_config(root: Path, **extra: Any) -> dict[str, Any]:
    """Fast to start and loopback-only: one spaCy worker, no embedder, no scheduler, no remote sources.

    A fixed `workspace` with {agentId}: message hooks (which carry only a session key) and
    before_prompt_build (which carries the agent) resolve to the same folder.
    """
    cfg: dict[str, Any] = {
        "workspace": str(root / "agents" / "{agentId}"),
        "storage": {"writeDebounceMs": 50},
        "extraction": {"spacy": {"workers": 1}},
        "embeddings": {"enabled": False},
        "maintenance": {"enabled": False},
    }
    cfg.update(extra)
    return cfg


def command() -> list[str]:
    """The installed console script when there is one (what users run), else the module."""
    script = Path(sys.executable).parent / "knowledge-engine"
    return [str(script)] if script.exists() else [sys.executable, "-m", "knowledge_engine.cli.app"]


@dataclass
class Sidecar:
    proc: subprocess.Popen[bytes]
    stderr_path: Path
    listening: dict[str, Any]
    token: str | None = None
    extra_headers: dict[str, str] = field(default_factory=dict)

    @property
    def socket(self) -> Path | None:
        return Path(self.listening["socket"]) if self.listening.get("socket") else None

    @property
    def port(self) -> int | None:
        port = self.listening.get("port")
        return int(port) if port is not None else None

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    # ------------------------------------------------------------------ HTTP
    def call(
        self, method: str, path: str, body: Any = None, *, raw: bytes | None = None,
        headers: dict[str, str] | None = None, auth: bool = True, timeout_s: float = 120.0,
    ) -> tuple[int, Any]:
        """(status, parsed JSON body) of one request; `raw` sends bytes as they are."""
        return asyncio.run(self._call(method, path, body, raw, headers, auth, timeout_s))

    async def _call(
        self, method: str, path: str, body: Any, raw: bytes | None, headers: dict[str, str] | None,
        auth: bool, timeout_s: float,
    ) -> tuple[int, Any]:
        hdrs = dict(headers or {})
        if auth and self.token and "Authorization" not in hdrs:
            hdrs["Authorization"] = f"Bearer {self.token}"
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        connector = aiohttp.UnixConnector(path=str(self.socket)) if self.socket else None
        base = f"http://127.0.0.1:{self.port}" if self.port is not None else "http://sidecar"
        timeout = aiohttp.ClientTimeout(total=timeout_s)
        async with (
            aiohttp.ClientSession(connector=connector, timeout=timeout) as session,
            session.request(method, base + path, data=data, headers=hdrs) as resp,
        ):
            text = await resp.text()
            try:
                return resp.status, json.loads(text)
            except ValueError:
                return resp.status, text

    def hook(self, name: str, event: dict[str, Any], ctx: dict[str, Any] | None = None) -> Any:
        status, body = self.call("POST", f"/hooks/{name}", {"event": event, "ctx": ctx or {}})
        assert status == 200, (status, body)
        return body["result"]

    def wait_ready(self, deadline_s: float = START_DEADLINE_S) -> None:
        wait_for(lambda: self.call("GET", "/health")[1]["ready"], deadline_s, "sidecar ready")

    # ------------------------------------------------------------------ process
    def terminate(self, sig: int = signal.SIGTERM, deadline_s: float = STOP_DEADLINE_S) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=deadline_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"sidecar did not exit within {deadline_s} s of signal {sig}") from None


def wait_for(check: Callable[[], Any], deadline_s: float, what: str) -> Any:
    """Poll `check` until it returns something truthy; fail naming `what` at the deadline."""
    end = time.monotonic() + deadline_s
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {deadline_s} s waiting for {what}")
        time.sleep(0.05)


def run_serve(
    tmp_path: Path, args: list[str], config: dict[str, Any] | None = None, token: str | None = None,
    timeout_s: float = 120.0,
) -> subprocess.CompletedProcess[str]:
    """Run `serve` expecting it to exit by itself (argument and config errors)."""
    cmd = [*command(), "serve", *args]
    if config is not None:
        cfg_file = tmp_path / "serve-config.json"
        cfg_file.write_text(json.dumps(config))
        cmd += ["--config", str(cfg_file)]
    return subprocess.run(cmd, capture_output=True, text=True, env=_env(token), timeout=timeout_s,
                          stdin=subprocess.DEVNULL, check=False)


def start_sidecar(
    tmp_path: Path, config: dict[str, Any], *, socket: Path | None = None, port: int | None = None,
    token: str | None = None, log_level: str = "debug", extra_args: list[str] | None = None,
    name: str = "sidecar", default_socket: bool = False, env: dict[str, str] | None = None,
) -> Sidecar:
    """Start `serve` and return once it printed its `listening` line (`default_socket`: no --socket)."""
    cfg_file = tmp_path / f"{name}-config.json"
    cfg_file.write_text(json.dumps(config))
    cmd = [*command(), "serve", "--config", str(cfg_file), "--log-level", log_level, *(extra_args or [])]
    if port is not None:
        cmd += ["--port", str(port)]
    elif not default_socket:
        cmd += ["--socket", str(socket or tmp_path / "s.sock")]
    stderr_path = tmp_path / f"{name}.stderr"
    with stderr_path.open("wb") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL,
                                env={**_env(token), **(env or {})}, start_new_session=True)
    line = _first_line(proc, START_DEADLINE_S)
    if not line:
        proc.kill()
        proc.wait()
        raise AssertionError(f"sidecar exited without listening:\n{stderr_path.read_text()[-3000:]}")
    return Sidecar(proc, stderr_path, json.loads(line), token)


def _first_line(proc: subprocess.Popen[bytes], deadline_s: float) -> str:
    """stdout's first line, read on a thread so a hung child cannot hang the test."""
    assert proc.stdout is not None
    out: list[bytes] = []
    reader = threading.Thread(target=lambda: out.append(proc.stdout.readline()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    reader.join(deadline_s)
    if reader.is_alive():
        proc.kill()
        raise AssertionError(f"no listening line within {deadline_s} s")
    return out[0].decode().strip() if out else ""


def _env(token: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != TOKEN_ENV}
    if token is not None:
        env[TOKEN_ENV] = token
    return env
