"""Runs the OpenClaw plugin's own node:test suites (openclaw-plugin/test/*.test.js): fake gateway api,
fake sidecars over real sockets (down, hung, slow, crashing, garbage, recovering), spawn mode."""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.openclaw_plugin_support import PLUGIN, node_binary

pytestmark = pytest.mark.slow  # real processes and spaCy: outside the fast loop

TIMEOUT_S = 600


def test_the_plugins_node_tests_pass() -> None:
    node = node_binary()
    if node is None:
        pytest.skip("no Node.js: neither .cache/openclaw/bin/node (setup_openclaw) nor `node` on PATH")
    files = sorted(str(p) for p in (PLUGIN / "test").glob("*.test.js"))
    assert files, "no node tests found"
    # the suites' temp dirs go under a dir of this test's, so what they leave behind can be seen; a short
    # one, since a sidecar socket lives a few levels down and Unix socket paths end at 107 bytes
    with tempfile.TemporaryDirectory(prefix="kep-") as tmp:
        _run_node_tests(node, files, Path(tmp))


def _run_node_tests(node: str, files: list[str], tmp: Path) -> None:
    env = {**os.environ, "TMPDIR": str(tmp)}
    # own process group: a hung run is ended whole, with any sidecar child it spawned
    proc = subprocess.Popen(
        [node, "--test", "--test-reporter=tap", *files],
        cwd=PLUGIN,
        text=True,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        pytest.fail(f"node --test did not finish in {TIMEOUT_S} s:\n{stdout[-6000:]}\n{stderr[-3000:]}")
    summary = "\n".join(line for line in stdout.splitlines() if line.startswith(("not ok", "# ")))
    detail = f"{summary}\n{stdout[-6000:]}\n{stderr[-3000:]}"
    assert proc.returncode == 0, f"node --test failed:\n{detail}"
    assert "# fail 0" in stdout and "# pass" in stdout
    assert sorted(p.name for p in tmp.iterdir()) == [], "the node suites left temp dirs behind"
