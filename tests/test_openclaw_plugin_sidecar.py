"""The plugin's JS service spawning the REAL `knowledge-engine serve` (spawn mode, the venv's console
script): a conversation sent through the JS hooks becomes facts on disk and comes back from
before_prompt_build; stopping the service drains and ends the sidecar; logs stay content-free."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.openclaw_plugin_support import PLUGIN, node_binary
from tests.sidecar_process import sidecar_config

pytestmark = pytest.mark.slow  # real processes and spaCy: outside the fast loop

MARKER = "Quokkaville"


def test_the_js_service_runs_the_real_sidecar_end_to_end(tmp_path: Path) -> None:
    node = node_binary()
    if node is None:
        pytest.skip("no Node.js: neither .cache/openclaw/bin/node (scripts/setup) nor `node` on PATH")
    script = Path(sys.executable).parent / "knowledge-engine"
    if not script.exists():
        pytest.skip("the knowledge-engine console script is not installed in this environment")
    config = sidecar_config(tmp_path)
    config["sidecar"] = {"command": str(script), "promptTimeoutMs": 12000}
    messages = [
        f"Hi, I'm Dana. I work at Globex Corporation and I live in {MARKER}.",
        "Send the invoice to dana@globex.example by 2025-03-14.",
    ]
    question = f"Which company do I work for, and is {MARKER} nice?"
    driver = PLUGIN / "testing" / "drive-real-sidecar.mjs"
    done = subprocess.run(
        [node, str(driver), json.dumps(config), str(tmp_path / "state"), json.dumps(messages), question],
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert "error" not in out, out.get("error")
    assert out["ready"] is True
    assert out["stats"]["sent"] == 2 and out["stats"]["dropped"] == 0

    folder = tmp_path / "agents" / "main"
    facts = json.loads((folder / "facts.json").read_text())["facts"]
    assert any(f["predicate"] == "works-at" and "Globex" in f["object"] for f in facts)
    block = "\n".join(v for v in (out["result"] or {}).values())
    assert "Globex" in block and "knowledge-engine:BEGIN" in block

    config_file = tmp_path / "state" / "knowledge-engine" / "config.json"
    assert config_file.stat().st_mode & 0o777 == 0o600
    assert "sidecar" not in json.loads(config_file.read_text())
    assert out["exited"] is True, "stopping the service ended the sidecar"
    logs = json.dumps(out["logs"])
    assert "drained=true" in logs
    for secret in (MARKER, "Globex", "invoice", "GW-TOKEN"):
        assert secret not in logs
    # what the sidecar logged on its stderr (inherited) carries no message text either
    assert MARKER not in done.stderr and "GW-TOKEN" not in done.stderr
