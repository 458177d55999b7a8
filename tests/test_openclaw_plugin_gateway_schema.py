"""The REAL gateway (openclaw 2026.9.6 in .cache/openclaw, from scripts/setup_openclaw) validates our
manifest's configSchema the way the jsonschema tests do: config.example.json plus a `sidecar` section is
accepted, an unknown key is rejected naming it. Skipped when the cached gateway is not installed."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.openclaw_plugin_support import PLUGIN, ROOT

pytestmark = pytest.mark.slow  # real processes and spaCy: outside the fast loop

CACHE = ROOT / ".cache" / "openclaw"
OPENCLAW = CACHE / "gw" / "node_modules" / ".bin" / "openclaw"


def validate(tmp_path: Path, plugin_config: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    for sub in ("home", "state", "tmp"):
        (tmp_path / sub).mkdir(exist_ok=True)
    config = {
        "gateway": {"mode": "local"},
        "plugins": {
            "load": {"paths": [str(PLUGIN)]},
            "entries": {"knowledge-engine": {"enabled": True, "hooks": {"allowConversationAccess": True},
                                             "config": plugin_config}},
            "slots": {"memory": "knowledge-engine"},
        },
    }
    path = tmp_path / "state" / "openclaw.json"
    path.write_text(json.dumps(config))
    env = {**os.environ, "PATH": f"{CACHE / 'bin'}:{os.environ.get('PATH', '')}",
           "HOME": str(tmp_path / "home"), "OPENCLAW_STATE_DIR": str(tmp_path / "state"),
           "OPENCLAW_CONFIG_PATH": str(path), "OPENCLAW_NO_UPDATE_CHECK": "1",
           "TMPDIR": str(tmp_path / "tmp")}
    return subprocess.run([str(OPENCLAW), "config", "validate"], env=env, capture_output=True, text=True,
                          timeout=300, check=False)


@pytest.fixture(autouse=True)
def _needs_gateway() -> None:
    if not (OPENCLAW.exists() and (CACHE / "bin" / "node").exists()):
        pytest.skip("openclaw is not installed in .cache/openclaw (scripts/setup_openclaw installs it)")


def test_the_gateway_accepts_config_example_with_a_sidecar_section(tmp_path: Path) -> None:
    example = json.loads((ROOT / "config.example.json").read_text())
    example["sidecar"] = {"spawn": False, "socketPath": "/run/ke/sidecar.sock", "promptTimeoutMs": 6000}
    done = validate(tmp_path, example)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_gateway_rejects_unknown_keys_naming_them(tmp_path: Path) -> None:
    done = validate(tmp_path, {"retrieval": {"budgetMss": 3}, "sidecar": {"spawnn": False}})
    out = done.stdout + done.stderr
    assert done.returncode != 0
    assert "budgetMss" in out and "spawnn" in out
