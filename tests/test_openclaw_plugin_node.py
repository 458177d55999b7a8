"""Runs the OpenClaw plugin's own node:test suites (openclaw-plugin/test/*.test.js): fake gateway api,
fake sidecars over real sockets (down, hung, slow, crashing, garbage, recovering), spawn mode."""

from __future__ import annotations

import subprocess

import pytest

from tests.openclaw_plugin_support import PLUGIN, node_binary


def test_the_plugins_node_tests_pass() -> None:
    node = node_binary()
    if node is None:
        pytest.skip("no Node.js: neither .cache/openclaw/bin/node (scripts/setup) nor `node` on PATH")
    files = sorted(str(p) for p in (PLUGIN / "test").glob("*.test.js"))
    assert files, "no node tests found"
    done = subprocess.run(
        [node, "--test", "--test-reporter=tap", *files],
        cwd=PLUGIN, capture_output=True, text=True, timeout=600, check=False,
    )
    summary = "\n".join(line for line in done.stdout.splitlines() if line.startswith(("not ok", "# ")))
    detail = f"{summary}\n{done.stdout[-6000:]}\n{done.stderr[-3000:]}"
    assert done.returncode == 0, f"node --test failed:\n{detail}"
    assert "# fail 0" in done.stdout and "# pass" in done.stdout
