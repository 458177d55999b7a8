"""kill -9 of a process ingesting through the engine (real spaCy pipeline, message log, stores), 20+ times.

The child prints one JSON line after each successful flush: the message ids and fact ids that are
now durable (acknowledged). After every kill the parent opens the workspace, runs `validate`, and
checks that every acknowledged message and fact is still there.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.store.workspace import Workspace
from knowledge_engine.validate import validate

ROUNDS = 20
CONFIG = {"storage": {"writeDebounceMs": 60000}, "embeddings": {"enabled": False},
          "retrieval": {"enabled": False}}

CHILD = textwrap.dedent(
    """
    import json, sys
    from datetime import UTC, datetime, timedelta
    from pathlib import Path
    from knowledge_engine.config import load_config
    from knowledge_engine.engine import KnowledgeEngine
    from knowledge_engine.model.records import Message

    NAMES = ["Dana Reyes", "Carlos Mendes", "Priya Shah", "Omar Haddad", "Lena Vogel", "Tom Okafor"]
    ORGS = ["Globex Corporation", "Initech", "Umbrella Health", "Stark Industries", "Wayne Enterprises"]
    CITIES = ["Toronto", "Berlin", "Lisbon", "Austin", "Oslo", "Nairobi", "Kyoto"]
    folder, tag, config = Path(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
    engine = KnowledgeEngine(load_config(config))
    ws = engine.open_workspace(folder, "kill")
    base = datetime(2025, 1, 1, tzinfo=UTC)
    seen = {f.id for f in ws.facts.all()}
    i = 0
    while True:
        msgs = []
        for k in range(8):
            n = i + k
            who, org, city = NAMES[n % 6], ORGS[n % 5], CITIES[n % 7]
            text = (f"{who} works at {org} and lives in {city}. "
                    f"Mail {who.split()[0].lower()}{n}@example.org about invoice {n} of ${n},000.")
            msgs.append(Message(id=f"{tag}-{n}", text=text, role="user", session="s",
                                timestamp=base + timedelta(minutes=n)))
        engine.ingest(ws, msgs)
        ws.flush()
        now = {f.id for f in ws.facts.all()}
        print(json.dumps({"messages": [m.id for m in msgs], "facts": sorted(now - seen)}), flush=True)
        seen = now
        i += 8
    """
)


def _ack(lines: str, messages: set[str], facts: set[str]) -> int:
    n = 0
    for line in lines.splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue  # a line cut by the kill was never acknowledged
        messages.update(rec["messages"])
        facts.update(rec["facts"])
        n += 1
    return n


@pytest.mark.slow
def test_kill_9_while_ingesting_through_the_engine_loses_nothing_acknowledged(tmp_path: Path) -> None:
    folder = tmp_path / "ws"
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    seed = int(os.environ.get("KE_FAULT_SEED", time.time_ns() % 100000))
    rng = random.Random(seed)
    cfg = load_config(CONFIG)
    acked_msgs: set[str] = set()
    acked_facts: set[str] = set()
    batches = 0
    for round_ in range(ROUNDS):
        proc = subprocess.Popen([sys.executable, str(script), str(folder), f"r{round_}", json.dumps(CONFIG)],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert proc.stdout is not None
        first = proc.stdout.readline()  # started (spaCy loaded) and flushed once
        batches += _ack(first, acked_msgs, acked_facts)
        time.sleep(rng.uniform(0.0, 0.6))  # the kill lands anywhere: extraction, SQLite append, store write
        os.kill(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        batches += _ack(out, acked_msgs, acked_facts)
        ws = Workspace(folder, cfg)  # must load every time
        report = validate(ws, check_index=False)
        assert report.ok, f"seed {seed} round {round_}: {report.to_dict()}"
        lost = acked_facts - {f.id for f in ws.facts.all()}
        assert not lost, f"seed {seed} round {round_}: acknowledged facts lost: {sorted(lost)[:5]}"
        stored = {m.id for m in ws.messages.get_many(sorted(acked_msgs))}
        assert acked_msgs <= stored, f"seed {seed} round {round_}: acknowledged message lost"
        ws.close()
    assert batches >= ROUNDS and len(acked_facts) > 20
    print(f"kill -9 figures: seed={seed} rounds={ROUNDS} acknowledged_batches={batches} "
          f"facts={len(acked_facts)} messages={len(acked_msgs)}")
    assert not list(folder.glob("*.corrupt-*")), "an atomic write must never leave a corrupt file"
