"""The agents' folders that hold work an earlier process left behind, found at start.

Why: a workspace's journal, spill file and LLM inbox are replayed when the workspace opens, and a
host opens it only when a hook names its agent. After a `kill -9` (the OpenClaw plugin restarting a
crashed sidecar, a Python host restarted) the accepted messages of an agent that says nothing more
would stay unsearchable in its journal, while `/drain` reported nothing pending. With a fixed
`workspace` holding `{agentId}` (what the OpenClaw plugin sets) every agent's folder is known, so
those with parked work are opened, and so replayed, at start.
"""

from __future__ import annotations

import glob
import re
from pathlib import Path

from knowledge_engine.config import EngineConfig
from knowledge_engine.ingest.journal import JOURNAL_NAME
from knowledge_engine.ingest.queue import SPILL_NAME

AGENT = "{agentId}"
PARKED_FILES = (JOURNAL_NAME, SPILL_NAME, SPILL_NAME + ".work")
LLM_PENDING = "llm-pending"  # the LLM tier's inbox and parked batches (extract/inbox.py, llm/parked)


def parked_workspaces(config: EngineConfig) -> list[tuple[Path, str]]:
    """(folder, agent id) of every agent folder of `workspace` with parked work; [] when the folders
    are not known before a hook names them (no `workspace`, or not one `{agentId}` in it)."""
    template = config.workspace
    if not template or str(template).count(AGENT) != 1:
        return []
    head, _, tail = str(Path(template).expanduser()).partition(AGENT)
    agent_re = re.compile(re.escape(head) + r"([^/]+)" + re.escape(tail))
    found: list[tuple[Path, str]] = []
    for path in sorted(glob.glob(glob.escape(head) + "*" + glob.escape(tail))):
        match = agent_re.fullmatch(path)
        folder = Path(path)
        if match is not None and folder.is_dir() and has_parked_work(folder):
            found.append((folder.resolve(), match.group(1)))
    return found


def has_parked_work(folder: Path) -> bool:
    """Whether a workspace holds accepted messages or LLM work not yet applied (a clean stop leaves
    the journal empty and no spill file)."""
    if any(_size(folder / name) > 0 for name in PARKED_FILES):
        return True
    pending = folder / LLM_PENDING
    return pending.is_dir() and any(_size(p) > 0 for p in pending.iterdir())


def _size(path: Path) -> int:
    try:
        return path.stat().st_size if path.is_file() else 0
    except OSError:
        return 0
