"""Where the Node runtime for the OpenClaw plugin's tests is: the cached Node 24 that
scripts/setup installs for the gateway, else `node` on PATH, else None (tests skip)."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "openclaw-plugin"


def node_binary() -> str | None:
    cached = ROOT / ".cache" / "openclaw" / "bin" / "node"
    if cached.exists():
        return str(cached)
    return shutil.which("node")
