"""Real workspaces for the CLI tests, built once per test process through the engine and copied per test.

Building runs the real pipeline (spaCy, the local embedder, embedded Chroma); copying a finished
workspace keeps each test to milliseconds while every test still owns its files.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from datetime import UTC, datetime, timedelta
from functools import cache
from importlib import resources
from pathlib import Path

from typer.testing import CliRunner

from knowledge_engine.cli.app import app
from knowledge_engine.config import load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.ingest.transcript import TranscriptReport, read_transcript
from knowledge_engine.model.records import Message

SECRET = "Zorblax Quintavalle"  # a name no model or fixture contains by chance
SECRET_FIRST = "Zorblax"
_ROOT = Path(tempfile.mkdtemp(prefix="ke-cli-templates-"))
atexit.register(shutil.rmtree, _ROOT, True)


def sample_messages() -> list[Message]:
    path = Path(str(resources.files("knowledge_engine") / "data" / "sample_conversation.jsonl"))
    return list(read_transcript(path, TranscriptReport()))


def secret_messages() -> list[Message]:
    t0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
    texts = [
        ("user", "Ana", f"My colleague {SECRET} works at Acme Corp in Lisbon."),
        ("assistant", "Assistant", f"Noted: {SECRET} works at Acme Corp."),
        ("user", "Ana", f"{SECRET_FIRST} moved to Porto last spring and I visit him often."),
        ("user", "Ana", "I bought a new bike for the commute."),
        ("user", SECRET, "Hello, I am the one who works at Acme Corp."),
        ("user", "Ana", "Carla Mendes works at Globex in Madrid."),
    ]
    return [
        Message(
            id=f"z-{i:02d}",
            text=t,
            role=r,
            speaker=s,
            session="zs1" if i < 4 else "zs2",
            timestamp=t0 + timedelta(minutes=5 * i),
        )
        for i, (r, s, t) in enumerate(texts)
    ]


def _build(folder: Path, messages: list[Message]) -> Path:
    engine = KnowledgeEngine(load_config({"storage": {"writeDebounceMs": 0}}))
    ws = engine.open_workspace(folder, "default")
    engine.ingest(ws, messages)
    assert engine.flush(timeout_s=120)
    engine.stop(timeout_s=30)
    return folder


@cache
def _template(name: str) -> Path:
    msgs = sample_messages() if name == "sample" else secret_messages()
    return _build(_ROOT / name, msgs)


def workspace_copy(name: str, dest: Path) -> Path:
    """A private copy of a prebuilt workspace ("sample" or "secret")."""
    target = dest / f"ws-{name}"
    shutil.copytree(_template(name), target)
    return target


runner = CliRunner()


def cli(*args: str, input: str | None = None) -> tuple[int, str, str]:
    """Run a command in-process: (exit code, stdout, stderr)."""
    res = runner.invoke(app, list(args), input=input)
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise res.exception
    return res.exit_code, res.stdout, res.stderr
