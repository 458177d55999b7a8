"""The code the README and docs/ show runs as shown.

A block preceded by `<!-- example: PATH -->` must be exactly the file PATH (a runnable file under
`examples/`), and every Python block that looks runnable (`asyncio.run(`, a quoted hook run) must be
marked so. Each example then runs in a fresh interpreter and its output is checked.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARKED = re.compile(r"<!-- example: (?P<path>\S+) -->\n```\w*\n(?P<body>.*?)^```", re.S | re.M)
FENCED = re.compile(r"^```(?P<lang>\w*)\n(?P<body>.*?)^```", re.S | re.M)
RUNNABLE = re.compile(r"asyncio\.run\(|await runner\.run\w*\([\"{]")
TIMEOUT_S = 300  # spaCy workers start in 2-3 s on an idle machine; generous for a loaded one


def _marked() -> list[tuple[Path, str, str]]:
    return [(doc, m["path"], m["body"]) for doc in DOCS for m in MARKED.finditer(doc.read_text())]


def _run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(
        list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT_S, check=False
    )


def test_marked_blocks_are_the_example_files() -> None:
    blocks = _marked()
    assert {p for _, p, _ in blocks} >= {"examples/plugin_example.py", "examples/host_contract.py"}
    for doc, path, body in blocks:
        file = ROOT / path
        assert file.is_file(), f"{doc.name} marks a block as {path}, which does not exist"
        assert body == file.read_text(), f"{doc.name}: the block marked {path} differs from the file"


def test_runnable_python_blocks_are_marked_examples() -> None:
    marked = {body for _, _, body in _marked()}
    for doc in DOCS:
        for m in FENCED.finditer(doc.read_text()):
            if m["lang"] == "python" and RUNNABLE.search(m["body"]):
                assert m["body"] in marked, f"{doc.name}: a runnable Python block is not an example file"


@pytest.mark.slow
def test_plugin_example_injects_the_fact_on_its_first_prompt(tmp_path: Path) -> None:
    proc = _run(sys.executable, "examples/plugin_example.py", str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert out.startswith("<<<knowledge-engine:BEGIN nonce="), out
    assert "| moved-to | Lisbon" in out and "I moved to Lisbon" in out, out
    assert (tmp_path / "knowledge-engine" / "facts.json").is_file()


@pytest.mark.slow
def test_host_contract_example_prints_the_injected_block(tmp_path: Path) -> None:
    proc = _run(sys.executable, "examples/host_contract.py", str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.startswith("<<<knowledge-engine:BEGIN nonce="), proc.stdout
    assert "Dana | moved-to | Lisbon" in proc.stdout, proc.stdout
